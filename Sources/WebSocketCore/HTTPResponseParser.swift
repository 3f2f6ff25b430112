/// Reads an HTTP/1.1 response head (RFC 9112 §4–5) incrementally, in the manner of `HTTPRequestParser` and
/// picohttpparser: the caller keeps the received bytes, the parser remembers how far it has scanned, and the head
/// it returns reports its size, so the caller knows where the bytes that follow (frames, after an upgrade) start.
///
/// Everything is bounded: the whole head and the number of fields.
public struct HTTPResponseParser: Sendable {
    /// Limits on a response head.
    public struct Limits: Hashable, Sendable {
        /// Largest head in bytes, status line and blank line included.
        public var maximumHeadSize: Int
        /// Most header fields.
        public var maximumHeaderCount: Int

        /// - Parameters:
        ///   - maximumHeadSize: default 16 KiB.
        ///   - maximumHeaderCount: default 64.
        public init(maximumHeadSize: Int = 16 * 1024, maximumHeaderCount: Int = 64) {
            self.maximumHeadSize = maximumHeadSize
            self.maximumHeaderCount = maximumHeaderCount
        }
    }

    /// The outcome of feeding the bytes received so far.
    public enum Result: Sendable {
        /// The head is not complete yet.
        case incomplete
        /// The head is complete; the bytes after `head.size` belong to what follows.
        case complete(HTTPResponseHead)
        /// The head is malformed or over a limit.
        case failure(HTTPResponseError)
    }

    /// The limits enforced.
    public let limits: Limits
    private var scannedUpTo = 0

    /// - Parameter limits: the limits to enforce.
    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// Scans `bytes`, everything received for this response so far (previous calls' bytes included).
    ///
    /// - Parameter bytes: the received bytes, from the start of the response.
    /// - Returns: `.incomplete` until the blank line arrives, then the head or why it is refused.
    public mutating func parse(_ bytes: UnsafeRawBufferPointer) -> Result {
        let headEnd = HTTPHeadScanner.findHeadEnd(
            bytes, scannedUpTo: &self.scannedUpTo, limit: self.limits.maximumHeadSize)
        guard let headEnd else {
            if bytes.count >= self.limits.maximumHeadSize {
                return .failure(.headTooLarge(self.limits.maximumHeadSize))
            }
            return .incomplete
        }
        return Self.parseHead(bytes, size: headEnd, limits: self.limits)
    }

    private static func parseHead(_ bytes: UnsafeRawBufferPointer, size: Int, limits: Limits) -> Result {
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
        let fields: [HTTPHeaderField]
        switch HTTPHeadScanner.parseFields(bytes, from: index, size: size, maximumCount: limits.maximumHeaderCount) {
        case .fields(let parsed): fields = parsed
        case .tooMany: return .failure(.tooManyFields(limits.maximumHeaderCount))
        case .malformed: return .failure(.malformedField)
        }
        let head = HTTPResponseHead(
            bytes: Array(bytes[0..<size]),
            version: version,
            status: status,
            reason: reason,
            fields: fields
        )
        return .complete(head)
    }
}
