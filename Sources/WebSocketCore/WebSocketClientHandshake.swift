import HTTPCore

/// The client side of the opening handshake (RFC 6455 §4.1): the upgrade request, and the check of the server's
/// answer (101, `Upgrade`, `Connection`, `Sec-WebSocket-Accept` against the key, the subprotocol).
///
/// It does no I/O and draws no random numbers: the caller supplies the 16 key bytes, sends `request(...)`, feeds the
/// answer to an `HTTPResponseParser` and passes the head to `validate(_:)`. The extension answer is returned
/// unchecked for the extension's own check, which lives with the extension (permessage-deflate's in
/// WebSocketDeflate, through `validate(_:offeredCompression:)` there).
public struct WebSocketClientHandshake: Sendable {
    /// The `Sec-WebSocket-Key` sent: 16 bytes in base64.
    public let key: String
    /// The `Sec-WebSocket-Accept` the key calls for.
    public let expectedAccept: String
    /// The subprotocols offered, in order of preference.
    public let subprotocols: [String]

    /// - Parameters:
    ///   - keyBytes: 16 random bytes (a fresh nonce per connection, §4.1).
    ///   - subprotocols: the subprotocols to offer, in order of preference.
    public init(keyBytes: [UInt8], subprotocols: [String] = []) {
        precondition(keyBytes.count == 16, "Sec-WebSocket-Key is 16 bytes")
        self.init(key: Base64.encode(keyBytes), subprotocols: subprotocols)
    }

    /// - Parameters:
    ///   - key: the `Sec-WebSocket-Key` value to send.
    ///   - subprotocols: the subprotocols to offer, in order of preference.
    public init(key: String, subprotocols: [String] = []) {
        self.key = key
        self.expectedAccept = WebSocketHandshake.acceptValue(forKey: key)
        self.subprotocols = subprotocols
    }

    /// Encodes the upgrade request.
    ///
    /// - Parameters:
    ///   - target: the request target, e.g. `/v1/ws?token=...`.
    ///   - host: the `Host` value.
    ///   - extensions: the `Sec-WebSocket-Extensions` offer, or nil.
    ///   - headers: further fields (such as `Authorization`), sent as given.
    /// - Returns: the request head, blank line included.
    /// - Throws: `WebSocketClientHandshakeError` when a field name holds a colon or line break, or a value a line
    ///   break.
    public func request(
        target: String,
        host: String,
        extensions: String? = nil,
        headers: [(name: String, value: String)] = []
    ) throws(WebSocketClientHandshakeError) -> [UInt8] {
        var request = "GET \(target) HTTP/1.1\r\nHost: \(host)\r\n"
        request += "Upgrade: websocket\r\nConnection: Upgrade\r\n"
        request += "Sec-WebSocket-Key: \(self.key)\r\nSec-WebSocket-Version: 13\r\n"
        if !self.subprotocols.isEmpty {
            request += "Sec-WebSocket-Protocol: \(self.subprotocols.joined(separator: ", "))\r\n"
        }
        if let extensions { request += "Sec-WebSocket-Extensions: \(extensions)\r\n" }
        for (name, value) in headers {
            // Bytes, not characters: "\r\n" is one Character and would slip past a Character comparison.
            guard !name.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == UInt8(ascii: ":") }),
                !value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A })
            else { throw .invalidHeaderField(name) }
            request += "\(name): \(value)\r\n"
        }
        request += "\r\n"
        return Array(request.utf8)
    }

    /// Checks the server's answer to the request.
    ///
    /// - Parameter head: the response head.
    /// - Returns: the chosen subprotocol and the extension answer (for the extension's own check).
    /// - Throws: `WebSocketClientHandshakeError` when the status is not 101, `Upgrade: websocket` or
    ///   `Connection: upgrade` is missing, `Sec-WebSocket-Accept` is not exactly the expected value, or the
    ///   subprotocol was not offered.
    public func validate(_ head: HTTPResponseHead) throws(WebSocketClientHandshakeError) -> WebSocketClientUpgrade {
        try Self.validate(head, expectedAccept: self.expectedAccept, subprotocols: self.subprotocols)
    }

    /// Checks a server's answer against the `Sec-WebSocket-Accept` value its request's key calls for, as
    /// `validate(_:)` does, for a caller that kept the expected value rather than the handshake.
    ///
    /// - Parameters:
    ///   - head: the response head.
    ///   - expectedAccept: `WebSocketHandshake.acceptValue(forKey:)` of the key sent.
    ///   - subprotocols: the subprotocols offered.
    /// - Returns: the chosen subprotocol and the extension answer (for the extension's own check).
    /// - Throws: `WebSocketClientHandshakeError` naming the first problem.
    public static func validate(
        _ head: HTTPResponseHead,
        expectedAccept: String,
        subprotocols: [String] = []
    ) throws(WebSocketClientHandshakeError) -> WebSocketClientUpgrade {
        guard head.status == 101 else { throw .unexpectedStatus(head.status, statusLine: head.statusLine) }
        guard head.containsToken("websocket", in: "Upgrade") else { throw .missingUpgrade }
        guard head.containsToken("upgrade", in: "Connection") else { throw .missingConnectionUpgrade }
        let accept = head.values(of: "Sec-WebSocket-Accept")
        guard accept.count == 1, accept[0] == expectedAccept else { throw .wrongAccept }
        let protocols = head.values(of: "Sec-WebSocket-Protocol")
        var subprotocol: String?
        if !protocols.isEmpty {
            guard protocols.count == 1, subprotocols.contains(protocols[0]) else {
                throw .unexpectedSubprotocol(protocols.joined(separator: ", "))
            }
            subprotocol = protocols[0]
        }
        return WebSocketClientUpgrade(
            subprotocol: subprotocol,
            extensions: head.values(of: "Sec-WebSocket-Extensions").joined(separator: ", ")
        )
    }
}
