/// The parts of HTTP/1.1 head parsing (RFC 9112) that requests and responses share: finding the blank line that
/// ends a head without rescanning (a scanner per head remembers how far it got), and reading the header fields
/// between the start line and it. Its token rule is public for the grammars built on HTTP fields (WebSocket
/// extension offers).
public struct HTTPHeadScanner: Sendable {
    /// Where to stop looking for the end of the head: the head size limit.
    let limit: Int
    /// How far the previous calls scanned.
    private var scannedUpTo = 0

    /// - Parameter limit: the head size limit in bytes.
    init(limit: Int) {
        self.limit = limit
    }

    /// What reading the header fields gave.
    enum Fields {
        /// Every field, in order.
        case fields([HTTPHeaderField])
        /// More fields than allowed.
        case tooMany
        /// A field line that breaks the grammar.
        case malformed
    }

    /// Looks for CRLF CRLF in `bytes[..<limit]`, resuming three bytes before where the previous call stopped, so
    /// a terminator split across reads is found and nothing further back is scanned again.
    ///
    /// - Parameter bytes: everything received for the head so far.
    /// - Returns: the size of the head, blank line included, or nil when it has not ended within `limit`.
    mutating func findHeadEnd(_ bytes: UnsafeRawBufferPointer) -> Int? {
        var index = max(0, self.scannedUpTo - 3)
        let searchLimit = min(bytes.count, self.limit)
        while index + 3 < searchLimit {
            if bytes[index + 3] != 0x0A {
                index += bytes[index + 3] == 0x0D ? 1 : 4
                continue
            }
            if bytes[index] == 0x0D && bytes[index + 1] == 0x0A && bytes[index + 2] == 0x0D {
                return index + 4
            }
            index += 1
        }
        self.scannedUpTo = searchLimit
        return nil
    }

    /// Reads the header fields from `index` to the blank line that ends a head of `size` bytes.
    ///
    /// Names are tokens followed directly by a colon (no whitespace before it, no obsolete line folding); values
    /// hold no control characters but tab and are kept without surrounding whitespace (RFC 9112 §5).
    ///
    /// - Parameters:
    ///   - bytes: the head.
    ///   - index: where the first field line starts (after the start line's CRLF).
    ///   - size: the head's size, blank line included.
    ///   - maximumCount: the most fields allowed.
    static func parseFields(
        _ bytes: UnsafeRawBufferPointer,
        from index: Int,
        size: Int,
        maximumCount: Int
    ) -> Fields {
        var index = index
        var fields: [HTTPHeaderField] = []
        while index < size - 2 {
            guard fields.count < maximumCount else { return .tooMany }
            let nameStart = index
            while index < size && Self.isTokenCharacter(bytes[index]) { index += 1 }
            guard index > nameStart, index < size, bytes[index] == UInt8(ascii: ":") else { return .malformed }
            let name = nameStart..<index
            index += 1
            while index < size && Self.isWhitespace(bytes[index]) { index += 1 }
            let valueStart = index
            while index < size && bytes[index] != 0x0D {
                let byte = bytes[index]
                guard byte >= 0x20 || byte == 0x09, byte != 0x7F else { return .malformed }
                index += 1
            }
            guard index + 1 < size, bytes[index + 1] == 0x0A else { return .malformed }
            var valueEnd = index
            while valueEnd > valueStart && Self.isWhitespace(bytes[valueEnd - 1]) { valueEnd -= 1 }
            fields.append(HTTPHeaderField(name: name, value: valueStart..<valueEnd))
            index += 2
        }
        return .fields(fields)
    }

    /// Whether `bytes[range]` starts with `prefix`.
    static func matches(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, prefix: StaticString) -> Bool {
        let count = prefix.utf8CodeUnitCount
        guard range.count >= count else { return false }
        let start = prefix.utf8Start
        for index in 0..<count where bytes[range.lowerBound + index] != start[index] { return false }
        return true
    }

    static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    static func isWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }

    /// RFC 9110 §5.6.2 tchar.
    ///
    /// - Parameter byte: the byte.
    public static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
            UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }
}
