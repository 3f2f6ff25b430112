import JSONCoding
import Rooms

/// The embedded store of a single-process gateway: one SQLite file in WAL mode holding each room's log entries
/// (with the messages subscribers got), checkpoints, the rooms it knows and the webhooks' cursors.
///
/// Writes are buffered and go to the file in one transaction per `commit()` (group commit: the runtime commits
/// once per iteration of the rooms thread, before the output of that iteration goes out). Used from the rooms
/// thread only; another rooms thread gets a connection of its own to the same file (`forAnotherThread()`), and the
/// webhook deliveries read and write through one of their own (`SQLiteWebhookLog`).
public final class SQLiteRoomStore: RoomStore {
    private enum Pending {
        case entry(room: String, StoredLogEntry)
        case checkpoint(room: String, sequence: UInt64, body: [UInt8])
    }

    /// The settings the store was opened with.
    public let configuration: StorageConfiguration
    let database: SQLiteDatabase
    /// Serialises the commits of every connection of this file (one per rooms thread).
    let writer: SQLiteWriterLock
    private var pending: [Pending] = []
    /// The last sequence number and time buffered for each room since the last commit.
    private var touchedRooms: [String: (sequence: UInt64, time: Int64)] = [:]
    /// Called on the first write buffered after a commit, so the runner can make sure a commit follows.
    public var onFirstPendingWrite: (() -> Void)?
    /// The id of the newest committed entry (the order in which webhooks read the log); readable from any thread.
    public let committedPosition: CommitPosition
    /// Commits, failed commits, and entries written, for metrics.
    public internal(set) var statistics = StorageStatistics()
    /// The last entry and checkpoint (by row id) written before records carried checksums (a store upgraded from
    /// schema version 1): those are read without a check; 0 for a store created with checksums.
    let uncheckedEntriesThrough: Int64
    let uncheckedCheckpointsThrough: Int64

    /// Opens the store, creating the file when it is missing.
    ///
    /// - Parameter configuration: the file, sync level and retention.
    /// - Throws: `RoomStoreFailure` when the file cannot be created or written, is not a database, is damaged or
    ///   was written by a newer version.
    public init(configuration: StorageConfiguration) throws(RoomStoreFailure) {
        self.configuration = configuration
        self.database = try SQLiteSchema.open(path: configuration.path, sync: configuration.sync)
        self.writer = SQLiteWriterLock()
        self.committedPosition = CommitPosition()
        do {
            self.committedPosition.advance(to: try self.database.integer("SELECT MAX(id) FROM entries") ?? 0)
            let unchecked = "SELECT value FROM meta WHERE key = ?"
            self.uncheckedEntriesThrough =
                try self.database.integer(unchecked, [.text(SQLiteSchema.uncheckedEntriesKey)]) ?? 0
            self.uncheckedCheckpointsThrough =
                try self.database.integer(unchecked, [.text(SQLiteSchema.uncheckedCheckpointsKey)]) ?? 0
        } catch {
            throw RoomStoreFailure("\(configuration.path): \(SQLiteSchema.explain(error))")
        }
    }

    /// Another connection to the file of `sibling`, sharing its settings, commit position and writer lock.
    init(sibling: SQLiteRoomStore, database: SQLiteDatabase) {
        self.configuration = sibling.configuration
        self.database = database
        self.writer = sibling.writer
        self.committedPosition = sibling.committedPosition
        self.uncheckedEntriesThrough = sibling.uncheckedEntriesThrough
        self.uncheckedCheckpointsThrough = sibling.uncheckedCheckpointsThrough
    }

    /// Whether writes wait for the next commit.
    public var hasPendingWrites: Bool { !self.pending.isEmpty }

    public func append(_ entry: StoredLogEntry, room: String) {
        self.buffer(.entry(room: room, entry))
        self.touchedRooms[room] = (entry.entry.sequence, entry.entry.time)
    }

    public func writeCheckpoint(_ replica: RoomReplica) {
        let body = JSONWriter.bytes(replica.checkpoint)
        self.buffer(.checkpoint(room: replica.state.id, sequence: replica.state.sequence, body: body))
    }

