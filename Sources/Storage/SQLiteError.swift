/// A failed SQLite call: the result code, SQLite's message and what was being done.
public struct SQLiteError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Kind: Hashable, Sendable {
        case call(code: Int32, message: String)
    }

    private let kind: Kind
    /// What the store was doing, e.g. `open` or `commit`.
    public let operation: String

    init(code: Int32, message: String, operation: String) {
        self.kind = .call(code: code, message: message)
        self.operation = operation
    }

    /// SQLite's primary result code (`SQLITE_CORRUPT`, `SQLITE_NOTADB`, ...).
    public var code: Int32 {
        switch self.kind {
        case .call(let code, _): return code & 0xFF
        }
    }

    public var description: String {
        switch self.kind {
        case .call(let code, let message): return "\(self.operation): \(message) (SQLite code \(code))"
        }
    }
}
