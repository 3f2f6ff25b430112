internal import CSQLite

/// A prepared statement of one `SQLiteDatabase`: bind, step, read columns.
final class SQLiteStatement {
    private let pointer: OpaquePointer
    private unowned let database: SQLiteDatabase

    init(_ pointer: OpaquePointer, database: SQLiteDatabase) {
        self.pointer = pointer
        self.database = database
    }

    func finalize() {
        sqlite3_finalize(self.pointer)
    }

    func reset() {
        sqlite3_reset(self.pointer)
        sqlite3_clear_bindings(self.pointer)
    }

    /// Binds the values to parameters 1, 2, ...
    func bind(_ values: [SQLiteValue]) throws(SQLiteError) {
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let result: Int32
            switch value {
            case .integer(let number): result = sqlite3_bind_int64(self.pointer, index, number)
            case .null: result = sqlite3_bind_null(self.pointer, index)
            case .text(let text):
                var text = text
                result = text.withUTF8 { bytes in
                    UnsafeRawBufferPointer(bytes).withMemoryRebound(to: CChar.self) { characters in
                        // SQLite reads nothing through the pointer of an empty text, but it must not be NULL.
                        characters.isEmpty
                            ? CSQLite_bind_text_transient(self.pointer, index, "", 0)
                            : CSQLite_bind_text_transient(
                                self.pointer, index, characters.baseAddress, Int32(characters.count))
                    }
                }
            case .blob(let bytes):
                result = bytes.withUnsafeBytes {
                    CSQLite_bind_blob_transient(
                        self.pointer, index, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32($0.count))
                }
            }
            guard result == SQLITE_OK else {
                throw SQLiteError(code: result, message: self.database.lastMessage, operation: "bind")
            }
        }
    }

    /// Runs the statement to its next row: true when a row is there to read, false when it is done.
    @discardableResult
    func step() throws(SQLiteError) -> Bool {
        let result = sqlite3_step(self.pointer)
        switch result {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let message = self.database.lastMessage
            sqlite3_reset(self.pointer)
            throw SQLiteError(code: result, message: message, operation: "step")
        }
    }

    /// Binds, runs to completion, and resets.
    func run(_ values: [SQLiteValue]) throws(SQLiteError) {
        try self.bind(values)
        while try self.step() {}
        self.reset()
    }

    var columnCount: Int32 { sqlite3_column_count(self.pointer) }

    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(self.pointer, column) == SQLITE_NULL }

    func integer(_ column: Int32) -> Int64 { sqlite3_column_int64(self.pointer, column) }

    func text(_ column: Int32) -> String {
        guard let bytes = sqlite3_column_text(self.pointer, column) else { return "" }
        let count = Int(sqlite3_column_bytes(self.pointer, column))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    /// Runs `body` with a column's bytes as SQLite holds them, without a copy (valid during the call only).
    func withBytes<Result>(_ column: Int32, _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        let pointer = sqlite3_column_blob(self.pointer, column)
        let count = Int(sqlite3_column_bytes(self.pointer, column))
        return body(UnsafeRawBufferPointer(start: count > 0 ? pointer : nil, count: count))
    }

    func bytes(_ column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(self.pointer, column))
        guard count > 0, let pointer = sqlite3_column_blob(self.pointer, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }
}

@available(*, unavailable) extension SQLiteStatement: Sendable {}