    private func buffer(_ write: Pending) {
        let wasEmpty = self.pending.isEmpty
        self.pending.append(write)
        if wasEmpty { self.onFirstPendingWrite?() }
    }

    public func commit() throws(RoomStoreError) {
        guard !self.pending.isEmpty else { return }
        var lastID: Int64?
        // Counted once committed: a failed commit's writes are written again by the next one.
        var entries = 0
        var checkpoints = 0
        do throws(SQLiteError) {
            self.writer.lock()
            defer { self.writer.unlock() }
            try self.database.execute("BEGIN IMMEDIATE")
            do throws(SQLiteError) {
                let insertEntry = try self.database.statement(
                    "INSERT INTO entries (room, seq, time, class, event, entry, message, checksum, webhook_message) "
                        + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")
                let insertCheckpoint = try self.database.statement(
                    "INSERT OR REPLACE INTO checkpoints (room, seq, body, checksum) VALUES (?, ?, ?, ?)")
                for write in self.pending {
                    switch write {
                    case .entry(let room, let stored):
                        let entry = stored.entry
                        let sequence = Int64(entry.sequence)
                        let retentionClass = Int64(entry.retentionClass.rawValue)
                        let text = String(decoding: JSONWriter.bytes(entry.wireValue), as: UTF8.self)
                        let message = String(decoding: stored.message, as: UTF8.self)
                        let checksum = RecordChecksum.entry(
                            room: room, sequence: sequence, time: entry.time, retentionClass: retentionClass,
                            event: stored.eventName, entry: text, message: message)
                        try insertEntry.run([
                            .text(room), .integer(sequence), .integer(entry.time), .integer(retentionClass),
                            .text(stored.eventName), .text(text), .text(message), .integer(checksum),
                            stored.webhookMessage.map { .text(String(decoding: $0, as: UTF8.self)) } ?? .null,
                        ])
                        entries += 1
                        lastID = self.database.lastInsertedID
                    case .checkpoint(let room, let sequence, let body):
                        let text = String(decoding: body, as: UTF8.self)
                        let checksum = RecordChecksum.checkpoint(room: room, sequence: Int64(sequence), body: text)
                        try insertCheckpoint.run([
                            .text(room), .integer(Int64(sequence)), .text(text), .integer(checksum),
                        ])
                        checkpoints += 1
                    }
                }
                let upsertRoom = try self.database.statement(
                    "INSERT INTO rooms (room, seq, time) VALUES (?, ?, ?) "
                        + "ON CONFLICT (room) DO UPDATE SET seq = excluded.seq, time = excluded.time")
                for (room, last) in self.touchedRooms {
                    try upsertRoom.run([.text(room), .integer(Int64(last.sequence)), .integer(last.time)])
                }
                try self.database.execute("COMMIT")
                // Inside the lock: positions advance in commit order, whichever thread committed.
                if let lastID { self.committedPosition.advance(to: lastID) }
            } catch {
                try? self.database.execute("ROLLBACK")
                throw error
            }
        } catch {
            self.statistics.commitFailures += 1
            self.statistics.isFailing = true
            throw RoomStoreError("\(self.configuration.path): commit failed: \(SQLiteSchema.explain(error))")
        }
        self.pending.removeAll(keepingCapacity: true)
        self.touchedRooms.removeAll(keepingCapacity: true)
        self.statistics.commits += 1
        self.statistics.entriesWritten += entries
        self.statistics.checkpointsWritten += checkpoints
        self.statistics.isFailing = false
    }

    /// Copies the database into `path` with SQLite's online backup while the gateway keeps writing.
    ///
    /// - Parameter path: the backup file.
    /// - Throws: `RoomStoreFailure` when the copy fails.
    public func backup(to path: String) throws(RoomStoreFailure) {
        do {
            try self.database.backup(to: path)
        } catch {
            throw RoomStoreFailure("backup to \(path) failed: \(error)")
        }
    }
}

@available(*, unavailable) extension SQLiteRoomStore: Sendable {}
