#if canImport(Glibc)
import Glibc
#endif

/// One lock over a store file's writer, shared by the connections that rooms threads commit through: SQLite lets
/// one transaction write at a time, and a connection that finds the file's write lock taken would otherwise wait in
/// SQLite's busy handler, which sleeps and polls. With this lock the second committer waits on a futex and writes as
/// soon as the first has committed, so the entries' row ids stay in commit order (the order webhooks read) and the
/// commit position advances in that order.
final class SQLiteWriterLock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    init() {
        self.mutex = .allocate(capacity: 1)
        self.mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(self.mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(self.mutex)
        self.mutex.deallocate()
    }

    /// Waits until no other connection sharing this lock writes; pair with `unlock()` on the same thread.
    func lock() {
        pthread_mutex_lock(self.mutex)
    }

    /// Lets the next connection write.
    func unlock() {
        pthread_mutex_unlock(self.mutex)
    }
}
