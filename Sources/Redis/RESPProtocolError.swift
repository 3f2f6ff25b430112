/// Why a RESP reply was refused, and the byte offset (from the start of the value) where the parser found out.
///
/// A connection that reports one cannot be resynchronized and must be closed.
public struct RESPProtocolError: Error, Hashable, Sendable, CustomStringConvertible {
    enum Reason: Hashable, Sendable {
        case unknownType(UInt8)
        case bareLineFeed
        case missingLineFeed
        case invalidLength
        case invalidInteger
        case integerOutOfRange
        case invalidDouble
        case invalidBoolean
        case invalidNull
        case bulkNotTerminated
        case lineTooLong(limit: Int)
        case bulkTooLong(limit: Int)
        case tooManyElements(limit: Int)
        case nestingTooDeep(limit: Int)
    }

    let reason: Reason

    /// The offset of the first byte the parser could not accept, counted from the start of the value being read.
    public let offset: Int

    init(_ reason: Reason, at offset: Int) {
        self.reason = reason
        self.offset = offset
    }

    /// The category of the failure: `.malformed`, `.tooLarge` or `.tooDeep`.
    public var kind: Kind {
        switch self.reason {
        case .unknownType, .bareLineFeed, .missingLineFeed, .invalidLength, .invalidInteger, .integerOutOfRange,
            .invalidDouble, .invalidBoolean, .invalidNull, .bulkNotTerminated:
            return .malformed
        case .lineTooLong, .bulkTooLong, .tooManyElements:
            return .tooLarge
        case .nestingTooDeep:
            return .tooDeep
        }
    }

    /// A one-line explanation with the byte offset, for logs.
    public var description: String {
        "invalid RESP at byte \(self.offset): \(self.message)"
    }

    private var message: String {
        switch self.reason {
        case .unknownType(let byte): return "unknown type byte \(byte)"
        case .bareLineFeed: return "line feed without a carriage return"
        case .missingLineFeed: return "carriage return not followed by a line feed"
        case .invalidLength: return "invalid length, expected digits or -1"
        case .invalidInteger: return "invalid integer"
        case .integerOutOfRange: return "integer out of the 64-bit range"
        case .invalidDouble: return "invalid double"
        case .invalidBoolean: return "invalid boolean, expected t or f"
        case .invalidNull: return "null with content"
        case .bulkNotTerminated: return "bulk string not followed by CRLF at its declared length"
        case .lineTooLong(let limit): return "line longer than \(limit) bytes"
        case .bulkTooLong(let limit): return "bulk string longer than \(limit) bytes"
        case .tooManyElements(let limit): return "aggregate with more than \(limit) elements"
        case .nestingTooDeep(let limit): return "aggregates nested deeper than \(limit) levels"
        }
    }
}
