/// Several rooms threads on one store file: each thread's rooms are written through a connection of its own
/// (`forAnotherThread()`), in WAL mode on the same file, so one thread's reads and commits never wait for another
/// thread's reads; commits are serialised by the writer lock the connections share (`SQLiteWriterLock`), which keeps
/// the entries' row ids in commit order across threads, and every connection advances the same `committedPosition`.
extension SQLiteRoomStore {
    /// Opens another connection to this store's file for another rooms thread: its own buffer, commits and
    /// statistics, the same file, settings, commit position and writer lock. Call it on any thread before the other
    /// thread uses the result; from then on use the result on that thread only.
    ///
    /// A commit through it holds only that thread's writes: a failing commit on one thread leaves the others
    /// committing.
    ///
    /// - Returns: a store for the other thread.
    /// - Throws: `RoomStoreFailure` when the file cannot be opened again.
    public func forAnotherThread() throws(RoomStoreFailure) -> SQLiteRoomStore {
        let database: SQLiteDatabase
        do {
            database = try SQLiteDatabase(path: self.configuration.path)
            // The journal mode is the file's (set at open); the sync level belongs to each connection.
            try database.execute("PRAGMA synchronous = \(self.configuration.sync.rawValue.uppercased())")
        } catch {
            throw RoomStoreFailure("\(self.configuration.path): \(SQLiteSchema.explain(error))")
        }
        return SQLiteRoomStore(sibling: self, database: database)
    }
}
