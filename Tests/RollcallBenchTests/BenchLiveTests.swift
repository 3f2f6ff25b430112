import EventIO
import Glibc
import Testing
import WebSocketCore
import WebSocketServer

@testable import RollcallBench

/// Echoes every message except every tenth one of each connection, which it drops.
final class LossyEchoEndpoint: WebSocketEndpoint {
    private var received: [ObjectIdentifier: Int] = [:]

    func connection(_ connection: WebSocketConnection, didReceive message: WebSocketMessage) {
        let count = self.received[ObjectIdentifier(connection), default: 0] + 1
        self.received[ObjectIdentifier(connection)] = count
        guard count % 10 != 0 else { return }
        switch message {
        case .text(let bytes): connection.send(opcode: .text, payload: bytes)
        case .binary(let bytes): connection.send(opcode: .binary, payload: bytes)
        }
    }

    func connectionDidClose(_ connection: WebSocketConnection, reason: WebSocketCloseReason) {
        self.received[ObjectIdentifier(connection)] = nil
    }
}

/// A server on 127.0.0.1 with the echo endpoint at /echo and the lossy one at /lossy.
final class BenchTestServer {
    let server: Server
    let address: SocketAddress

    /// - Parameter compression: whether the server accepts permessage-deflate (its default).
    init(compression: Bool = true) throws {
        var configuration = ServerConfiguration()
        configuration.compression.isEnabled = compression
        configuration.listen = [SocketAddress(parsing: "127.0.0.1:0")!]
        configuration.echoEnabled = true
        configuration.eventLoopCount = 1
        configuration.shutdownGracePeriodMilliseconds = 300
        configuration.closeTimeoutMilliseconds = 1_000
        // The load generator measures throughput: no per-connection rate limit.
        configuration.maximumMessagesPerSecond = 0
        let server = Server(
            configuration: configuration,
            routes: [WebSocketRoute(path: "/lossy") { _ in LossyEchoEndpoint() }]
        )
        try server.start()
        self.server = server
        self.address = server.localAddresses.first!
    }

    func options(_ scenario: BenchOptions.Scenario, path: String) throws -> BenchOptions {
        var options = BenchOptions(scenario: scenario, target: try BenchTarget(url: "ws://\(self.address)\(path)"))
        options.duration = 1
        options.connections = 4
        options.inFlight = 2
        options.size = 64
        // Generous: on a loaded machine a reply can take a while, and these runs assert that nothing is lost.
        options.replyTimeout = 10
        return options
    }

    func stop() {
        self.server.shutDownGracefully()
    }
}

/// Checks an echo run over the test server's four connections: messages went out and every one came back, once
/// and intact.
private func expectEveryEchoReturned(_ report: BenchReport, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(report.counters.opened == 4, sourceLocation: sourceLocation)
    #expect(report.counters.sent > 0, sourceLocation: sourceLocation)
    #expect(report.counters.sent == report.counters.received, sourceLocation: sourceLocation)
    #expect(report.lost == 0, sourceLocation: sourceLocation)
    #expect(report.counters.mismatched == 0, sourceLocation: sourceLocation)
}

/// Checks a run against the lossy endpoint: about one message in ten lost, every other one back intact.
private func expectAboutOneInTenLost(_ report: BenchReport, sourceLocation: SourceLocation = #_sourceLocation) {
    let sent = report.counters.sent
    #expect(sent > 0, sourceLocation: sourceLocation)
    #expect(report.lost > 0, sourceLocation: sourceLocation)
    #expect(report.counters.received + report.lost == sent, sourceLocation: sourceLocation)
    let ratio = Double(report.lost) / Double(max(sent, 1))
    #expect(ratio > 0.05 && ratio < 0.15, "lost \(report.lost) of \(sent)", sourceLocation: sourceLocation)
    #expect(report.counters.mismatched == 0, sourceLocation: sourceLocation)
}

@Suite("Load generator against a live server", .serialized)
struct BenchLiveTests {
    @Test("Echo: every message sent comes back, nothing is lost or mismatched")
    func echoCountsWhatItClaims() throws {
        let server = try BenchTestServer()
        defer { server.stop() }
        let report = try BenchRunner.run(try server.options(.echo, path: "/echo"))
        #expect(report.counters.opened == 4)
        #expect(report.counters.connectFailures == 0)
        #expect(report.counters.errors == 0)
        #expect(report.counters.sent > 0)
        #expect(report.counters.sent == report.counters.received)
        #expect(report.lost == 0)
        #expect(report.counters.mismatched == 0)
        #expect(report.latency.count == UInt64(report.counters.received))
        // Every echoed 64-byte message is at least its frame on the wire: a 6-byte masked header out, 2 bytes in.
        #expect(report.counters.bytesSent >= report.counters.sent * (64 + 6))
        #expect(report.counters.bytesReceived >= report.counters.received * (64 + 2))
        // And not much more: the upgrades and the close handshakes are all the rest.
        #expect(report.counters.bytesSent < report.counters.sent * (64 + 6) + 4 * 1024)
    }

