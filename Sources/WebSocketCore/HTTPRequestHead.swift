/// A parsed request head: its bytes, and the ranges of the request line's parts and of each field.
public struct HTTPRequestHead: Sendable {
    /// One header field, as ranges into `bytes` (the value without surrounding whitespace).
    public struct Field: Hashable, Sendable {
        public var name: Range<Int>
        public var value: Range<Int>
    }

    /// The head's bytes, request line to the blank line.
    public let bytes: [UInt8]
    let methodRange: Range<Int>
    let targetRange: Range<Int>
    let versionRange: Range<Int>
    /// The header fields in order.
    public let fields: [Field]

    init(bytes: [UInt8], method: Range<Int>, target: Range<Int>, version: Range<Int>, fields: [Field]) {
        self.bytes = bytes
        self.methodRange = method
        self.targetRange = target
        self.versionRange = version
        self.fields = fields
    }

    /// The size of the head in bytes; what follows it in the receive buffer belongs to the next layer.
    public var size: Int { self.bytes.count }

    /// The method, e.g. `GET`.
    public var method: String { self.string(self.methodRange) }
    /// The request target, e.g. `/echo?x=1`.
    public var target: String { self.string(self.targetRange) }
    /// The HTTP version, e.g. `HTTP/1.1`.
    public var version: String { self.string(self.versionRange) }

    /// The target's path (before `?`).
    public var path: String {
        let target = self.target
        if let query = target.firstIndex(of: "?") { return String(target[..<query]) }
        return target
    }

    /// The target's query (after `?`), if any.
    public var query: String? {
        let target = self.target
        guard let query = target.firstIndex(of: "?") else { return nil }
        return String(target[target.index(after: query)...])
    }

    /// Whether the method is exactly `method` (methods are case-sensitive).
    public func hasMethod(_ method: StaticString) -> Bool {
        self.equals(self.methodRange, method, caseInsensitive: false)
    }

    /// The values of every field named `name` (case-insensitive), in order.
    public func values(of name: StaticString) -> [String] {
        self.fields.filter { self.equals($0.name, name, caseInsensitive: true) }.map { self.string($0.value) }
    }

    /// How many fields are named `name`.
    public func count(of name: StaticString) -> Int {
        self.fields.reduce(0) { $0 + (self.equals($1.name, name, caseInsensitive: true) ? 1 : 0) }
    }

    /// The value of the first field named `name`, or nil.
    public func value(of name: StaticString) -> String? {
        self.fields.first { self.equals($0.name, name, caseInsensitive: true) }.map { self.string($0.value) }
    }

    /// Whether any field named `name` holds `token` in its comma-separated list (case-insensitive), as the
    /// `Connection` and `Upgrade` fields do.
    public func containsToken(_ token: StaticString, in name: StaticString) -> Bool {
        for field in self.fields where self.equals(field.name, name, caseInsensitive: true) {
            var start = field.value.lowerBound
            while start <= field.value.upperBound {
                var end = start
                while end < field.value.upperBound && self.bytes[end] != UInt8(ascii: ",") { end += 1 }
                var trimmedStart = start
                var trimmedEnd = end
                while trimmedStart < trimmedEnd && Self.isWhitespace(self.bytes[trimmedStart]) { trimmedStart += 1 }
                while trimmedEnd > trimmedStart && Self.isWhitespace(self.bytes[trimmedEnd - 1]) { trimmedEnd -= 1 }
                if self.equals(trimmedStart..<trimmedEnd, token, caseInsensitive: true) { return true }
                start = end + 1
            }
        }
        return false
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }

    private func string(_ range: Range<Int>) -> String {
        String(decoding: self.bytes[range], as: UTF8.self)
    }

    private func equals(_ range: Range<Int>, _ literal: StaticString, caseInsensitive: Bool) -> Bool {
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
