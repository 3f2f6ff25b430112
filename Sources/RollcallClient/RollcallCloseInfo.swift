/// How a WebSocket connection ended.
public struct RollcallCloseInfo: Hashable, Sendable, CustomStringConvertible {
    /// The code of the Close frame received (or sent, when the client failed the connection); nil when the TCP
    /// connection dropped without a Close frame.
    public var code: UInt16?
    /// The reason text of the Close frame.
    public var reason: String
    /// Whether the close handshake completed (a Close frame went each way).
    public var wasClean: Bool
    /// Whether this side started the close.
    public var initiatedLocally: Bool

    /// Creates a close description.
    ///
    /// - Parameters:
    ///   - code: the close code, or nil for a dropped connection.
    ///   - reason: the reason text.
    ///   - wasClean: whether the close handshake completed.
    ///   - initiatedLocally: whether this side started the close.
    public init(code: UInt16?, reason: String, wasClean: Bool, initiatedLocally: Bool) {
        self.code = code
        self.reason = reason
        self.wasClean = wasClean
        self.initiatedLocally = initiatedLocally
    }

    /// A readable summary.
    public var description: String {
        (self.code.map { "close \($0)" } ?? "connection dropped") + (self.reason.isEmpty ? "" : " (\(self.reason))")
    }
}
