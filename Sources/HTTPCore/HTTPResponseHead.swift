/// A parsed response head: its bytes, the status line's parts and each field as ranges into the bytes.
public struct HTTPResponseHead: HTTPHead, Sendable {
    /// The head's bytes, status line to the blank line.
    public let bytes: [UInt8]
    /// The header fields in order.
    public let fields: [HTTPHeaderField]
    /// The status code, e.g. 101.
    public let status: Int
    let versionRange: Range<Int>
    let reasonRange: Range<Int>

    init(bytes: [UInt8], version: Range<Int>, status: Int, reason: Range<Int>, fields: [HTTPHeaderField]) {
        self.bytes = bytes
        self.versionRange = version
        self.status = status
        self.reasonRange = reason
        self.fields = fields
    }

    /// The HTTP version, e.g. `HTTP/1.1`.
    public var version: String { self.string(self.versionRange) }
    /// The reason phrase, e.g. `Switching Protocols` (may be empty).
    public var reason: String { self.string(self.reasonRange) }
    /// The status line without its CRLF, e.g. `HTTP/1.1 404 Not Found`.
    public var statusLine: String { self.string(self.versionRange.lowerBound..<self.reasonRange.upperBound) }
}
