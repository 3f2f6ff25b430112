/// Reads RESP replies incrementally: the caller keeps the received bytes, the parser remembers how far it has read
/// into the current value and what it has built of it so far, so every byte is looked at once.
///
/// Everything is bounded before it is trusted: a declared bulk string length or element count over the limits is
/// refused as soon as its header line ends, before any of the body is waited for; lines are bounded; aggregates
/// are tracked on an explicit stack, never by recursion, and their nesting is bounded.
public struct RESPParser: Sendable {
    /// The outcome of feeding the bytes received so far.
    public enum Result: Hashable, Sendable {
        /// The value is not complete yet; call again with the same bytes and more behind them.
        case incomplete
        /// A complete value, which took the first `consumed` bytes; drop them before the next call, which reads the
        /// next value.
        case value(RESPValue, consumed: Int)
        /// The bytes are malformed or over a limit; the connection cannot recover and must be closed. Every later
        /// call reports the same failure.
        case failure(RESPProtocolError)
    }

    private enum Step {
        case incomplete
        case value(RESPValue)
        case opened
    }

    /// Longest header line of an integer, length, double, boolean or null, in bytes after the type byte.
    static let shortLineLimit = 64

    /// Longest bulk string, in bytes.
    public let maximumBulkLength: Int
    /// Most elements in an array; for a map, keys and values both count.
    public let maximumArrayLength: Int
    /// Deepest nesting of arrays and maps; a top-level array is at depth 1.
    public let maximumDepth: Int
    /// Longest simple string or error line, in bytes after the type byte.
    public let maximumLineLength: Int

    /// Where the next unread byte of the current value is.
    private var position = 0
    /// How far the line starting at `position` has been scanned without finding its end.
    private var lineScanIndex = 0
    /// The declared length of the bulk string whose body starts at `position`, once its header has been read.
    private var pendingBulkLength: Int?
    /// The arrays and maps still open, outermost first.
    private var stack: [RESPAggregateFrame] = []
    private var failure: RESPProtocolError?

    /// - Parameters:
    ///   - maximumBulkLength: longest bulk string in bytes; default 16 MiB.
    ///   - maximumArrayLength: most elements in one array, or keys and values in one map; default 1,000,000.
    ///   - maximumDepth: deepest nesting of arrays and maps, a top-level array being at depth 1; default 8.
    ///   - maximumLineLength: longest simple string or error line in bytes; default 64 KiB.
    public init(
        maximumBulkLength: Int = 16 * 1024 * 1024,
        maximumArrayLength: Int = 1_000_000,
        maximumDepth: Int = 8,
        maximumLineLength: Int = 64 * 1024
    ) {
        precondition(maximumBulkLength >= 0 && maximumArrayLength >= 0, "limits cannot be negative")
        precondition(maximumDepth >= 0 && maximumLineLength >= 0, "limits cannot be negative")
        self.maximumBulkLength = maximumBulkLength
        self.maximumArrayLength = maximumArrayLength
        self.maximumDepth = maximumDepth
        self.maximumLineLength = maximumLineLength
    }

    /// Reads on from where the previous call stopped.
    ///
    /// - Parameter bytes: the received bytes from the start of the current value: the same bytes as the previous
    ///   call, with any new ones behind them, or, after `.value`, what follows the consumed bytes.
    public mutating func parse(_ bytes: UnsafeRawBufferPointer) -> Result {
        if let failure = self.failure { return .failure(failure) }
        precondition(bytes.count >= self.position, "bytes the parser has read were dropped")
        do {
            while true {
                let value: RESPValue
                switch try self.step(bytes) {
                case .incomplete: return .incomplete
                case .opened: continue
                case .value(let element): value = element
                }
                if let complete = self.attach(value) {
                    let consumed = self.position
                    self.position = 0
                    self.lineScanIndex = 0
                    return .value(complete, consumed: consumed)
                }
            }
        } catch {
            self.failure = error
            return .failure(error)
        }
    }

    /// Adds a finished value to the open aggregates, closing those it completes; returns the top-level value once
    /// it is complete.
    private mutating func attach(_ value: RESPValue) -> RESPValue? {
        var value = value
        while !self.stack.isEmpty {
            let top = self.stack.count - 1
            self.stack[top].elements.append(value)
            guard self.stack[top].isComplete else { return nil }
            value = self.stack.removeLast().value
        }
        return value
    }

