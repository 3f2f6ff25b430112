internal import CWebSocket
import Synchronization

#if canImport(Glibc)
internal import Glibc
#endif

/// Readiness reported by epoll for one descriptor.
public struct EventSet: OptionSet, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let readable = EventSet(rawValue: EPOLLIN.rawValue)
    public static let writable = EventSet(rawValue: EPOLLOUT.rawValue)
    public static let readHangup = EventSet(rawValue: EPOLLRDHUP.rawValue)
    public static let hangup = EventSet(rawValue: EPOLLHUP.rawValue)
    public static let error = EventSet(rawValue: EPOLLERR.rawValue)
}

/// Something registered with an event loop for a descriptor.
public protocol EventLoopHandler: AnyObject {
    /// Called on the loop's thread when the descriptor is ready.
    ///
    /// - Parameter events: what the descriptor is ready for.
    func handleEvents(_ events: EventSet)
}

/// Something with output to write at the end of the current loop iteration (writes are batched there).
public protocol EventLoopFlushable: AnyObject {
    /// Called once at the end of the iteration in which `EventLoop.scheduleFlush` was called.
    func flush()
}

/// An identifier for a scheduled timer, for cancelling it.
public struct TimerID: Hashable, Sendable {
    let value: UInt64
}

/// One thread's epoll loop.
///
/// Everything registered with a loop is touched only on that loop's thread, so the per-message path takes no lock.
/// Other threads hand it work through `execute`, a lock-free queue (`TaskQueue`); the first task since the loop last
/// looked wakes it through an eventfd, the ones after it ride along. Each registration gets a
/// generation number packed next to the descriptor in the epoll data, so an event for a descriptor that was closed
/// and reused in the same iteration is dropped instead of reaching the new owner.
public final class EventLoop {
    private struct Registration {
        var generation: UInt32
        var handler: any EventLoopHandler
    }

    private struct TimerEntry: Comparable {
        var deadline: UInt64
        var id: UInt64
        static func < (lhs: TimerEntry, rhs: TimerEntry) -> Bool {
            (lhs.deadline, lhs.id) < (rhs.deadline, rhs.id)
        }
    }

    /// The loop's position among the server's loops.
    public let index: Int
    private let epollFD: Int32
    private let wakeFD: Int32
    private var registrations: [Registration?] = []
    private var nextGeneration: UInt32 = 1
    private let pendingTasks = TaskQueue()
    /// Set by the first `execute` after the loop last looked at its tasks: that one writes the eventfd, the others
    /// need not (the loop is awake or about to be).
    private let wakeRequested = Atomic<Bool>(false)
    /// Whether tasks may be left after the last look (too many for one iteration, or one was being linked in).
    private var tasksMayRemain = false
    /// The most tasks run in one iteration, so a flood of work from other threads cannot starve the sockets.
    private static let maximumTasksPerIteration = 4096
    private var timerHeap: [TimerEntry] = []
    private var timerCallbacks: [UInt64: () -> Void] = [:]
    private var nextTimerID: UInt64 = 1
    private var flushQueue: [any EventLoopFlushable] = []
    private var isRunning = true
    private let threadID = Atomic<UInt>(0)

    /// Iterations and busy time, for metrics.
    public let statistics: EventLoopStatistics

    /// The monotonic clock in nanoseconds, read once per loop iteration.
    public private(set) var now: UInt64

    /// Scratch space shared by everything on this loop for reads: a connection copies out only the bytes of a
    /// partial frame, so idle connections hold no receive buffer.
    public let receiveBuffer: UnsafeMutableRawBufferPointer

    /// A second scratch buffer (for example for TLS plaintext).
    public let scratchBuffer: UnsafeMutableRawBufferPointer

    /// - Parameters:
    ///   - index: the loop's position among the server's loops.
    ///   - receiveBufferSize: the size of the shared read buffer.
    ///   - statistics: where the loop counts its iterations and busy time.
    public init(
        index: Int = 0,
        receiveBufferSize: Int = 64 * 1024,
        statistics: EventLoopStatistics = EventLoopStatistics()
    ) throws(IOError) {
        self.index = index
        self.statistics = statistics
        self.epollFD = try blockingSystemCall("epoll_create1") { epoll_create1(Int32(EPOLL_CLOEXEC)) }
        do {
            self.wakeFD = try blockingSystemCall("eventfd") {
                eventfd(0, Int32(EFD_NONBLOCK) | Int32(EFD_CLOEXEC))
            }
        } catch {
            Glibc.close(self.epollFD)
            throw error
        }
        self.now = Self.monotonicNow()
        self.receiveBuffer = .allocate(byteCount: receiveBufferSize, alignment: 16)
        self.scratchBuffer = .allocate(byteCount: receiveBufferSize, alignment: 16)
        var event = epoll_event()
        event.events = EPOLLIN.rawValue
        event.data.u64 = UInt64(UInt32(bitPattern: self.wakeFD))
        _ = epoll_ctl(self.epollFD, EPOLL_CTL_ADD, self.wakeFD, &event)
    }

