/// Why a client's opening handshake failed: a bad request field, or a response that does not complete the upgrade
/// (RFC 6455 §4.1). The client must fail the connection.
public struct WebSocketClientHandshakeError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Kind: Hashable, Sendable {
        case invalidHeaderField(String)
        case unexpectedStatus(Int, String)
        case missingUpgrade
        case missingConnectionUpgrade
        case wrongAccept
        case unexpectedSubprotocol(String)
        case extensionRefused(String)
    }

    private let kind: Kind

    private init(_ kind: Kind) {
        self.kind = kind
    }

    /// A header field for the request holds a line break (or its name a colon).
    ///
    /// - Parameter name: the field name.
    static func invalidHeaderField(_ name: String) -> WebSocketClientHandshakeError {
        WebSocketClientHandshakeError(.invalidHeaderField(name))
    }

    /// The server answered with another status than 101.
    ///
    /// - Parameters:
    ///   - status: the status code.
    ///   - statusLine: the whole status line.
    static func unexpectedStatus(_ status: Int, statusLine: String) -> WebSocketClientHandshakeError {
        WebSocketClientHandshakeError(.unexpectedStatus(status, statusLine))
    }

    /// The 101 lacks `Upgrade: websocket`.
    static let missingUpgrade = WebSocketClientHandshakeError(.missingUpgrade)

    /// The 101 lacks `Connection: upgrade`.
    static let missingConnectionUpgrade = WebSocketClientHandshakeError(.missingConnectionUpgrade)

    /// `Sec-WebSocket-Accept` is missing, repeated, or not the one the key calls for.
    static let wrongAccept = WebSocketClientHandshakeError(.wrongAccept)

    /// The server picked a subprotocol the client did not offer, or several.
    ///
    /// - Parameter value: the `Sec-WebSocket-Protocol` value(s) received.
    static func unexpectedSubprotocol(_ value: String) -> WebSocketClientHandshakeError {
        WebSocketClientHandshakeError(.unexpectedSubprotocol(value))
    }

    /// The server's `Sec-WebSocket-Extensions` answer is refused by the extension's own check (for
    /// permessage-deflate, `PerMessageDeflateClientParameters` in WebSocketDeflate).
    ///
    /// - Parameter reason: what the extension's check found.
    public static func extensionRefused(_ reason: String) -> WebSocketClientHandshakeError {
        WebSocketClientHandshakeError(.extensionRefused(reason))
    }

    /// The status code when the server answered with another status than 101.
    public var status: Int? {
        if case .unexpectedStatus(let status, _) = self.kind { return status }
        return nil
    }

    /// Whether the request could not be built (a header field the caller supplied), rather than the server's answer
    /// being refused.
    public var isInvalidRequest: Bool {
        if case .invalidHeaderField = self.kind { return true }
        return false
    }

    public var description: String {
        switch self.kind {
        case .invalidHeaderField(let name): return "header field \(name) holds a line break"
        case .unexpectedStatus(let status, let line): return "the server answered \(status) instead of 101: \(line)"
        case .missingUpgrade: return "the response lacks Upgrade: websocket"
        case .missingConnectionUpgrade: return "the response lacks Connection: upgrade"
        case .wrongAccept: return "Sec-WebSocket-Accept does not match the key"
        case .unexpectedSubprotocol(let value): return "the server chose a subprotocol that was not offered: \(value)"
        case .extensionRefused(let reason): return reason
        }
    }
}
