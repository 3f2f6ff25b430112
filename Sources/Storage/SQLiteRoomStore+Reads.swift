import JSONCoding
import Rooms

/// Reading rooms back, and the history, audit and room listings beyond memory. Every entry and checkpoint read is
/// checked against its checksum first: a damaged record fails the read (the gateway answers `ERR_UNAVAILABLE`),
/// it is never served as other data or left out.
extension SQLiteRoomStore {
    /// Limits for reading back what the gateway wrote itself.
    static let storedLimits = JSONParser.Limits(
        maxInputBytes: 1 << 24, maxDepth: 64, maxStringBytes: 1 << 20, maxElementsPerContainer: 1 << 20,
        maxTotalNodes: 1 << 22
    )

    public func loadRoom(_ room: String, maximumEntries: Int) throws(RoomStoreError) -> StoredRoom? {
        do {
            guard let last = try self.database.integer("SELECT seq FROM rooms WHERE room = ?", [.text(room)]) else {
                return nil
            }
            // The contiguous run of entries that ends at the room's last one, within the bound (and one
            // checkpoint interval more, to reach back to a checkpoint).
            let floor = max(0, last - Int64(maximumEntries) - 1)
            let select = try self.database.statement(
                "SELECT \(Self.entryColumns) FROM entries WHERE room = ? AND seq > ? ORDER BY seq")
            try select.bind([.text(room), .integer(floor)])
            defer { select.reset() }
            var entries: [StoredLogEntry] = []
            while try select.step() {
                let stored = try self.verifiedEntry(select).entry
                let sequence = stored.entry.sequence
                if let previous = entries.last?.entry.sequence, sequence != previous + 1 { entries.removeAll() }
                entries.append(stored)
            }
            guard entries.last.map({ Int64($0.entry.sequence) == last }) ?? true else {
                throw RoomStoreFailure("room '\(room)': its last entries (through \(last)) are missing")
            }
            let start = entries.first.map { Int64($0.entry.sequence) } ?? last + 1
            // The oldest checkpoint the contiguous entries reach back to; else the newest one.
            var checkpoint = try self.checkpoint(
                "SELECT rowid, seq, body, checksum FROM checkpoints WHERE room = ? AND seq >= ? ORDER BY seq LIMIT 1",
                room: room, [.integer(start - 1)])
            if checkpoint == nil && start > 1 {
                checkpoint = try self.checkpoint(
                    "SELECT rowid, seq, body, checksum FROM checkpoints WHERE room = ? ORDER BY seq DESC LIMIT 1",
                    room: room, [])
            }
            let base = checkpoint.map { Int64($0.state.sequence) } ?? 0
            guard base >= start - 1 else {
                throw RoomStoreFailure("room '\(room)': no checkpoint covers sequence \(start - 1)")
            }
            return StoredRoom(checkpoint: checkpoint, entries: entries.filter { Int64($0.entry.sequence) > base })
        } catch let error as SQLiteError {
            throw RoomStoreError("\(self.configuration.path): room '\(room)': \(SQLiteSchema.explain(error))")
        } catch {
            throw RoomStoreError("\(self.configuration.path): room '\(room)' cannot be read: \(error)")
        }
    }

    public func checkpoint(room: String, atOrBefore sequence: UInt64) throws(RoomStoreError) -> RoomReplica? {
        do {
            return try self.checkpoint(
                "SELECT rowid, seq, body, checksum FROM checkpoints WHERE room = ? AND seq <= ? ORDER BY seq DESC LIMIT 1",
                room: room, [.integer(Int64(min(sequence, UInt64(Int64.max))))])
        } catch let error as SQLiteError {
            throw RoomStoreError("\(self.configuration.path): checkpoint of '\(room)': \(SQLiteSchema.explain(error))")
        } catch {
            throw RoomStoreError("\(self.configuration.path): checkpoint of '\(room)' cannot be read: \(error)")
        }
    }

    /// The checkpoint a query (columns rowid, seq, body, checksum; the room as its first parameter) finds, once
    /// its checksum matches.
    private func checkpoint(_ sql: String, room: String, _ bindings: [SQLiteValue]) throws -> RoomReplica? {
        let statement = try self.database.statement(sql)
        try statement.bind([.text(room)] + bindings)
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        let sequence = statement.integer(1)
        var checksum = RecordChecksum()
        checksum.add(room)
        checksum.add(sequence)
        statement.withBytes(2) { checksum.add(bytes: $0) }
        try Self.verify(
            checksum.value, statement, column: 3, rowID: statement.integer(0),
            uncheckedThrough: self.uncheckedCheckpointsThrough,
            record: "the checkpoint at \(sequence) of room '\(room)'")
        return try RoomReplica(checkpoint: try JSONParser.parse(statement.text(2), limits: Self.storedLimits))
    }

