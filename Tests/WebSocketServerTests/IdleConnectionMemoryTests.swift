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

/// The C library's `malloc_usable_size` (not in the Glibc module's headers): the bytes an allocation holds.
private let mallocUsableSize: @convention(c) (UnsafeMutableRawPointer?) -> Int = {
    // RTLD_DEFAULT is the null handle on glibc.
    let symbol = dlsym(nil, "malloc_usable_size")!
    return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutableRawPointer?) -> Int).self)
}()

/// How much larger than asked a block from `malloc` can be: glibc hands out a reused free chunk whole when what is
/// left over would be smaller than its minimum chunk (32 bytes), so a 200-byte record can sit in a 216-byte chunk
/// when other work on the process freed one.
private let mallocReuseSlack = 16

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
            facts.connectionBytes = mallocUsableSize(Unmanaged.passUnretained(connection).toOpaque())
            if let session = connection.phase.session {
                facts.sessionBytes = mallocUsableSize(Unmanaged.passUnretained(session).toOpaque())
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
            #expect(facts.connectionBytes > 0 && facts.connectionBytes <= 200 + mallocReuseSlack)
            #expect(facts.sessionBytes > 0 && facts.sessionBytes <= 200 + mallocReuseSlack)
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

    @Test("The compact values a connection is made of keep their sizes")
    func compactValues() {
        #expect(MemoryLayout<SocketAddress?>.size <= 24)
        #expect(MemoryLayout<WebSocketSessionStateMachine>.size <= 48)
        #expect(MemoryLayout<WebSocketInboundProcessor?>.size <= 72)
        #expect(MemoryLayout<WebSocketConnection.Phase>.size <= 9)
        #expect(MemoryLayout<MessageRateLimiter>.size <= 16)
    }
}
