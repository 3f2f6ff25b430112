import HTTPCore

/// The server side of the opening handshake (RFC 6455 §4.2).
public enum WebSocketHandshake {
    /// The GUID appended to the client's key before hashing (§1.3).
    public static let acceptGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// Whether a request asks for a protocol upgrade at all; requests that do not are plain HTTP requests.
    public static func isUpgradeRequest(_ head: HTTPRequestHead) -> Bool {
        head.count(of: "Upgrade") > 0
    }

    /// Checks a request against §4.2.1 and returns what the response needs.
    ///
    /// - Parameter head: a parsed request head.
    /// - Returns: the upgrade's details, or the rejection to answer with.
    public static func validate(_ head: HTTPRequestHead) -> Result<WebSocketUpgradeRequest, HandshakeRejection> {
        guard head.hasMethod("GET") else {
            return .failure(HandshakeRejection(.methodNotAllowed, "WebSocket upgrades use GET", [("Allow", "GET")]))
        }
        guard head.version == "HTTP/1.1" else {
            return .failure(HandshakeRejection(.badRequest, "WebSocket upgrades need HTTP/1.1"))
        }
        guard head.count(of: "Host") == 1 else {
            return .failure(HandshakeRejection(.badRequest, "exactly one Host header is required"))
        }
        guard head.containsToken("websocket", in: "Upgrade") else {
            return .failure(HandshakeRejection(.badRequest, "Upgrade must name websocket"))
        }
        guard head.containsToken("upgrade", in: "Connection") else {
            return .failure(HandshakeRejection(.badRequest, "Connection must include upgrade"))
        }
        let versions = head.values(of: "Sec-WebSocket-Version")
        guard versions.count == 1, versions[0] == "13" else {
            return .failure(
                HandshakeRejection(
                    .upgradeRequired,
                    "unsupported WebSocket version",
                    [("Sec-WebSocket-Version", "13")]
                )
            )
        }
        let keys = head.values(of: "Sec-WebSocket-Key")
        guard keys.count == 1, let decoded = Base64.decode(keys[0].utf8), decoded.count == 16 else {
            return .failure(HandshakeRejection(.badRequest, "Sec-WebSocket-Key must be 16 bytes in base64"))
        }
        let protocols = head.values(of: "Sec-WebSocket-Protocol").flatMap { Self.splitList($0) }
        let extensions = head.values(of: "Sec-WebSocket-Extensions").joined(separator: ", ")
        let request = WebSocketUpgradeRequest(
            path: head.path,
            query: head.query,
            key: keys[0],
            origin: head.value(of: "Origin"),
            requestedProtocols: protocols,
            extensions: extensions
        )
        return .success(request)
    }

    /// `Sec-WebSocket-Accept` for a client key: base64 of SHA-1 of the key and the GUID (§4.2.2).
    public static func acceptValue(forKey key: String) -> String {
        var input = Array(key.utf8)
        input.append(contentsOf: Self.acceptGUID.utf8)
        let digest = input.withUnsafeBytes { SHA1.hash($0) }
        return Base64.encode(digest)
    }

    /// Encodes the 101 response that completes the handshake.
    ///
    /// - Parameters:
    ///   - key: the client's `Sec-WebSocket-Key`.
    ///   - subprotocol: the selected subprotocol, if any.
    ///   - extensions: the accepted extensions' response value, if any.
    public static func switchingProtocolsResponse(key: String, subprotocol: String?, extensions: String?) -> [UInt8] {
        var response = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        response += "Sec-WebSocket-Accept: \(Self.acceptValue(forKey: key))\r\n"
        if let subprotocol { response += "Sec-WebSocket-Protocol: \(subprotocol)\r\n" }
        if let extensions { response += "Sec-WebSocket-Extensions: \(extensions)\r\n" }
        response += "\r\n"
        return Array(response.utf8)
    }

    /// Splits a comma-separated header list into trimmed, non-empty elements.
    static func splitList(_ value: String) -> [String] {
        value.split(separator: ",").compactMap { element in
            let trimmed = element.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }
            let result = String(trimmed.reversed())
            return result.isEmpty ? nil : result
        }
    }
}

/// A valid upgrade request: what the server needs to decide on and answer it.
public struct WebSocketUpgradeRequest: Sendable {
    /// The request path, e.g. `/echo`.
    public var path: String
    /// The query string, if any.
    public var query: String?
    /// The client's `Sec-WebSocket-Key`.
    public var key: String
    /// The `Origin` header, sent by browsers.
    public var origin: String?
    /// The subprotocols the client offered, in its order of preference.
    public var requestedProtocols: [String]
    /// The `Sec-WebSocket-Extensions` values, joined with commas ("" when absent).
    public var extensions: String

    /// Picks the first subprotocol the client offered that the server supports (nil if none matches).
    ///
    /// - Parameter supported: the server's subprotocols.
    public func selectProtocol(from supported: [String]) -> String? {
        self.requestedProtocols.first { supported.contains($0) }
    }
}

/// Why a handshake was refused: the HTTP status and the fields to answer with.
public struct HandshakeRejection: Error, Sendable, CustomStringConvertible {
    /// The response status.
    public var status: HTTPStatus
    /// A short explanation, sent as the body.
    public var message: String
    /// Extra response fields, such as `Sec-WebSocket-Version: 13` with 426.
    public var headers: [(String, String)]

    /// - Parameters:
    ///   - status: the response status.
    ///   - message: a short explanation for the body.
    ///   - headers: extra response fields.
    public init(_ status: HTTPStatus, _ message: String, _ headers: [(String, String)] = []) {
        self.status = status
        self.message = message
        self.headers = headers
    }

    /// The full HTTP response.
    public var response: [UInt8] {
        HTTPResponse.error(self.status, message: self.message, headers: self.headers)
    }

    public var description: String { "\(self.status): \(self.message)" }
}
