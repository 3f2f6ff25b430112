internal import CSQLite

/// One SQLite connection, used from one thread: statements prepared once and kept, errors as `SQLiteError`.
final class SQLiteDatabase {
    private var handle: OpaquePointer?
    private var cache: [String: SQLiteStatement] = [:]
    let path: String

    /// Opens (and with `create`, creates) the database file.
    ///
    /// - Parameters:
    ///   - path: the file.
    ///   - readOnly: open for reading only.
    ///   - busyTimeoutMilliseconds: how long a call waits for another connection's write lock.
    init(path: String, readOnly: Bool = false, busyTimeoutMilliseconds: Int32 = 5000) throws(SQLiteError) {
        self.path = path
        var handle: OpaquePointer?
        let flags =
            (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) | SQLITE_OPEN_NOMUTEX
        let result = sqlite3_open_v2(path, &handle, flags, nil)
        guard result == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(handle)
            throw SQLiteError(code: result, message: message, operation: "open \(path)")
        }
        self.handle = handle
        sqlite3_busy_timeout(handle, busyTimeoutMilliseconds)
        sqlite3_extended_result_codes(handle, 1)
    }

    deinit {
        for statement in self.cache.values { statement.finalize() }
        sqlite3_close_v2(self.handle)
    }

    /// Runs statements without results (several, separated by semicolons).
    func execute(_ sql: String) throws(SQLiteError) {
        var message: UnsafeMutablePointer<CChar>?
        let result = sqlite3_exec(self.handle, sql, nil, nil, &message)
        guard result == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? self.lastMessage
            sqlite3_free(message)
            throw SQLiteError(code: result, message: text, operation: String(sql.prefix(60)))
        }
    }

    /// The prepared statement for `sql`, reset and with its bindings cleared.
    func statement(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        if let cached = self.cache[sql] {
            cached.reset()
            return cached
        }
        var pointer: OpaquePointer?
        let result = sqlite3_prepare_v3(self.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &pointer, nil)
        guard result == SQLITE_OK, let pointer else {
            throw SQLiteError(code: result, message: self.lastMessage, operation: "prepare \(sql.prefix(60))")
        }
        let statement = SQLiteStatement(pointer, database: self)
        self.cache[sql] = statement
        return statement
    }

    /// The first column of the first row of a query, as an integer (nil when there is no row or it is NULL).
    func integer(_ sql: String, _ bindings: [SQLiteValue] = []) throws(SQLiteError) -> Int64? {
        let statement = try self.statement(sql)
        try statement.bind(bindings)
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        return statement.isNull(0) ? nil : statement.integer(0)
    }

    /// The first column of the first row of a query, as text.
    func text(_ sql: String) throws(SQLiteError) -> String? {
        let statement = try self.statement(sql)
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        return statement.isNull(0) ? nil : statement.text(0)
    }

    var lastMessage: String { String(cString: sqlite3_errmsg(self.handle)) }

    /// The row id of the last row inserted through this connection.
    var lastInsertedID: Int64 { sqlite3_last_insert_rowid(self.handle) }

    /// Rows changed by the last statement.
    var changes: Int { Int(sqlite3_changes(self.handle)) }

    /// Copies the whole database into another file with SQLite's online backup, while it stays in use.
    ///
    /// - Parameter path: the backup file (replaced).
    func backup(to path: String) throws(SQLiteError) {
        let target = try SQLiteDatabase(path: path)
        guard let backup = sqlite3_backup_init(target.handle, "main", self.handle, "main") else {
            throw SQLiteError(code: SQLITE_ERROR, message: target.lastMessage, operation: "backup to \(path)")
        }
        var result: Int32
        repeat {
            result = sqlite3_backup_step(backup, 256)
            if result == SQLITE_BUSY || result == SQLITE_LOCKED { sqlite3_sleep(10) }
        } while result == SQLITE_OK || result == SQLITE_BUSY || result == SQLITE_LOCKED
        sqlite3_backup_finish(backup)
        guard result == SQLITE_DONE else {
            throw SQLiteError(code: result, message: target.lastMessage, operation: "backup to \(path)")
        }
    }
}

@available(*, unavailable) extension SQLiteDatabase: Sendable {}
