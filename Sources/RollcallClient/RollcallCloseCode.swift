/// The gateway's close codes (docs/PROTOCOL.md, "Close codes"), for `RollcallError.closeCode`.
public enum RollcallCloseCode: UInt16, Hashable, Sendable, CaseIterable {
    /// Authentication failed or timed out.
    case unauthorized = 4001
    /// The token expired without a refresh.
    case tokenExpired = 4002
    /// A moderator removed the participant.
    case removed = 4003
    /// A moderator banned the participant.
    case banned = 4004
    /// The session was ended for everyone.
    case sessionEnded = 4005
    /// The client did not read its messages.
    case slowConsumer = 4008
    /// The server API disconnected the user; the client may reconnect.
    case disconnected = 4009
    /// The user has as many connections open as it may.
    case tooManyConnections = 4010

    /// Whether the session is over for good, so the client does not reconnect after it.
    public var isFinal: Bool {
        switch self {
        case .unauthorized, .tokenExpired, .removed, .banned, .sessionEnded: return true
        case .slowConsumer, .disconnected, .tooManyConnections: return false
        }
    }
}
