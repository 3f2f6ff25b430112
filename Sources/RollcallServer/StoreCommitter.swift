import EventIO
import Rooms
import Storage

/// Group commit for the embedded store: what the rooms thread wrote during one iteration of its loop goes to the
/// store in one transaction at the end of that iteration, before the iteration's output is handed to the
/// connection loops (`LoopTransport` calls `commit()` first) and before HTTP answers that acknowledge a change
/// (`whenCommitted`).
///
/// A commit that fails (disk full, I/O error) keeps its writes, and `commit()` answers false so that the transport
/// holds the iteration's output back; the HTTP answers keep waiting. From then on only a retry tries again, after
/// 50 ms and then at doubling intervals up to a second, and `onAvailabilityChange` has said that the store cannot
/// commit (the runtime refuses requests and `/readyz` answers 503). The first commit that succeeds says so again,
/// and what was held goes out.
final class StoreCommitter: EventLoopFlushable {
    let store: SQLiteRoomStore
    private let loop: EventLoop
    private let logger: GatewayLogger
    private var isScheduled = false
    /// Work that waits for the current writes to be committed.
    private var waiting: [() -> Void] = []
    /// Whether the last commit failed: until one succeeds, only the retry timer tries again.
    private(set) var isFailing = false
    private var retryDelayNanoseconds: UInt64 = 0
    /// When the commits started failing (monotonic nanoseconds), for the log line when they succeed again.
    private var failingSince: UInt64 = 0
    /// Told on the gateway's thread with false when commits start failing, and with true when one succeeds again.
    var onAvailabilityChange: ((Bool) -> Void)?
    /// Told on the gateway's thread after a commit that wrote log entries (the webhooks are told of them).
    var onEntriesCommitted: (() -> Void)?

    /// The first retry after a failed commit, and the longest wait between two retries.
    static let firstRetryNanoseconds: UInt64 = 50_000_000
    static let longestRetryNanoseconds: UInt64 = 1_000_000_000

    /// - Parameters:
    ///   - store: the store the gateway writes to.
    ///   - loop: the gateway's loop.
    ///   - logger: where commit failures go.
    init(store: SQLiteRoomStore, loop: EventLoop, logger: GatewayLogger) {
        self.store = store
        self.loop = loop
        self.logger = logger
        store.onFirstPendingWrite = { [unowned self] in self.schedule() }
    }

    private func schedule() {
        guard !self.isScheduled else { return }
        self.isScheduled = true
        self.loop.scheduleFlush(self)
    }

    func flush() {
        self.isScheduled = false
        self.commit()
    }

    /// Commits what is buffered, then runs the work that waited for it.
    ///
    /// - Returns: whether everything written so far is committed; false while the store cannot commit, when the
    ///   output that reports those writes must wait.
    @discardableResult
    func commit() -> Bool {
        guard !self.isFailing else { return false }
        return self.tryCommit()
    }

    /// The last commit, once the gateway's loop has stopped: tried whatever the retry schedule says. When it fails,
    /// what waited for it is lost (none of it was acknowledged), and the log says so.
    func commitAtStop() {
        guard !self.tryCommit() else { return }
        self.logger.log(
            .error, "store commit failed at stop; the changes that waited for it are lost",
            [("path", self.store.configuration.path)])
    }

    private func tryCommit() -> Bool {
        if self.store.hasPendingWrites {
            let entriesBefore = self.store.statistics.entriesWritten
            do {
                try self.store.commit()
                if self.store.statistics.entriesWritten != entriesBefore { self.onEntriesCommitted?() }
            } catch {
                if self.isFailing {
                    self.retryDelayNanoseconds = min(2 * self.retryDelayNanoseconds, Self.longestRetryNanoseconds)
                } else {
                    self.isFailing = true
                    self.failingSince = EventLoop.monotonicNow()
                    self.retryDelayNanoseconds = Self.firstRetryNanoseconds
                    self.logger.log(.error, "store commit failed", [("error", error.description)])
                    self.onAvailabilityChange?(false)
                }
                self.loop.scheduleTimer(afterNanoseconds: self.retryDelayNanoseconds) { [weak self] in
                    _ = self?.tryCommit()
                }
                return false
            }
        }
        if self.isFailing {
            self.isFailing = false
            let failedFor = (EventLoop.monotonicNow() &- self.failingSince) / 1_000_000
            self.logger.log(
                .info, "store commits again",
                [("path", self.store.configuration.path), ("failed_ms", String(failedFor))])
            self.onAvailabilityChange?(true)
        }
        guard !self.waiting.isEmpty else { return true }
        let waiting = self.waiting
        self.waiting = []
        for work in waiting { work() }
        return true
    }

    /// Runs `work` once what was written so far is committed: at once when nothing waits, else at the end of this
    /// iteration of the gateway's loop, or once the store commits again.
    func whenCommitted(_ work: @escaping () -> Void) {
        guard self.store.hasPendingWrites else {
            work()
            return
        }
        self.waiting.append(work)
        self.schedule()
    }
}
