/// A parsed HTTP head, request or response: its bytes, and its header fields as ranges into them. Field lookups
/// compare names without regard to case and never copy the head.
public protocol HTTPHead {
    /// The head's bytes, start line to the blank line.
    var bytes: [UInt8] { get }
    /// The header fields in order.
    var fields: [HTTPHeaderField] { get }
}

extension HTTPHead {
    /// The size of the head in bytes; what follows it in the receive buffer belongs to the next layer.
    public var size: Int { self.bytes.count }

    /// The values of every field named `name` (case-insensitive), in order.
    ///
    /// - Parameter name: the field name.
    public func values(of name: StaticString) -> [String] {
        self.fields.filter { self.equals($0.name, name, caseInsensitive: true) }.map { self.string($0.value) }
    }

    /// How many fields are named `name`.
    ///
    /// - Parameter name: the field name.
    public func count(of name: StaticString) -> Int {
        self.fields.reduce(0) { $0 + (self.equals($1.name, name, caseInsensitive: true) ? 1 : 0) }
    }

    /// The value of the first field named `name`, or nil.
    ///
    /// - Parameter name: the field name.
    public func value(of name: StaticString) -> String? {
        self.fields.first { self.equals($0.name, name, caseInsensitive: true) }.map { self.string($0.value) }
    }

    /// Whether any field named `name` holds `token` in its comma-separated list (case-insensitive), as the
    /// `Connection` and `Upgrade` fields do.
    ///
    /// - Parameters:
    ///   - token: the list element to look for.
    ///   - name: the field name.
    public func containsToken(_ token: StaticString, in name: StaticString) -> Bool {
        for field in self.fields where self.equals(field.name, name, caseInsensitive: true) {
            var start = field.value.lowerBound
            while start <= field.value.upperBound {
                var end = start
                while end < field.value.upperBound && self.bytes[end] != UInt8(ascii: ",") { end += 1 }
                var trimmedStart = start
                var trimmedEnd = end
                while trimmedStart < trimmedEnd && HTTPHeadScanner.isWhitespace(self.bytes[trimmedStart]) {
                    trimmedStart += 1
                }
                while trimmedEnd > trimmedStart && HTTPHeadScanner.isWhitespace(self.bytes[trimmedEnd - 1]) {
                    trimmedEnd -= 1
                }
                if self.equals(trimmedStart..<trimmedEnd, token, caseInsensitive: true) { return true }
                start = end + 1
            }
        }
        return false
    }

    func string(_ range: Range<Int>) -> String {
        String(decoding: self.bytes[range], as: UTF8.self)
    }

    func equals(_ range: Range<Int>, _ literal: StaticString, caseInsensitive: Bool) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard range.count == count else { return false }
        let start = literal.utf8Start
        for index in 0..<count {
            var a = self.bytes[range.lowerBound + index]
            var b = start[index]
            if caseInsensitive {
                if a >= 0x41 && a <= 0x5A { a |= 0x20 }
                if b >= 0x41 && b <= 0x5A { b |= 0x20 }
            }
            if a != b { return false }
        }
        return true
    }
}
