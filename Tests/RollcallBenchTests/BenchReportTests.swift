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

    /// A fan-out run of 5 s whose 1,000 deliveries spread over 8 s, the last 400 after the load ended.
    private func lateFanOutReport() -> BenchReport {
        var counters = BenchCounterValues()
        counters.opened = 11
        counters.sent = 100
        counters.expected = 1_000
        counters.received = 1_000
        var timing = DeliveryTiming()
        let start: UInt64 = 7_000_000_000
        for index in 0..<1_000 {
            let at = start + UInt64(index) * 8_000_000_000 / 999
            let late = index >= 600
            timing.record(at: at, latency: late ? 2_000_000_000 : 1_000_000, afterLoad: late)
        }
        return BenchReport(
            scenario: .fanout, target: "ws://127.0.0.1:9001/v1/ws", elapsedSeconds: 5, counters: counters,
            latency: LatencyHistogram(), errorSamples: [], deliveries: timing)
    }

    @Test("Fan-out deliveries are counted over the span from the first to the last, not over the load")
    func fanOutRateOverTheDeliverySpan() {
        let report = self.lateFanOutReport()
        #expect(report.deliveries.spanSeconds == 8)
        #expect(report.ratePerSecond == 125)
        #expect(report.json["deliveriesPerSecond"]?.doubleValue == 125)
        #expect(report.json["deliverySpanSeconds"]?.doubleValue == 8)
        #expect(report.text.contains("125 deliveries/s over 8.000 s from the first delivery to the last"))
    }

    @Test("Fan-out deliveries after the load ended are counted, with their share and latency")
    func fanOutLateDeliveries() throws {
        let report = self.lateFanOutReport()
        #expect(report.deliveries.lateCount == 400)
        #expect(report.latePercent == 40)
        let json = report.json
        #expect(json["lateDeliveries"]?.intValue == 400)
        #expect(json["latePercent"]?.doubleValue == 40)
        let late = try #require(json["lateLatencyMicroseconds"])
        let p50 = try #require(late["p50"]?.doubleValue)
        #expect(abs(p50 - 2_000_000) / 2_000_000 < 0.02)
        #expect(report.text.contains("after the load ended: 400 deliveries (40.0 % of those received), latency (µs)"))
    }

    @Test("Timings from several loops merge: the earliest first, the latest last, every late delivery")
    func deliveryTimingsMerge() {
        var first = DeliveryTiming()
        first.record(at: 2_000, latency: 10, afterLoad: false)
        first.record(at: 9_000, latency: 30, afterLoad: true)
        var second = DeliveryTiming()
        second.record(at: 1_000, latency: 10, afterLoad: false)
        second.record(at: 5_000, latency: 20, afterLoad: true)
        first.merge(second)
        first.merge(DeliveryTiming())
        #expect(first.first == 1_000 && first.last == 9_000 && first.count == 4 && first.lateCount == 2)
        #expect(first.spanSeconds == 8e-6)
        #expect(DeliveryTiming().spanSeconds == 0)
    }

    @Test("A fan-out run with every delivery on time says so")
    func fanOutWithoutLateDeliveries() {
        var report = self.lateFanOutReport()
        report.deliveries = DeliveryTiming()
        report.deliveries.record(at: 1_000_000_000, latency: 1_000, afterLoad: false)
        #expect(report.text.contains("after the load ended: no deliveries"))
        // With a single delivery there is no span: the rate falls back to the load's duration.
        #expect(report.ratePerSecond == 200)
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
