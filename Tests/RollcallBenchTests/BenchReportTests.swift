import Testing

@testable import RollcallBench

@Suite("Load generator report")
struct BenchReportTests {
    private func report(compressionOffered: Bool) -> BenchReport {
        var counters = BenchCounterValues()
        counters.opened = 4
        counters.sent = 100
        counters.received = 100
        counters.compressionAgreed = 3
        counters.compressedReceived = 90
        counters.compressedReceivedWireBytes = 1_000
        counters.compressedReceivedInflatedBytes = 8_000
        counters.compressedSent = 80
        counters.compressedSentOriginalBytes = 6_400
        counters.compressedSentWireBytes = 1_600
        counters.bytesSent = 2_500_000
        counters.bytesReceived = 1_250_000
        return BenchReport(
            scenario: .echo,
            target: "ws://127.0.0.1:9001/echo",
            elapsedSeconds: 1,
            counters: counters,
            latency: LatencyHistogram(),
            errorSamples: [],
            compressionOffered: compressionOffered
        )
    }

    @Test("The summary shows the bytes on the sockets and their rates, in the text and the JSON")
    func bytesOnTheSockets() {
        let report = self.report(compressionOffered: false)
        #expect(report.text.contains("bytes: 2500000 sent, 1250000 received on the sockets (20.0 / 10.0 Mbit/s)"))
        guard case .object(let json) = report.json else {
            Issue.record("the JSON form is not an object")
            return
        }
        #expect(json["bytesSent"] == .int(2_500_000))
        #expect(json["bytesReceived"] == .int(1_250_000))
    }

    @Test("With --compression the summary shows agreement, messages and bytes on the wire against inflated")
    func compressionCountsInTheText() {
        let text = self.report(compressionOffered: true).text
        #expect(
            text.contains(
                "compression: 3 of 4 connections agreed; received 90 compressed messages, 1000 bytes on the wire for "
                    + "8000 inflated (12.5 %); sent 80 compressed, 6400 bytes as 1600 on the wire (25.0 %)"
            ),
            "\(text)"
        )
        // The existing lines are unchanged.
        #expect(text.contains("messages: 100 sent, 100 received, 0 lost, 0 mismatched; 100 msgs/s"))
    }

    @Test("With --compression the JSON form has the compression counts")
    func compressionCountsInTheJSON() throws {
        let json = self.report(compressionOffered: true).json
        let compression = try #require(json["compression"])
        #expect(compression["connectionsAgreed"]?.intValue == 3)
        #expect(compression["messagesReceived"]?.intValue == 90)
        #expect(compression["wireBytesReceived"]?.intValue == 1_000)
        #expect(compression["inflatedBytesReceived"]?.intValue == 8_000)
        #expect(compression["receivedPercent"]?.doubleValue == 12.5)
        #expect(compression["messagesSent"]?.intValue == 80)
        #expect(compression["originalBytesSent"]?.intValue == 6_400)
        #expect(compression["wireBytesSent"]?.intValue == 1_600)
        #expect(compression["sentPercent"]?.doubleValue == 25)
        #expect(json["sent"]?.intValue == 100)
        #expect(json["received"]?.intValue == 100)
    }

    @Test("Without --compression the summary has no compression line and the JSON a null")
    func noCompressionCountsWithoutTheOption() throws {
        let report = self.report(compressionOffered: false)
        #expect(!report.text.contains("compression"))
        #expect(report.json["compression"]?.isNull == true)
    }

    @Test("A ratio without any compressed bytes is null, not a division by zero")
    func ratiosWithoutBytesAreNull() throws {
        var report = self.report(compressionOffered: true)
        report.counters.compressedReceivedInflatedBytes = 0
        report.counters.compressedSentOriginalBytes = 0
        let compression = try #require(report.json["compression"])
        #expect(compression["receivedPercent"]?.isNull == true)
        #expect(compression["sentPercent"]?.isNull == true)
        #expect(!report.text.contains("%"))
    }
}