    @Test("Echo over several client loops with larger messages")
    func echoOverSeveralLoops() throws {
        let server = try BenchTestServer()
        defer { server.stop() }
        var options = try server.options(.echo, path: "/echo")
        options.threads = 2
        options.size = 70_000
        options.inFlight = 1
        let report = try BenchRunner.run(options)
        expectEveryEchoReturned(report)
    }

    @Test("A server that drops every tenth message is reported as lossy")
    func lossyServerIsReportedAsLossy() throws {
        let server = try BenchTestServer()
        defer { server.stop() }
        var options = try server.options(.echo, path: "/lossy")
        // Short, so the dropped messages are declared lost within the run.
        options.replyTimeout = 1
        let report = try BenchRunner.run(options)
        expectAboutOneInTenLost(report)
    }

    @Test("Echo with compression: every message comes back compressed, nothing is lost or mismatched")
    func echoWithCompression() throws {
        let server = try BenchTestServer()
        defer { server.stop() }
        var options = try server.options(.echo, path: "/echo")
        options.compression = true
        options.size = 1024
        let report = try BenchRunner.run(options)
        let counters = report.counters
        #expect(counters.opened == 4)
        #expect(counters.errors == 0, "\(report.errorSamples)")
        #expect(counters.sent > 0)
        #expect(counters.sent == counters.received)
        #expect(report.lost == 0)
        #expect(counters.mismatched == 0)
        #expect(counters.compressionAgreed == 4)
        // Every request and every reply is over the 64-byte minimum, so all of them travel compressed.
        #expect(counters.compressedSent == counters.sent)
        #expect(counters.compressedSentOriginalBytes == counters.sent * 1024)
        #expect(counters.compressedSentWireBytes < counters.compressedSentOriginalBytes / 2)
        #expect(counters.compressedReceived == counters.received)
        #expect(counters.compressedReceivedInflatedBytes == counters.received * 1024)
        #expect(counters.compressedReceivedWireBytes < counters.compressedReceivedInflatedBytes / 2)
        let line = "compression: 4 of 4 connections agreed; received \(counters.received) compressed messages"
        #expect(report.text.contains(line), "\(report.text)")
        #expect(report.json["compression"]?["connectionsAgreed"]?.intValue == 4)
    }

    @Test("Echo with compression over several client loops with messages of several sizes")
    func echoWithCompressionOverSeveralLoops() throws {
        let server = try BenchTestServer()
        defer { server.stop() }
        var options = try server.options(.echo, path: "/echo")
        options.compression = true
        options.threads = 2
        options.size = 70_000
        options.inFlight = 1
        let report = try BenchRunner.run(options)
        expectEveryEchoReturned(report)
        #expect(report.counters.compressedReceived == report.counters.received)
        // Messages below the minimum go out uncompressed, and the server answers them uncompressed too.
        options.size = 40
        options.threads = 1
        let small = try BenchRunner.run(options)
        #expect(small.counters.sent > 0)
        #expect(small.counters.sent == small.counters.received)
        #expect(small.counters.compressionAgreed == 4)
        #expect(small.counters.compressedSent == 0)
        #expect(small.counters.compressedReceived == 0)
    }

    @Test("With compression a server that drops every tenth message is still reported as lossy")
    func lossyServerIsReportedAsLossyWithCompression() throws {
        let server = try BenchTestServer()
        defer { server.stop() }
        var options = try server.options(.echo, path: "/lossy")
        options.compression = true
        options.size = 512
        options.replyTimeout = 1
        let report = try BenchRunner.run(options)
        expectAboutOneInTenLost(report)
        #expect(report.counters.compressionAgreed == 4)
        #expect(report.counters.compressedReceived == report.counters.received)
    }

    @Test("With compression against a server that declines it, echo runs uncompressed")
    func echoAgainstAServerWithoutCompression() throws {
        let server = try BenchTestServer(compression: false)
        defer { server.stop() }
        var options = try server.options(.echo, path: "/echo")
        options.compression = true
        options.size = 1024
        let report = try BenchRunner.run(options)
        #expect(report.counters.opened == 4)
        #expect(report.counters.errors == 0, "\(report.errorSamples)")
        #expect(report.counters.sent > 0)
        #expect(report.counters.sent == report.counters.received)
        #expect(report.counters.compressionAgreed == 0)
        #expect(report.counters.compressedSent == 0)
        #expect(report.counters.compressedReceived == 0)
    }

