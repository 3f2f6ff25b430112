import EventIO
import Foundation
import Glibc
import Synchronization
import Testing
import WebSocketCore
import WebSocketTestSupport

@testable import WebSocketServer

/// Echoes messages and remembers, on its loop, the connection and what it could read of the request while it
/// opened.
private final class RecordingEndpoint: WebSocketEndpoint {
    /// What `connectionDidOpen` saw: the `X-Probe` header and the query; read from the test's thread.
    let seenAtOpen = Mutex<(probe: String?, query: String?)>((nil, nil))
    /// The last connection opened; the connection itself is touched on its loop only.
    let opened = Mutex<UncheckedBox<WebSocketConnection>?>(nil)

    func connectionDidOpen(_ connection: WebSocketConnection) {
        let probe = connection.requestHead?.value(of: "X-Probe")
        let query = connection.query
        self.seenAtOpen.withLock { $0 = (probe, query) }
        self.opened.withLock { $0 = UncheckedBox(connection) }
    }

    func connection(_ connection: WebSocketConnection, didReceive message: WebSocketMessage) {
        if case .text(let bytes) = message { connection.send(opcode: .text, payload: bytes) }
    }
}

/// The bytes an instance of `type` asks the allocator for, as the Swift runtime reads them from the class's metadata
/// (`InstanceSize`, the 32-bit field after the kind, the superclass, the flags and the instance address point on a
/// platform without Objective-C interop). Unlike the size of the block `malloc` hands out, it does not depend on
/// which free chunks other work on the process left behind.
private func instanceSize(of type: AnyClass) -> Int {
    let metadata = unsafeBitCast(type, to: UnsafeRawPointer.self)
    return Int(metadata.load(fromByteOffset: 24, as: UInt32.self))
}

/// Three words after the two-word object header: 40 bytes, to check the metadata is read where it should be.
private final class ThreeWords {
    var first = 1
    var second = 2
    var third = 3
}

/// What an idle connection holds, read on its loop.
private struct IdleFacts: Sendable {
    var connectionBytes = 0
    var sessionBytes = 0
    var holdsQueueStorage = true
    var pendingCapacity = -1
    var requestHeadAfterOpen = true
    var queryAfterOpen = true
}

@Suite("An idle connection's memory")
struct IdleConnectionMemoryTests {
    private static func withServer(_ body: (Server, RecordingEndpoint) throws -> Void) throws {
        let endpoint = RecordingEndpoint()
        var configuration = ServerConfiguration()
        configuration.listen = [SocketAddress(parsing: "127.0.0.1:0")!]
        configuration.eventLoopCount = 1
        configuration.shutdownGracePeriodMilliseconds = 300
        // Sweeps (which give back unused write buffers) every 10 ms.
        configuration.closeTimeoutMilliseconds = 40
        let box = UncheckedBox(endpoint)
        let server = Server(
            configuration: configuration, routes: [WebSocketRoute(path: "/probe") { _ in box.value }])
        try server.start()
        defer { server.shutDownGracefully() }
        try body(server, endpoint)
    }

    /// Reads the facts on the loop of the connection opened last (waiting, bounded, for it to open).
    private static func facts(of endpoint: RecordingEndpoint) throws -> IdleFacts {
        var opened = endpoint.opened.withLock { $0 }
        for _ in 0..<500 where opened == nil {
            usleep(10_000)
            opened = endpoint.opened.withLock { $0 }
        }
        let box = try #require(opened)
        let result = Mutex<IdleFacts?>(nil)
        box.value.loop.execute {
            let connection = box.value
            var facts = IdleFacts()
            facts.connectionBytes = instanceSize(of: type(of: connection))
            if let session = connection.phase.session {
                facts.sessionBytes = instanceSize(of: type(of: session))
            }
            facts.holdsQueueStorage = connection.outbound.holdsStorage
            facts.pendingCapacity = connection.pending.capacity
            facts.requestHeadAfterOpen = connection.requestHead != nil
            facts.queryAfterOpen = connection.query != nil
            result.withLock { $0 = facts }
        }
        for _ in 0..<500 {
            if let facts = result.withLock({ $0 }) { return facts }
            usleep(10_000)
        }
        throw TestClientError("the loop did not answer")
    }

    @Test("Once open, a connection is two records of at most 200 bytes each and holds no buffer")
    func anIdleConnectionIsTwoSmallRecords() throws {
        try Self.withServer { server, endpoint in
            let client = try TestClient(connectingTo: server.localAddresses.first!)
            let response = try client.handshake(path: "/probe?room=a", extraHeaders: [("X-Probe", "seen")])
            #expect(response.status == 101)
            // A round trip: the connection is open and its loop has handled the upgrade.
            #expect(try client.echo(text: "hello") == "hello")
            let seen = endpoint.seenAtOpen.withLock { $0 }
            #expect(seen.probe == "seen")
            #expect(seen.query == "room=a")
            var facts = try Self.facts(of: endpoint)
            #expect(
                facts.connectionBytes > 0 && facts.connectionBytes <= 200,
                "the connection is \(facts.connectionBytes) bytes")
            #expect(facts.sessionBytes > 0 && facts.sessionBytes <= 200)
            // The request is not kept once the endpoint has seen it.
            #expect(!facts.requestHeadAfterOpen)
            #expect(!facts.queryAfterOpen)
            #expect(facts.pendingCapacity == 0)
            // The echo's write buffer is given back by the sweeps once the connection stops writing.
            for _ in 0..<500 where facts.holdsQueueStorage {
                usleep(10_000)
                facts = try Self.facts(of: endpoint)
            }
            #expect(!facts.holdsQueueStorage)
        }
    }

    @Test("A connection that only completed its handshake never allocated a write queue")
    func theHandshakeAnswerNeedsNoQueue() throws {
        try Self.withServer { server, endpoint in
            let client = try TestClient(connectingTo: server.localAddresses.first!)
            #expect(try client.handshake(path: "/probe").status == 101)
            let facts = try Self.facts(of: endpoint)
            #expect(!facts.holdsQueueStorage)
            #expect(facts.pendingCapacity == 0)
        }
    }

    @Test("The instance size is read from a class's metadata")
    func theInstanceSizeReaderIsRight() {
        #expect(instanceSize(of: ThreeWords.self) == 40)
    }

    @Test("The compact values a connection is made of keep their sizes")
    func compactValues() {
        #expect(MemoryLayout<SocketAddress?>.size <= 24)
        #expect(MemoryLayout<WebSocketSessionStateMachine>.size <= 48)
        #expect(MemoryLayout<WebSocketInboundProcessor?>.size <= 72)
        #expect(MemoryLayout<WebSocketConnection.Phase>.size <= 9)
        #expect(MemoryLayout<MessageRateLimiter>.size <= 16)
    }
}