    public func history(
        room: String, after: UInt64, eventNames: Set<String>?, limit: Int
    ) throws(RoomStoreError) -> [StoredLogEntry] {
        do {
            var sql = "SELECT \(Self.entryColumns) FROM entries WHERE room = ? AND seq > ?"
            var bindings: [SQLiteValue] = [.text(room), .integer(Int64(min(after, UInt64(Int64.max))))]
            if let names = eventNames?.sorted() {
                sql += " AND event IN (" + names.map { _ in "?" }.joined(separator: ",") + ")"
                bindings += names.map { .text($0) }
            }
            sql += " ORDER BY seq LIMIT ?"
            bindings.append(.integer(Int64(limit)))
            return try self.entries(sql, bindings).map(\.entry)
        } catch {
            throw RoomStoreError("\(self.configuration.path): history of '\(room)': \(error)")
        }
    }

    public func audit(
        room: String?, before: Int64?, limit: Int
    ) throws(RoomStoreError) -> [(room: String, entry: StoredLogEntry)] {
        do {
            let moderation = Int64(RetentionClass.moderation.rawValue)
            var sql = "SELECT \(Self.entryColumns) FROM entries WHERE class = ? AND time < ?"
            var bindings: [SQLiteValue] = [.integer(moderation), .integer(before ?? Int64.max)]
            if let room {
                sql += " AND room = ?"
                bindings.append(.text(room))
            }
            sql += " ORDER BY time DESC, id DESC LIMIT ?"
            bindings.append(.integer(Int64(limit)))
            return try self.entries(sql, bindings)
        } catch {
            throw RoomStoreError("\(self.configuration.path): audit log: \(error)")
        }
    }

    public func rooms(after: String?, limit: Int) throws(RoomStoreError) -> [(room: String, sequence: UInt64)] {
        do {
            let statement = try self.database.statement(
                "SELECT room, seq FROM rooms WHERE room > ? ORDER BY room LIMIT ?")
            try statement.bind([.text(after ?? ""), .integer(Int64(limit))])
            defer { statement.reset() }
            var rooms: [(room: String, sequence: UInt64)] = []
            while try statement.step() { rooms.append((statement.text(0), UInt64(statement.integer(1)))) }
            return rooms
        } catch {
            throw RoomStoreError("\(self.configuration.path): rooms: \(error)")
        }
    }

    /// The columns `verifiedEntry` reads, in its order.
    static let entryColumns = "id, room, seq, time, class, event, entry, message, checksum"

    /// Entries from a query whose columns are `entryColumns`.
    private func entries(_ sql: String, _ bindings: [SQLiteValue]) throws -> [(room: String, entry: StoredLogEntry)] {
        let statement = try self.database.statement(sql)
        try statement.bind(bindings)
        defer { statement.reset() }
        var found: [(room: String, entry: StoredLogEntry)] = []
        while try statement.step() { found.append(try self.verifiedEntry(statement)) }
        return found
    }

    /// The entry of the row a statement is on (columns `entryColumns`), once its checksum matches its bytes.
    private func verifiedEntry(_ statement: SQLiteStatement) throws -> (room: String, entry: StoredLogEntry) {
        let room = statement.text(1)
        let sequence = statement.integer(2)
        var checksum = RecordChecksum()
        statement.withBytes(1) { checksum.add(bytes: $0) }
        checksum.add(sequence)
        checksum.add(statement.integer(3))
        checksum.add(statement.integer(4))
        for column: Int32 in 5...7 { statement.withBytes(column) { checksum.add(bytes: $0) } }
        let record = "entry \(sequence) of room '\(room)'"
        try Self.verify(
            checksum.value, statement, column: 8, rowID: statement.integer(0),
            uncheckedThrough: self.uncheckedEntriesThrough, record: record)
        let entry = try RoomLogEntry(wireValue: try JSONParser.parse(statement.text(6), limits: Self.storedLimits))
        guard entry.sequence == UInt64(sequence) else {
            throw RoomStoreFailure("\(record) holds sequence number \(entry.sequence)")
        }
        return (room, StoredLogEntry(entry: entry, eventName: statement.text(5), message: statement.bytes(7)))
    }

    /// Throws unless a record's stored checksum (at `column`) is `computed`; a record without one passes only when
    /// it was written before records carried checksums (its row id at most `uncheckedThrough`).
    private static func verify(
        _ computed: Int64, _ statement: SQLiteStatement, column: Int32, rowID: Int64, uncheckedThrough: Int64,
        record: String
    ) throws(RoomStoreFailure) {
        if statement.isNull(column) {
            guard rowID <= uncheckedThrough else {
                throw RoomStoreFailure("\(record) is damaged (its checksum is missing); restore a backup")
            }
        } else if statement.integer(column) != computed {
            throw RoomStoreFailure("\(record) is damaged (its checksum does not match); restore a backup")
        }
    }
}