    /// Reads one value, or the header of an aggregate, at `position`.
    private mutating func step(_ bytes: UnsafeRawBufferPointer) throws(RESPProtocolError) -> Step {
        if let length = self.pendingBulkLength { return try self.readBulkBody(bytes, length: length) }
        guard self.position < bytes.count else { return .incomplete }
        let start = self.position
        let type = bytes[start]
        switch type {
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            let tooLong = RESPProtocolError.Reason.lineTooLong(limit: self.maximumLineLength)
            guard let line = try self.readLine(bytes, limit: self.maximumLineLength, tooLong: tooLong) else {
                return .incomplete
            }
            let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[line]), as: UTF8.self)
            return .value(type == UInt8(ascii: "+") ? .simpleString(text) : .error(text))
        case UInt8(ascii: ":"):
            guard let line = try self.readShortLine(bytes, tooLong: .invalidInteger) else { return .incomplete }
            return .value(.integer(try Self.integer(bytes, line)))
        case UInt8(ascii: "$"):
            guard let line = try self.readShortLine(bytes, tooLong: .invalidLength) else { return .incomplete }
            let tooLarge = RESPProtocolError(.bulkTooLong(limit: self.maximumBulkLength), at: start)
            let length = try Self.length(bytes, line, allowsNull: true, limit: self.maximumBulkLength, or: tooLarge)
            guard let length else { return .value(.bulkString(nil)) }
            self.pendingBulkLength = length
            return try self.readBulkBody(bytes, length: length)
        case UInt8(ascii: "*"), UInt8(ascii: "%"):
            let isMap = type == UInt8(ascii: "%")
            guard let line = try self.readShortLine(bytes, tooLong: .invalidLength) else { return .incomplete }
            let limit = isMap ? self.maximumArrayLength / 2 : self.maximumArrayLength
            let tooLarge = RESPProtocolError(.tooManyElements(limit: self.maximumArrayLength), at: start)
            guard let count = try Self.length(bytes, line, allowsNull: !isMap, limit: limit, or: tooLarge) else {
                return .value(.array(nil))
            }
            guard self.stack.count < self.maximumDepth else {
                throw RESPProtocolError(.nestingTooDeep(limit: self.maximumDepth), at: start)
            }
            if count == 0 { return .value(isMap ? .map([]) : .array([])) }
            self.stack.append(RESPAggregateFrame(isMap: isMap, expectedCount: isMap ? count * 2 : count))
            return .opened
        case UInt8(ascii: "_"):
            guard let line = try self.readShortLine(bytes, tooLong: .invalidNull) else { return .incomplete }
            guard line.isEmpty else { throw RESPProtocolError(.invalidNull, at: line.lowerBound) }
            return .value(.null)
        case UInt8(ascii: ","):
            guard let line = try self.readShortLine(bytes, tooLong: .invalidDouble) else { return .incomplete }
            return .value(.double(try Self.double(bytes, line)))
        case UInt8(ascii: "#"):
            guard let line = try self.readShortLine(bytes, tooLong: .invalidBoolean) else { return .incomplete }
            guard line.count == 1 else { throw RESPProtocolError(.invalidBoolean, at: line.lowerBound) }
            switch bytes[line.lowerBound] {
            case UInt8(ascii: "t"): return .value(.boolean(true))
            case UInt8(ascii: "f"): return .value(.boolean(false))
            default: throw RESPProtocolError(.invalidBoolean, at: line.lowerBound)
            }
        default:
            throw RESPProtocolError(.unknownType(type), at: start)
        }
    }

    /// Waits for a bulk string's body and its CRLF, checking the bytes at the declared end as soon as they arrive.
    private mutating func readBulkBody(
        _ bytes: UnsafeRawBufferPointer,
        length: Int
    ) throws(RESPProtocolError) -> Step {
        let end = self.position + length
        if bytes.count > end, bytes[end] != 0x0D { throw RESPProtocolError(.bulkNotTerminated, at: end) }
        if bytes.count > end + 1, bytes[end + 1] != 0x0A { throw RESPProtocolError(.bulkNotTerminated, at: end + 1) }
        guard bytes.count >= end + 2 else { return .incomplete }
        let body = Array(UnsafeRawBufferPointer(rebasing: bytes[self.position..<end]))
        self.position = end + 2
        self.pendingBulkLength = nil
        return .value(.bulkString(body))
    }

    private mutating func readShortLine(
        _ bytes: UnsafeRawBufferPointer,
        tooLong: RESPProtocolError.Reason
    ) throws(RESPProtocolError) -> Range<Int>? {
        try self.readLine(bytes, limit: Self.shortLineLimit, tooLong: tooLong)
    }

    /// Finds the end of the line whose type byte is at `position`, resuming where the last call stopped; returns
    /// the line's content, after the type byte and before the CRLF, and moves `position` past the CRLF.
    private mutating func readLine(
        _ bytes: UnsafeRawBufferPointer,
        limit: Int,
        tooLong: RESPProtocolError.Reason
    ) throws(RESPProtocolError) -> Range<Int>? {
        let contentStart = self.position + 1
        let limitIndex = contentStart + limit
        var index = max(self.lineScanIndex, contentStart)
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0x0D {
                guard index + 1 < bytes.count else { break }
                guard bytes[index + 1] == 0x0A else { throw RESPProtocolError(.missingLineFeed, at: index + 1) }
                self.position = index + 2
                self.lineScanIndex = 0
                return contentStart..<index
            }
            if byte == 0x0A { throw RESPProtocolError(.bareLineFeed, at: index) }
            if index >= limitIndex { throw RESPProtocolError(tooLong, at: index) }
            index += 1
        }
        self.lineScanIndex = index
        return nil
    }

    /// Reads a length: digits, or `-1` (nil) where a null is allowed. A well-formed value over `limit` throws
    /// `tooLarge`; it is never computed in full, so no declared length can overflow.
    private static func length(
        _ bytes: UnsafeRawBufferPointer,
        _ line: Range<Int>,
        allowsNull: Bool,
        limit: Int,
        or tooLarge: RESPProtocolError
    ) throws(RESPProtocolError) -> Int? {
        if allowsNull, line.count == 2, bytes[line.lowerBound] == UInt8(ascii: "-"),
            bytes[line.lowerBound + 1] == UInt8(ascii: "1")
        {
            return nil
        }
        guard !line.isEmpty else { throw RESPProtocolError(.invalidLength, at: line.lowerBound) }
        var value = 0
        var isOverLimit = false
        for index in line {
            let digit = bytes[index] &- UInt8(ascii: "0")
            guard digit < 10 else { throw RESPProtocolError(.invalidLength, at: index) }
            guard !isOverLimit else { continue }
            let (shifted, overflowA) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowB) = shifted.addingReportingOverflow(Int(digit))
            if overflowA || overflowB || sum > limit {
                isOverLimit = true
            } else {
                value = sum
            }
        }
        guard !isOverLimit else { throw tooLarge }
        return value
    }

    /// Reads a signed 64-bit integer: an optional `+` or `-`, then at least one digit.
    private static func integer(
        _ bytes: UnsafeRawBufferPointer,
        _ line: Range<Int>
    ) throws(RESPProtocolError) -> Int64 {
        var index = line.lowerBound
        var isNegative = false
        if index < line.upperBound, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
            isNegative = bytes[index] == UInt8(ascii: "-")
            index += 1
        }
        guard index < line.upperBound else { throw RESPProtocolError(.invalidInteger, at: index) }
        // Accumulated as a negative number, so Int64.min is representable.
        var value: Int64 = 0
        while index < line.upperBound {
            let digit = bytes[index] &- UInt8(ascii: "0")
            guard digit < 10 else { throw RESPProtocolError(.invalidInteger, at: index) }
            let (shifted, overflowA) = value.multipliedReportingOverflow(by: 10)
            let (difference, overflowB) = shifted.subtractingReportingOverflow(Int64(digit))
            guard !overflowA, !overflowB else { throw RESPProtocolError(.integerOutOfRange, at: index) }
            value = difference
            index += 1
        }
        if isNegative { return value }
        guard value != .min else { throw RESPProtocolError(.integerOutOfRange, at: line.upperBound - 1) }
        return -value
    }

    /// Reads a double: `inf`, `-inf`, `nan`, or a decimal number with an optional exponent.
    private static func double(
        _ bytes: UnsafeRawBufferPointer,
        _ line: Range<Int>
    ) throws(RESPProtocolError) -> Double {
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[line]), as: UTF8.self)
        switch text {
        case "inf", "+inf": return .infinity
        case "-inf": return -.infinity
        case "nan": return .nan
        default: break
        }
        // Only the characters of a decimal number reach `Double.init`, which would also take hex and other
        // spellings RESP does not have.
        for index in line {
            switch bytes[index] {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"),
                UInt8(ascii: "+"), UInt8(ascii: "-"):
                continue
            default:
                throw RESPProtocolError(.invalidDouble, at: index)
            }
        }
        guard let value = Double(text) else { throw RESPProtocolError(.invalidDouble, at: line.lowerBound) }
        return value
    }
}
