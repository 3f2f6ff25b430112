import Synchronization

/// Transport counters shared by every loop (relaxed atomics: cheap to bump, read for logs and metrics).
public final class ServerStatistics: Sendable {
    /// Connections open right now, over all loops.
    let openConnections = Atomic<Int>(0)
    let accepted = Atomic<Int>(0)
    let rejectedOverLimit = Atomic<Int>(0)
    let upgraded = Atomic<Int>(0)
    let handshakesRejected = Atomic<Int>(0)
    let handshakeTimeouts = Atomic<Int>(0)
    let tlsHandshakeFailures = Atomic<Int>(0)
    let protocolViolations = Atomic<Int>(0)
    let keepAliveTimeouts = Atomic<Int>(0)
    let slowConsumersClosed = Atomic<Int>(0)
    let rejectedPerAddress = Atomic<Int>(0)
    let rejectedPendingHandshakes = Atomic<Int>(0)
    let rateLimited = Atomic<Int>(0)

    init() {}

    func record(_ event: ServerLoop.Event) {
        switch event {
        case .accepted: self.accepted.add(1, ordering: .relaxed)
        case .rejectedOverLimit: self.rejectedOverLimit.add(1, ordering: .relaxed)
        case .upgraded: self.upgraded.add(1, ordering: .relaxed)
        case .handshakeRejected: self.handshakesRejected.add(1, ordering: .relaxed)
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

    /// A snapshot of the counters by name.
    public var snapshot: [String: Int] {
        [
            "connections_open": self.openConnections.load(ordering: .relaxed),
            "connections_accepted": self.accepted.load(ordering: .relaxed),
            "connections_rejected_over_limit": self.rejectedOverLimit.load(ordering: .relaxed),
            "websocket_upgrades": self.upgraded.load(ordering: .relaxed),
            "handshakes_rejected": self.handshakesRejected.load(ordering: .relaxed),
            "handshake_timeouts": self.handshakeTimeouts.load(ordering: .relaxed),
            "tls_handshake_failures": self.tlsHandshakeFailures.load(ordering: .relaxed),
            "protocol_violations": self.protocolViolations.load(ordering: .relaxed),
            "keepalive_timeouts": self.keepAliveTimeouts.load(ordering: .relaxed),
            "slow_consumers_closed": self.slowConsumersClosed.load(ordering: .relaxed),
            "connections_rejected_per_address": self.rejectedPerAddress.load(ordering: .relaxed),
            "connections_rejected_pending_handshakes": self.rejectedPendingHandshakes.load(ordering: .relaxed),
            "connections_rate_limited": self.rateLimited.load(ordering: .relaxed),
        ]
    }
}