    @Test("Connect with compression: every handshake agrees to it")
    func connectWithCompression() throws {
        let server = try BenchTestServer()
        defer { server.stop() }
        var options = try server.options(.connect, path: "/echo")
        options.connections = 2
        options.compression = true
        let report = try BenchRunner.run(options)
        #expect(report.counters.received > 0)
        #expect(report.counters.errors == 0, "\(report.errorSamples)")
        #expect(report.counters.compressionAgreed == report.counters.opened)
    }

    @Test("Connect: handshakes complete and are closed cleanly")
    func connectCountsHandshakes() throws {
        let server = try BenchTestServer()
        defer { server.stop() }
        var options = try server.options(.connect, path: "/echo")
        options.connections = 2
        let report = try BenchRunner.run(options)
        #expect(report.counters.received > 0)
        #expect(report.counters.connectFailures == 0)
        #expect(report.counters.errors == 0)
        #expect(report.counters.opened == report.counters.received)
    }

    @Test("Idle: connections open and stay open until the end")
    func idleOpensEveryConnection() throws {
        let server = try BenchTestServer()
        defer { server.stop() }
        var options = try server.options(.idle, path: "/echo")
        options.connections = 50
        options.serverPID = getpid()
        let report = try BenchRunner.run(options)
        #expect(report.counters.opened == 50)
        #expect(report.counters.connectFailures == 0)
        #expect(report.counters.errors == 0)
        #expect(report.serverRSSBefore != nil && report.serverRSSAfter != nil)
    }
}

@Suite("Load generator parts")
struct BenchPartsTests {
    @Test("Only loopback targets are accepted")
    func onlyLoopbackTargets() throws {
        #expect(throws: BenchError.self) { try BenchTarget(url: "ws://10.0.0.1:80/echo") }
        #expect(throws: BenchError.self) { try BenchTarget(url: "ws://[2001:db8::1]:80/echo") }
        #expect(throws: BenchError.self) { try BenchTarget(url: "ws://example.com/echo") }
        #expect(throws: BenchError.self) { try BenchTarget(url: "http://127.0.0.1/echo") }
        let target = try BenchTarget(url: "ws://127.0.0.2:9001/echo")
        #expect(target.address.port == 9001 && target.path == "/echo" && !target.isSecure)
        let secure = try BenchTarget(url: "wss://[::1]:8443")
        #expect(secure.isSecure && secure.path == "/" && secure.address.isIPv6)
        #expect(try BenchTarget(url: "ws://localhost:8080/v1/ws?x=1").path == "/v1/ws?x=1")
    }

    @Test("Source address ranges expand and must be loopback")
    func sourceAddressRanges() throws {
        let addresses = try BenchOptions.parseSourceAddresses("127.0.0.1-127.0.0.8")
        #expect(addresses.map(\.host) == (1...8).map { "127.0.0.\($0)" })
        var options = BenchOptions(scenario: .idle, target: try BenchTarget(url: "ws://127.0.0.1:1/"))
        options.sourceAddresses = try BenchOptions.parseSourceAddresses("10.0.0.1")
        #expect(throws: BenchError.self) { try options.validate() }
        options.sourceAddresses = []
        options.duration = 601
        #expect(throws: BenchError.self) { try options.validate() }
    }

    @Test("The histogram's quantiles are within its bucket precision")
    func histogramQuantiles() {
        var histogram = LatencyHistogram()
        for value in 1...100_000 { histogram.record(UInt64(value) * 1000) }
        #expect(histogram.count == 100_000)
        #expect(histogram.maximum == 100_000_000)
        let p50 = Double(histogram.value(atQuantile: 0.5))
        let p99 = Double(histogram.value(atQuantile: 0.99))
        #expect(abs(p50 - 50_000_000) / 50_000_000 < 0.02)
        #expect(abs(p99 - 99_000_000) / 99_000_000 < 0.02)
        #expect(histogram.value(atQuantile: 1) == 100_000_000)
        for value: UInt64 in [0, 1, 127, 128, 129, 1000, 1 << 40, UInt64.max] {
            let bucket = LatencyHistogram.bucket(of: value)
            #expect(bucket < LatencyHistogram.bucketCount)
            #expect(LatencyHistogram.upperBound(of: bucket) >= value)
        }
    }
}
