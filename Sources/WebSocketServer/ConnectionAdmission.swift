import EventIO
import Synchronization

/// Admission state shared by every loop: open connections per client address and handshakes in progress.
///
/// It is touched only when a connection is accepted, finishes its handshake or closes, never per message: the map
/// sits behind one lock, held for a dictionary update.
final class ConnectionAdmission: Sendable {
    /// Why a new connection was refused.
    enum Refusal {
        /// The client address already has `maximumConnectionsPerAddress` connections open.
        case tooManyFromAddress
        /// `maximumPendingHandshakes` connections are still in their handshake.
        case tooManyPendingHandshakes
    }

    private let maximumPerAddress: Int
    private let maximumPending: Int
    private let perAddress = Mutex<[SocketAddress: Int]>([:])
    private let pending = Atomic<Int>(0)

    init(maximumConnectionsPerAddress: Int, maximumPendingHandshakes: Int) {
        self.maximumPerAddress = maximumConnectionsPerAddress
        self.maximumPending = maximumPendingHandshakes
    }

    /// Handshakes in progress over all loops.
    var pendingHandshakes: Int { self.pending.load(ordering: .relaxed) }

    /// Addresses with at least one open connection.
    var addressCount: Int { self.perAddress.withLock { $0.count } }

    /// The key an address is counted under: the host alone, without the port.
    static func key(_ address: SocketAddress) -> SocketAddress {
        address.withPort(0)
    }

    /// Counts a new connection from `address` (nil: not counted per address) as open and in its handshake, or
    /// refuses it and counts nothing.
    func admit(_ address: SocketAddress?) -> Refusal? {
        // Takes a slot only while one is free, so the count never reads above the limit, even for a moment.
        var taken = self.pending.load(ordering: .relaxed)
        while true {
            guard taken < self.maximumPending else { return .tooManyPendingHandshakes }
            let (exchanged, current) = self.pending.compareExchange(
                expected: taken, desired: taken + 1, ordering: .relaxed)
            if exchanged { break }
            taken = current
        }
        guard let address else { return nil }
        let key = Self.key(address)
        let admitted = self.perAddress.withLock { counts in
            let open = counts[key, default: 0]
            guard open < self.maximumPerAddress else { return false }
            counts[key] = open + 1
            return true
        }
        if !admitted {
            self.pending.subtract(1, ordering: .relaxed)
            return .tooManyFromAddress
        }
        return nil
    }

    /// The connection left its handshake (upgraded, answered over HTTP, or closed).
    func handshakeEnded() {
        self.pending.subtract(1, ordering: .relaxed)
    }

    /// The connection from `address` closed.
    func connectionClosed(_ address: SocketAddress?) {
        guard let address else { return }
        let key = Self.key(address)
        self.perAddress.withLock { counts in
            guard let open = counts[key] else { return }
            counts[key] = open > 1 ? open - 1 : nil
        }
    }
}
