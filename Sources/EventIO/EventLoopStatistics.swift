import Synchronization

/// Load counters of one event loop: written only by the loop's thread (relaxed atomics), read from anywhere.
public final class EventLoopStatistics: Sendable {
    private let iterationCount = Atomic<Int>(0)
    private let busyTime = Atomic<Int>(0)

    public init() {}

    /// Iterations of the loop (one per `epoll_wait` return).
    public var iterations: Int { self.iterationCount.load(ordering: .relaxed) }

    /// Time spent working (handling events, timers, tasks and flushes, not waiting in `epoll_wait`), in nanoseconds.
    public var busyNanoseconds: Int { self.busyTime.load(ordering: .relaxed) }

    func recordIteration(busyNanoseconds: UInt64) {
        self.iterationCount.wrappingAdd(1, ordering: .relaxed)
        self.busyTime.wrappingAdd(Int(truncatingIfNeeded: busyNanoseconds), ordering: .relaxed)
    }
}
