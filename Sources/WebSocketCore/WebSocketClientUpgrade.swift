/// What the server agreed to in a 101 that `WebSocketClientHandshake` accepted.
public struct WebSocketClientUpgrade: Hashable, Sendable {
    /// The subprotocol the server chose, one of those offered; nil when it chose none.
    public var subprotocol: String?
    /// The `Sec-WebSocket-Extensions` values joined with commas, "" when there are none. Unchecked: the extension's
    /// own client check decides (for permessage-deflate, `PerMessageDeflateClientParameters.validate`).
    public var extensions: String

    /// - Parameters:
    ///   - subprotocol: the subprotocol the server chose, or nil.
    ///   - extensions: the `Sec-WebSocket-Extensions` values joined with commas, "" for none.
    public init(subprotocol: String?, extensions: String) {
        self.subprotocol = subprotocol
        self.extensions = extensions
    }
}
