import EventIO
import Testing
import WebSocketCore
import WebSocketServer

@testable import RollcallBench

/// A topic: the text message "subscribe" subscribes a connection; any other message, from a connection that did
/// not subscribe, goes to every subscriber wrapped as `{"published":MESSAGE}`. With `holdMilliseconds`, messages
/// are held and go out together that long after the first one held (a server that falls behind).
final class TopicEndpoint: WebSocketEndpoint {
    private var subscribers: [WebSocketConnection] = []
    private var held: [[UInt8]] = []
    private let holdMilliseconds: UInt64
    private var releaseScheduled = false

    init(holdMilliseconds: UInt64 = 0) {
        self.holdMilliseconds = holdMilliseconds
    }

    func connection(_ connection: WebSocketConnection, didReceive message: WebSocketMessage) {
        guard case .text(let bytes) = message else { return }
        if bytes.elementsEqual("subscribe".utf8) {
            self.subscribers.append(connection)
            return
        }
        guard !self.subscribers.contains(where: { $0 === connection }) else { return }
        let wrapped = Array("{\"published\":".utf8) + Array(bytes) + Array("}".utf8)
        guard self.holdMilliseconds > 0 else {
            self.publish(wrapped)
            return
        }
        self.held.append(wrapped)
        if !self.releaseScheduled {
            self.releaseScheduled = true
            connection.loop.scheduleTimer(afterNanoseconds: self.holdMilliseconds * 1_000_000) { [weak self] in
                guard let self else { return }
                for message in self.held { self.publish(message) }
                self.held = []
                self.releaseScheduled = false
            }
        }
    }

    private func publish(_ message: [UInt8]) {
        for subscriber in self.subscribers {
            message.withUnsafeBytes { subscriber.send(opcode: .text, payload: $0) }
        }
    }

    func connectionDidClose(_ connection: WebSocketConnection, reason: WebSocketCloseReason) {
        self.subscribers.removeAll { $0 === connection }
    }
}

@Suite("Raw publish and subscribe against a live server", .serialized)
struct PubSubBenchTests {
    /// A server with the topic at /topic and a topic that holds its messages for 2 s at /late.
    private static func server() throws -> (Server, SocketAddress) {
        var configuration = ServerConfiguration()
        configuration.listen = [SocketAddress(parsing: "127.0.0.1:0")!]
        configuration.eventLoopCount = 1
        configuration.shutdownGracePeriodMilliseconds = 300
        configuration.maximumMessagesPerSecond = 0
        let server = Server(
            configuration: configuration,
            routes: [
                WebSocketRoute(path: "/topic") { _ in TopicEndpoint() },
                WebSocketRoute(path: "/late") { _ in TopicEndpoint(holdMilliseconds: 2_000) },
            ]
        )
        try server.start()
        return (server, server.localAddresses.first!)
    }

    private static func options(_ address: SocketAddress, path: String) throws -> BenchOptions {
        var options = BenchOptions(scenario: .pubsub, target: try BenchTarget(url: "ws://\(address)\(path)"))
        options.subscribers = 6
        options.rate = 100
        options.duration = 0.5
        options.settle = 0.2
        options.subscribeMessage = "subscribe"
        options.publishTemplate = "\"{payload}\""
        options.replyTimeout = 10
        return options
    }

    @Test("Every message published reaches every subscriber once, found inside what the server wraps around it")
    func everyMessageReachesEverySubscriber() throws {
        let (server, address) = try Self.server()
        defer { server.shutDownGracefully() }
        var options = try Self.options(address, path: "/topic")
        options.threads = 2
        let report = try BenchRunner.run(options)
        #expect(report.counters.opened == 7)
        #expect(report.counters.sent > 0)
        #expect(report.counters.expected == report.counters.sent * 6)
        #expect(report.counters.received == report.counters.expected)
        #expect(report.lost == 0)
        #expect(report.counters.mismatched == 0)
        #expect(report.latency.count == UInt64(report.counters.received))
        #expect(report.deliveries.count == report.counters.received)
        #expect(report.json["deliveries"]?.intValue == Int64(report.counters.received))
    }

    @Test("A server that delivers only after the load ended is reported late, every delivery of it")
    func aServerThatFallsBehindIsReportedLate() throws {
        let (server, address) = try Self.server()
        defer { server.shutDownGracefully() }
        let report = try BenchRunner.run(try Self.options(address, path: "/late"))
        #expect(report.counters.sent > 0)
        #expect(report.counters.received == report.counters.expected)
        // Held until 2 s after the first publish, past the load's 0.5 s: each delivery came after the load.
        #expect(report.deliveries.lateCount == report.counters.received)
        #expect(report.latePercent == 100)
        #expect(report.json["lateDeliveries"]?.intValue == Int64(report.counters.received))
        #expect(report.text.contains("after the load ended: \(report.counters.received) deliveries (100.0 %"))
    }

    @Test("The payload fills the template's placeholder and pads to the size; a template needs one placeholder")
    func templatesAndSizes() throws {
        let (message, offset) = PubSubDriver.template("{\"text\":\"{payload}\"}", size: 60)
        let text = String(decoding: message, as: UTF8.self)
        #expect(offset == 9)
        #expect(text.hasPrefix("{\"text\":\"rollcall-bench 0000000000 00000000000000000000..............\"}"))
        #expect(message.count == 9 + 60 + 2)
        var options = BenchOptions(scenario: .pubsub, target: try BenchTarget(url: "ws://127.0.0.1:1/"))
        options.publishTemplate = "no placeholder"
        #expect(throws: BenchError.self) { try options.validate() }
        options.publishTemplate = "{payload}{payload}"
        #expect(throws: BenchError.self) { try options.validate() }
        options.publishTemplate = "{payload}"
        options.size = PubSubDriver.minimumPayloadSize - 1
        #expect(throws: BenchError.self) { try options.validate() }
        options.size = PubSubDriver.minimumPayloadSize
        try options.validate()
    }
}
