import EventIO
import Rooms
import Storage

/// Group commit for the embedded store: what the rooms thread wrote during one iteration of its loop goes to the
/// store in one transaction at the end of that iteration, before the iteration's output is handed to the
/// connection loops (`LoopTransport` calls `commit()` first) and before HTTP answers that acknowledge a change
/// (`whenCommitted`).
final class StoreCommitter: EventLoopFlushable {
    let store: SQLiteRoomStore
    private let loop: EventLoop
    private let logger: GatewayLogger
    private var isScheduled = false
    /// Work that waits for the current writes to be committed.
    private var waiting: [() -> Void] = []
    /// Whether the last commit failed (logged once until one succeeds again).
    private var isFailing = false

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

    /// Commits what is buffered, then runs the work that waited for it. A failed commit is logged and its writes
    /// are kept for the next try (the next iteration that writes, or the retry a second later); the output still
    /// goes out, so a full or broken disk stops durability, not the calls.
    func commit() {
        if self.store.hasPendingWrites {
            do {
                try self.store.commit()
                if self.isFailing {
                    self.isFailing = false
                    self.logger.log(.info, "store commits again", [("path", self.store.configuration.path)])
                }
            } catch {
                if !self.isFailing {
                    self.isFailing = true
                    self.logger.log(.error, "store commit failed", [("error", error.description)])
                }
                self.loop.scheduleTimer(afterNanoseconds: 1_000_000_000) { [weak self] in self?.commit() }
            }
        }
        guard !self.waiting.isEmpty else { return }
        let waiting = self.waiting
        self.waiting = []
        for work in waiting { work() }
    }

    /// Runs `work` once what was written so far is committed: at once when nothing waits, else at the end of this
    /// iteration of the gateway's loop.
    func whenCommitted(_ work: @escaping () -> Void) {
        guard self.store.hasPendingWrites else {
            work()
            return
        }
        self.waiting.append(work)
        self.schedule()
    }
}
