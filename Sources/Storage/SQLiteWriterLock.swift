import Synchronization

/// One lock over a store file's writer, shared by the connections that rooms threads commit through: SQLite lets
/// one transaction write at a time, and a connection that finds the file's write lock taken would otherwise wait in
/// SQLite's busy handler, which sleeps and polls. With this lock the second committer waits on a futex and writes as
/// soon as the first has committed, so commits from several threads follow each other in the order they came and
/// the entries' row ids stay in commit order (the order webhooks read).
final class SQLiteWriterLock: Sendable {
    private let mutex = Mutex<Void>(())

    /// Runs `body` while no other connection sharing this lock writes.
    func serialised<Result>(_ body: () throws(SQLiteError) -> Result) throws(SQLiteError) -> Result {
        try self.mutex.withLock { _ throws(SQLiteError) -> Result in try body() }
    }
}
