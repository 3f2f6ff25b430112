/// Reads an HTTP/1.1 request head (RFC 9112 §2–5) incrementally, in the style of picohttpparser: the caller keeps
/// the received bytes, the parser remembers how far it has scanned and reports the head's extent and fields as
/// ranges into those bytes.
///
/// Everything is bounded: the request line, the whole header section and the number of fields.
public struct HTTPRequestParser: Sendable {
    /// Limits on a request head.
    public struct Limits: Hashable, Sendable {
        /// Longest request line in bytes (longer: 414).
        public var maximumRequestLineLength: Int
        /// Longest header section in bytes, request line included (longer: 431).
        public var maximumHeadSize: Int
        /// Most header fields (more: 431).
        public var maximumHeaderCount: Int

        /// - Parameters:
        ///   - maximumRequestLineLength: default 4 KiB.
        ///   - maximumHeadSize: default 8 KiB.
        ///   - maximumHeaderCount: default 64.
        public init(maximumRequestLineLength: Int = 4096, maximumHeadSize: Int = 8192, maximumHeaderCount: Int = 64) {
            self.maximumRequestLineLength = maximumRequestLineLength
            self.maximumHeadSize = maximumHeadSize
            self.maximumHeaderCount = maximumHeaderCount
        }
    }

    /// The outcome of feeding the bytes received so far; a failure carries the status to answer with before
    /// closing.
    public typealias Result = HTTPHeadParseResult<HTTPRequestHead, HTTPStatus>

    public let limits: Limits
    private var scanner: HTTPHeadScanner

    /// - Parameter limits: the limits to enforce.
    public init(limits: Limits = Limits()) {
        self.limits = limits
        self.scanner = HTTPHeadScanner(limit: limits.maximumHeadSize)
    }

    /// Scans `bytes`, everything received for this request so far (previous calls' bytes included).
    ///
    /// - Parameter bytes: the received bytes, from the start of the request.
    public mutating func parse(_ bytes: UnsafeRawBufferPointer) -> Result {
        guard let headEnd = self.scanner.findHeadEnd(bytes) else {
            let lineEnd = Self.firstLineFeed(bytes, upTo: min(bytes.count, self.limits.maximumRequestLineLength + 2))
            // A request line ended by a bare LF can never start a valid head: refuse it instead of waiting for a
            // CRLF CRLF that a client using bare line feeds will not send.
            if let lineEnd, lineEnd == 0 || bytes[lineEnd - 1] != 0x0D { return .failure(.badRequest) }
            if bytes.count >= self.limits.maximumHeadSize { return .failure(self.overLimitStatus(bytes)) }
            // A request line that is already too long is refused without waiting for the rest.
            if lineEnd == nil, bytes.count > self.limits.maximumRequestLineLength + 1 {
                return .failure(.uriTooLong)
            }
            return .incomplete
        }
        return Self.parseHead(bytes, size: headEnd, limits: self.limits)
    }

    private func overLimitStatus(_ bytes: UnsafeRawBufferPointer) -> HTTPStatus {
        let lineLimit = min(bytes.count, self.limits.maximumRequestLineLength + 2)
        return Self.containsLineFeed(bytes, upTo: lineLimit) ? .requestHeaderFieldsTooLarge : .uriTooLong
    }

    private static func containsLineFeed(_ bytes: UnsafeRawBufferPointer, upTo end: Int) -> Bool {
        Self.firstLineFeed(bytes, upTo: end) != nil
    }

    private static func firstLineFeed(_ bytes: UnsafeRawBufferPointer, upTo end: Int) -> Int? {
        for index in 0..<end where bytes[index] == 0x0A { return index }
        return nil
    }

    private static func parseHead(_ bytes: UnsafeRawBufferPointer, size: Int, limits: Limits) -> Result {
        // A request line too long to end within the limit is refused as 414 before its syntax is looked at, as
        // `parse` does when the head arrives in pieces, so the status never depends on how the bytes arrive.
        if Self.firstLineFeed(bytes, upTo: min(size, limits.maximumRequestLineLength + 2)) == nil {
            return .failure(.uriTooLong)
        }
        // Request line: method SP request-target SP HTTP-version CRLF.
        var index = 0
        let methodStart = index
        while index < size && HTTPHeadScanner.isTokenCharacter(bytes[index]) { index += 1 }
        guard index > methodStart, index < size, bytes[index] == 0x20 else { return .failure(.badRequest) }
        let method = methodStart..<index
        index += 1
        let targetStart = index
        while index < size && bytes[index] > 0x20 && bytes[index] != 0x7F { index += 1 }
        guard index > targetStart, index < size, bytes[index] == 0x20 else { return .failure(.badRequest) }
        let target = targetStart..<index
        index += 1
        let versionStart = index
        while index < size && bytes[index] != 0x0D { index += 1 }
        let version = versionStart..<index
        guard index + 1 < size, bytes[index + 1] == 0x0A else { return .failure(.badRequest) }
        // HTTP-version = "HTTP/" DIGIT "." DIGIT; checking the last byte too keeps a bare LF out of the request line.
        guard version.count == 8, HTTPHeadScanner.matches(bytes, version, prefix: "HTTP/1."),
            HTTPHeadScanner.isDigit(bytes[version.upperBound - 1])
        else { return .failure(.badRequest) }
        guard index <= limits.maximumRequestLineLength else { return .failure(.uriTooLong) }
        index += 2

        let fields: [HTTPHeaderField]
        switch HTTPHeadScanner.parseFields(bytes, from: index, size: size, maximumCount: limits.maximumHeaderCount) {
        case .fields(let parsed): fields = parsed
        case .tooMany: return .failure(.requestHeaderFieldsTooLarge)
        case .malformed: return .failure(.badRequest)
        }
        let head = HTTPRequestHead(
            bytes: Array(bytes[0..<size]),
            method: method,
            target: target,
            version: version,
            fields: fields
        )
        return .complete(head)
    }
}
