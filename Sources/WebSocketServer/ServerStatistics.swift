import Synchronization

/// Transport counters shared by every loop (relaxed atomics: cheap to bump, read for logs and metrics). Per-message
/// counters live in each loop's `LoopStatistics`, so the message path never writes a cache line another loop writes.
public final class ServerStatistics: Sendable {
    /// Connections open right now, over all loops (the `server.max_connections` gate).
    let openConnections = Atomic<Int>(0)
    let openPlain = Atomic<Int>(0)
    let openSecure = Atomic<Int>(0)
    let acceptedPlain = Atomic<Int>(0)
    let acceptedSecure = Atomic<Int>(0)
    let rejectedOverLimit = Atomic<Int>(0)
    let upgraded = Atomic<Int>(0)
    let handshakeTimeouts = Atomic<Int>(0)
    let tlsHandshakeFailures = Atomic<Int>(0)
    let protocolViolations = Atomic<Int>(0)
    let keepAliveTimeouts = Atomic<Int>(0)
    let slowConsumersClosed = Atomic<Int>(0)
    /// Refused upgrades by HTTP status; any other status is counted under 0.
    private let rejectedByStatus: [Int: Counter]
    let rejectedPerAddress = Atomic<Int>(0)
    let rejectedPendingHandshakes = Atomic<Int>(0)
    let rateLimited = Atomic<Int>(0)

    /// The per-loop counters, by loop index.
    public let loops: [LoopStatistics]

    /// The statuses an upgrade can be refused with, each counted on its own.
    public static let handshakeStatuses = [400, 403, 404, 405, 408, 411, 413, 414, 426, 431, 501]

    final class Counter: Sendable {
        let value = Atomic<Int>(0)
    }

    init(loopCount: Int = 1) {
        self.loops = (0..<max(1, loopCount)).map { LoopStatistics(index: $0) }
        var byStatus: [Int: Counter] = [:]
        for status in Self.handshakeStatuses + [0] { byStatus[status] = Counter() }
        self.rejectedByStatus = byStatus
    }

    func record(_ event: ServerLoop.Event) {
        switch event {
        case .accepted(secure: true):
            self.acceptedSecure.add(1, ordering: .relaxed)
            self.openSecure.add(1, ordering: .relaxed)
        case .accepted(secure: false):
            self.acceptedPlain.add(1, ordering: .relaxed)
            self.openPlain.add(1, ordering: .relaxed)
        case .closed(secure: true): self.openSecure.subtract(1, ordering: .relaxed)
        case .closed(secure: false): self.openPlain.subtract(1, ordering: .relaxed)
        case .rejectedOverLimit: self.rejectedOverLimit.add(1, ordering: .relaxed)
        case .upgraded: self.upgraded.add(1, ordering: .relaxed)
        case .handshakeRejected(let status):
            (self.rejectedByStatus[status] ?? self.rejectedByStatus[0]!).value.add(1, ordering: .relaxed)
        case .handshakeTimeout: self.handshakeTimeouts.add(1, ordering: .relaxed)
        case .tlsHandshakeFailure: self.tlsHandshakeFailures.add(1, ordering: .relaxed)
        case .protocolViolation: self.protocolViolations.add(1, ordering: .relaxed)
        case .keepAliveTimeout: self.keepAliveTimeouts.add(1, ordering: .relaxed)
        case .slowConsumerClosed: self.slowConsumersClosed.add(1, ordering: .relaxed)
        case .rejectedPerAddress: self.rejectedPerAddress.add(1, ordering: .relaxed)
        case .rejectedPendingHandshakes: self.rejectedPendingHandshakes.add(1, ordering: .relaxed)
        case .rateLimited: self.rateLimited.add(1, ordering: .relaxed)
        }
    }

    /// Connections open now over plain TCP (`ws`) and TLS (`wss`).
    public var openConnectionsByTransport: (plain: Int, secure: Int) {
        (self.openPlain.load(ordering: .relaxed), self.openSecure.load(ordering: .relaxed))
    }

    /// Connections accepted since start over plain TCP and TLS (those over `server.max_connections` excluded).
    public var acceptedConnectionsByTransport: (plain: Int, secure: Int) {
        (self.acceptedPlain.load(ordering: .relaxed), self.acceptedSecure.load(ordering: .relaxed))
    }

    /// Refused upgrade requests by HTTP status (0: any status not in `handshakeStatuses`).
    public var rejectedHandshakesByStatus: [(status: Int, count: Int)] {
        self.rejectedByStatus.keys.sorted().map { ($0, self.rejectedByStatus[$0]!.value.load(ordering: .relaxed)) }
    }

    /// A snapshot of the counters by name.
    public var snapshot: [String: Int] {
        [
            "connections_open": self.openConnections.load(ordering: .relaxed),
            "connections_accepted": self.acceptedPlain.load(ordering: .relaxed)
                + self.acceptedSecure.load(ordering: .relaxed),
            "connections_rejected_over_limit": self.rejectedOverLimit.load(ordering: .relaxed),
            "websocket_upgrades": self.upgraded.load(ordering: .relaxed),
            "handshakes_rejected": self.rejectedByStatus.values.reduce(0) { $0 + $1.value.load(ordering: .relaxed) },
            "handshake_timeouts": self.handshakeTimeouts.load(ordering: .relaxed),
            "tls_handshake_failures": self.tlsHandshakeFailures.load(ordering: .relaxed),
            "protocol_violations": self.protocolViolations.load(ordering: .relaxed),
            "keepalive_timeouts": self.keepAliveTimeouts.load(ordering: .relaxed),
            "slow_consumers_closed": self.slowConsumersClosed.load(ordering: .relaxed),
            "messages_received": self.loops.reduce(0) { $0 + $1.receivedMessages },
            "messages_sent": self.loops.reduce(0) { $0 + $1.sentMessages },
            "bytes_received": self.loops.reduce(0) { $0 + $1.receivedBytes },
            "bytes_sent": self.loops.reduce(0) { $0 + $1.sentBytes },
            "connections_rejected_per_address": self.rejectedPerAddress.load(ordering: .relaxed),
            "connections_rejected_pending_handshakes": self.rejectedPendingHandshakes.load(ordering: .relaxed),
            "connections_rate_limited": self.rateLimited.load(ordering: .relaxed),
        ]
    }
}
