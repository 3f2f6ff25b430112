/// Reads an HTTP/1.1 response head (RFC 9112 §4–5) incrementally, in the manner of `HTTPRequestParser` and
/// picohttpparser: the caller keeps the received bytes, the parser remembers how far it has scanned, and the head
/// it returns reports its size, so the caller knows where the bytes that follow (frames, after an upgrade) start.
///
/// Everything is bounded: the whole head and the number of fields.
public struct HTTPResponseParser: Sendable {
    /// The outcome of feeding the bytes received so far; a failure says what is wrong with the head.
    public typealias Result = HTTPHeadParseResult<HTTPResponseHead, HTTPResponseError>

    /// Largest head in bytes, status line and blank line included.
    public var maximumHeadSize: Int { self.scanner.limit }
    /// Most header fields.
    public let maximumHeaderCount: Int
    private var scanner: HTTPHeadScanner

    /// - Parameters:
    ///   - maximumHeadSize: the largest head in bytes; default 16 KiB.
    ///   - maximumHeaderCount: the most header fields; default 64.
    public init(maximumHeadSize: Int = 16 * 1024, maximumHeaderCount: Int = 64) {
        self.scanner = HTTPHeadScanner(limit: maximumHeadSize)
        self.maximumHeaderCount = maximumHeaderCount
    }

    /// Feeds everything received for this response so far (the bytes of earlier calls included); only the bytes
    /// not looked at before are scanned.
    ///
    /// - Parameter bytes: the received bytes, from the start of the response.
    /// - Returns: `.incomplete` until the blank line arrives, then the head or why it is refused.
    public mutating func parse(_ bytes: UnsafeRawBufferPointer) -> Result {
        if let headEnd = self.scanner.findHeadEnd(bytes) {
            return Self.parseHead(bytes, size: headEnd, maximumHeaderCount: self.maximumHeaderCount)
        }
        let limit = self.maximumHeadSize
        return bytes.count >= limit ? .failure(.headTooLarge(limit)) : .incomplete
    }

    private static func parseHead(_ bytes: UnsafeRawBufferPointer, size: Int, maximumHeaderCount: Int) -> Result {
        // Status line: HTTP-version SP 3DIGIT SP reason-phrase CRLF; a missing reason (and its space) is accepted.
        var index = 0
        while index < size && bytes[index] != 0x20 && bytes[index] != 0x0D { index += 1 }
        let version = 0..<index
        guard version.count == 8, HTTPHeadScanner.matches(bytes, version, prefix: "HTTP/1."),
            HTTPHeadScanner.isDigit(bytes[7]), index + 4 < size, bytes[index] == 0x20
        else { return .failure(.malformedStatusLine) }
        index += 1
        var status = 0
        for offset in 0..<3 {
            let byte = bytes[index + offset]
            guard HTTPHeadScanner.isDigit(byte) else { return .failure(.malformedStatusLine) }
            status = status * 10 + Int(byte - UInt8(ascii: "0"))
        }
        index += 3
        if bytes[index] == 0x20 { index += 1 }
        let reasonStart = index
        while index < size && bytes[index] != 0x0D {
            let byte = bytes[index]
            guard byte >= 0x20 || byte == 0x09, byte != 0x7F else { return .failure(.malformedStatusLine) }
            index += 1
        }
        guard index == reasonStart || bytes[reasonStart - 1] == 0x20, index + 1 < size, bytes[index + 1] == 0x0A
        else { return .failure(.malformedStatusLine) }
        let reason = reasonStart..<index
        index += 2
        switch HTTPHeadScanner.parseFields(bytes, from: index, size: size, maximumCount: maximumHeaderCount) {
        case .fields(let fields):
            let head = Array(bytes[0..<size])
            return .complete(
                HTTPResponseHead(bytes: head, version: version, status: status, reason: reason, fields: fields))
        case .tooMany:
            return .failure(.tooManyFields(maximumHeaderCount))
        case .malformed:
            return .failure(.malformedField)
        }
    }
}
