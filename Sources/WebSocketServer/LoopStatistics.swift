import EventIO
import Synchronization

/// The counters of one server loop. Only that loop's thread writes them (uncontended relaxed atomics, so the
/// per-message cost is one add on a cache line no other thread writes); a scrape sums them over the loops.
public final class LoopStatistics: Sendable {
    /// The loop's position.
    public let index: Int
    /// Iterations and busy time of the loop itself.
    public let eventLoop = EventLoopStatistics()
    let openConnections = Atomic<Int>(0)
    let messagesReceived = Atomic<Int>(0)
    let messagesSent = Atomic<Int>(0)
    let bytesReceived = Atomic<Int>(0)
    let bytesSent = Atomic<Int>(0)

    init(index: Int) {
        self.index = index
    }

    /// Connections open on this loop (any phase: handshake, HTTP, WebSocket).
    public var connections: Int { self.openConnections.load(ordering: .relaxed) }
    /// WebSocket messages received (text and binary, not control frames).
    public var receivedMessages: Int { self.messagesReceived.load(ordering: .relaxed) }
    /// WebSocket messages queued to clients (text and binary, not control frames).
    public var sentMessages: Int { self.messagesSent.load(ordering: .relaxed) }
    /// Bytes read from sockets (ciphertext on TLS connections).
    public var receivedBytes: Int { self.bytesReceived.load(ordering: .relaxed) }
    /// Bytes written to sockets (ciphertext on TLS connections).
    public var sentBytes: Int { self.bytesSent.load(ordering: .relaxed) }
}
