/// Writes HTTP/1.1 responses.
public enum HTTPResponse {
    /// Encodes a complete response with a body and `Content-Length`.
    ///
    /// - Parameters:
    ///   - status: the status line.
    ///   - headers: extra fields, in order.
    ///   - body: the body bytes.
    ///   - contentType: the `Content-Type` of the body.
    ///   - closeConnection: whether to send `Connection: close`.
    public static func encode(
        status: HTTPStatus,
        headers: [(String, String)] = [],
        body: [UInt8],
        contentType: String = "text/plain; charset=utf-8",
        closeConnection: Bool = true
    ) -> [UInt8] {
        var head = "HTTP/1.1 \(status.code) \(status.reasonPhrase)\r\n"
        head += "Content-Type: \(contentType)\r\nContent-Length: \(body.count)\r\n"
        if closeConnection { head += "Connection: close\r\n" }
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        return Array(head.utf8) + body
    }

    /// The response to a `HEAD` request from the response to its `GET`: the status line and header fields, with
    /// `Content-Length` as the `GET` would have sent it, and no body (RFC 9110, 9.3.2).
    ///
    /// - Parameter response: the whole response to the `GET`.
    public static func withoutBody(_ response: [UInt8]) -> [UInt8] {
        let end: [UInt8] = [0x0D, 0x0A, 0x0D, 0x0A]
        guard response.count >= 4 else { return response }
        for index in 0...(response.count - 4) where response[index..<(index + 4)].elementsEqual(end) {
            return Array(response[..<(index + 4)])
        }
        return response
    }

    /// Encodes a plain-text error response that closes the connection.
    public static func error(_ status: HTTPStatus, message: String? = nil, headers: [(String, String)] = []) -> [UInt8]
    {
        Self.encode(status: status, headers: headers, body: Array(((message ?? status.reasonPhrase) + "\n").utf8))
    }
}
