import HTTPCore

/// The opening handshake request of RFC 6455 §1.3 and §4.1: an HTTP request with every upgrade field.
public let sampleRequest = """
    GET /chat HTTP/1.1\r
    Host: server.example.com\r
    Upgrade: websocket\r
    Connection: Upgrade\r
    Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r
    Origin: http://example.com\r
    Sec-WebSocket-Protocol: chat, superchat\r
    Sec-WebSocket-Version: 13\r
    \r

    """

/// The server's 101 answer to `sampleRequest` (its `Sec-WebSocket-Accept` is the one the RFC's key calls for), with
/// `extra` lines before the blank line.
///
/// - Parameters:
///   - extra: further header lines, without their CRLF.
///   - status: the status line.
public func sampleAnswer(_ extra: [String] = [], status: String = "HTTP/1.1 101 Switching Protocols") -> [UInt8] {
    let lines =
        [status, "Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo="]
        + extra
    return Array((lines.map { $0 + "\r\n" }.joined() + "\r\n").utf8)
}

/// Parses `bytes` in one call to a fresh request parser.
///
/// - Parameters:
///   - bytes: the request.
///   - limits: the parser's limits.
public func parseWhole(_ bytes: [UInt8], limits: HTTPRequestParser.Limits = .init()) -> HTTPRequestParser.Result {
    var parser = HTTPRequestParser(limits: limits)
    return bytes.withUnsafeBytes { parser.parse($0) }
}

/// Parses `text` in one call; the head, or nil when it is incomplete or refused.
///
/// - Parameters:
///   - text: the request.
///   - limits: the parser's limits.
public func parseHead(_ text: String, limits: HTTPRequestParser.Limits = .init()) -> HTTPRequestHead? {
    guard case .complete(let head) = parseWhole(Array(text.utf8), limits: limits) else { return nil }
    return head
}

/// Feeds `bytes` to a response parser in the reads `mode` describes, as a client does: each call sees every byte
/// received so far. Returns the final result and how many calls were incomplete.
///
/// - Parameters:
///   - bytes: the response.
///   - mode: how the bytes are cut into reads.
///   - initial: the parser, with its limits.
public func feedResponse(
    _ bytes: [UInt8], mode: FeedingMode, parser initial: HTTPResponseParser = HTTPResponseParser()
) -> (result: HTTPResponseParser.Result, incompleteCalls: Int) {
    var parser = initial
    var received: [UInt8] = []
    var incomplete = 0
    var start = 0
    for size in mode.chunkSizes(for: bytes.count) {
        received += bytes[start..<(start + size)]
        start += size
        let result = received.withUnsafeBytes { parser.parse($0) }
        guard case .incomplete = result else { return (result, incomplete) }
        incomplete += 1
    }
    return (.incomplete, incomplete)
}
