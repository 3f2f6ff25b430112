import Synchronization

/// The position (in commit order) of the newest committed entry, shared with the threads that read the store
/// behind the gateway (webhook deliveries), which look at it before they query.
public final class CommitPosition: Sendable {
    private let value: Atomic<Int64>

    /// - Parameter initial: the position at start.
    public init(_ initial: Int64 = 0) {
        self.value = Atomic(initial)
    }

    /// The newest committed position.
    public var current: Int64 { self.value.load(ordering: .acquiring) }

    /// Moves the position forward to `position` (never back: connections of several rooms threads advance it).
    func advance(to position: Int64) {
        var current = self.value.load(ordering: .relaxed)
        while current < position {
            let (exchanged, found) = self.value.compareExchange(
                expected: current, desired: position, ordering: .acquiringAndReleasing)
            if exchanged { return }
            current = found
        }
    }
}