    deinit {
        Glibc.close(self.wakeFD)
        Glibc.close(self.epollFD)
        self.receiveBuffer.deallocate()
        self.scratchBuffer.deallocate()
    }

    /// The monotonic clock in nanoseconds.
    public static func monotonicNow() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }

    /// Whether the caller runs on this loop's thread.
    public var inEventLoop: Bool { self.threadID.load(ordering: .relaxed) == UInt(pthread_self()) }

    // MARK: Registration

    /// Starts watching `fd` for `events` (edge-triggered is not used: level-triggered keeps handlers simple).
    ///
    /// - Parameters:
    ///   - fd: the descriptor.
    ///   - events: what to watch for.
    ///   - handler: who is told; the loop keeps it alive until `deregister`.
    public func register(_ fd: Int32, for events: EventSet, handler: any EventLoopHandler) throws(IOError) {
        let index = Int(fd)
        if index >= self.registrations.count {
            // Grown by an eighth (at least 1,024 slots), not doubled: one slot per descriptor is held for the
            // loop's life, and doubling would leave up to half of them unused.
            let count = max(index + 1, self.registrations.count + max(1024, self.registrations.count / 8))
            self.registrations.reserveCapacity(count)
            self.registrations.append(contentsOf: repeatElement(nil, count: count - self.registrations.count))
        }
        let generation = self.nextGeneration
        self.nextGeneration = self.nextGeneration &+ 1 == 0 ? 1 : self.nextGeneration &+ 1
        self.registrations[index] = Registration(generation: generation, handler: handler)
        var event = epoll_event()
        event.events = events.rawValue
        event.data.u64 = UInt64(generation) << 32 | UInt64(UInt32(bitPattern: fd))
        do {
            try blockingSystemCall("epoll_ctl") { epoll_ctl(self.epollFD, EPOLL_CTL_ADD, fd, &event) }
        } catch {
            self.registrations[index] = nil
            throw error
        }
    }

    /// Changes what `fd` is watched for.
    public func modify(_ fd: Int32, for events: EventSet) {
        guard let registration = self.registrations[Int(fd)] else { return }
        var event = epoll_event()
        event.events = events.rawValue
        event.data.u64 = UInt64(registration.generation) << 32 | UInt64(UInt32(bitPattern: fd))
        _ = epoll_ctl(self.epollFD, EPOLL_CTL_MOD, fd, &event)
    }

    /// Stops watching `fd` and drops the loop's reference to its handler. Call before closing the descriptor.
    public func deregister(_ fd: Int32) {
        guard Int(fd) < self.registrations.count, self.registrations[Int(fd)] != nil else { return }
        self.registrations[Int(fd)] = nil
        _ = epoll_ctl(self.epollFD, EPOLL_CTL_DEL, fd, nil)
    }

    // MARK: Work from other threads, timers, flushes

    /// Runs `task` on the loop's thread soon. Safe to call from any thread.
    public func execute(_ task: @escaping () -> Void) {
        // Lock-free: linking the task in is an atomic exchange and a store. Only the first task since the loop last
        // looked wakes it; the exchange pairs with the loop's, so the loop either sees the task or gets the wake-up.
        self.pendingTasks.push(task)
        if !self.wakeRequested.exchange(true, ordering: .acquiringAndReleasing) {
            var one: UInt64 = 1
            _ = Glibc.write(self.wakeFD, &one, 8)
        }
    }

    /// Runs `callback` on the loop's thread after `delay` nanoseconds. Call on the loop's thread.
    @discardableResult
    public func scheduleTimer(afterNanoseconds delay: UInt64, _ callback: @escaping () -> Void) -> TimerID {
        let id = self.nextTimerID
        self.nextTimerID += 1
        self.timerCallbacks[id] = callback
        self.pushTimer(TimerEntry(deadline: Self.monotonicNow() &+ delay, id: id))
        return TimerID(value: id)
    }

    /// Cancels a timer that has not fired yet.
    public func cancelTimer(_ id: TimerID) {
        self.timerCallbacks[id.value] = nil
    }

    /// Asks for `target.flush()` at the end of this iteration. The caller avoids scheduling twice.
    @inline(__always)
    public func scheduleFlush(_ target: any EventLoopFlushable) {
        self.flushQueue.append(target)
    }

    /// Ends `run` after the current iteration. Safe to call from any thread.
    public func stop() {
        self.execute { [unowned self] in self.isRunning = false }
    }

    // MARK: Running

    /// Runs the loop on the calling thread until `stop`.
    public func run() {
        self.threadID.store(UInt(pthread_self()), ordering: .relaxed)
        let capacity = 512
        let events = UnsafeMutablePointer<epoll_event>.allocate(capacity: capacity)
        defer { events.deallocate() }
        while self.isRunning {
            let timeout = self.nextTimeoutMilliseconds()
            let count = epoll_wait(self.epollFD, events, Int32(capacity), timeout)
            self.now = Self.monotonicNow()
            if count > 0 {
                for index in 0..<Int(count) {
                    let data = events[index].data.u64
                    let fd = Int32(bitPattern: UInt32(truncatingIfNeeded: data))
                    if fd == self.wakeFD {
                        var value: UInt64 = 0
                        _ = Glibc.read(self.wakeFD, &value, 8)
                        continue
                    }
                    // Drop events whose registration was replaced or removed earlier in this batch.
                    guard Int(fd) < self.registrations.count,
                        let registration = self.registrations[Int(fd)],
                        registration.generation == UInt32(truncatingIfNeeded: data >> 32)
                    else { continue }
                    registration.handler.handleEvents(EventSet(rawValue: events[index].events))
                }
            }
            self.runExpiredTimers()
            self.runPendingTasks()
            self.runFlushes()
            self.statistics.recordIteration(busyNanoseconds: Self.monotonicNow() &- self.now)
        }
        self.runFlushes()
    }

    private func runFlushes() {
        var index = 0
        // Flushing may schedule further flushes (a close after a write): drain until empty.
        while index < self.flushQueue.count {
            self.flushQueue[index].flush()
            index += 1
        }
        self.flushQueue.removeAll(keepingCapacity: true)
    }

    private func runPendingTasks() {
        // Reset before looking, so a task linked in after the look wakes the loop again.
        guard self.wakeRequested.exchange(false, ordering: .acquiringAndReleasing) || self.tasksMayRemain else {
            return
        }
        self.tasksMayRemain = false
        for _ in 0..<Self.maximumTasksPerIteration {
            switch self.pendingTasks.pop() {
            case .task(let task):
                task()
            case .empty:
                return
            case .inconsistent:
                self.tasksMayRemain = true
                return
            }
        }
        self.tasksMayRemain = true
    }

    private func nextTimeoutMilliseconds() -> Int32 {
        if self.tasksMayRemain || !self.flushQueue.isEmpty { return 0 }
        guard let first = self.timerHeap.first else { return -1 }
        let now = Self.monotonicNow()
        if first.deadline <= now { return 0 }
        return Int32(min((first.deadline - now + 999_999) / 1_000_000, 60_000))
    }

    private func runExpiredTimers() {
        while let first = self.timerHeap.first, first.deadline <= self.now {
            self.popTimer()
            if let callback = self.timerCallbacks.removeValue(forKey: first.id) {
                callback()
            }
        }
    }

    private func pushTimer(_ entry: TimerEntry) {
        self.timerHeap.append(entry)
        var child = self.timerHeap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard self.timerHeap[child] < self.timerHeap[parent] else { break }
            self.timerHeap.swapAt(child, parent)
            child = parent
        }
    }

    private func popTimer() {
        let last = self.timerHeap.removeLast()
        guard !self.timerHeap.isEmpty else { return }
        self.timerHeap[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < self.timerHeap.count && self.timerHeap[left] < self.timerHeap[smallest] { smallest = left }
            if right < self.timerHeap.count && self.timerHeap[right] < self.timerHeap[smallest] { smallest = right }
            if smallest == parent { break }
            self.timerHeap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}

@available(*, unavailable)
extension EventLoop: Sendable {}
