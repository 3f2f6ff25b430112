/// A parsed request head: its bytes, and the ranges of the request line's parts and of each field.
public struct HTTPRequestHead: HTTPHead, Sendable {
    /// One header field, as ranges into `bytes` (the value without surrounding whitespace).
    public typealias Field = HTTPHeaderField

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
}
