/// Why the gateway took a subscription out of its room (`{"type":"unsubscribed"}`): the client does not join the
/// room again on its own, so it never fights the connection that took the room over.
public enum RollcallUnsubscribeReason: Hashable, Sendable, CustomStringConvertible {
    /// The same user and device joined the room from another connection, which holds the device now: an app shows
    /// "you joined from another window".
    case replaced
    /// A refreshed token no longer gives access to the room.
    case accessRevoked
    /// A reason this version of the client does not know, as the gateway sent it.
    case other(String)

    /// Every reason this version of the client knows.
    public static let known: [RollcallUnsubscribeReason] = [.replaced, .accessRevoked]

    /// Reads the `reason` of an `unsubscribed` message.
    init(wireValue: String) {
        switch wireValue {
        case "replaced": self = .replaced
        case "access_revoked": self = .accessRevoked
        default: self = .other(wireValue)
        }
    }

    /// The reason as the gateway sends it.
    public var description: String {
        switch self {
        case .replaced: return "replaced"
        case .accessRevoked: return "access_revoked"
        case .other(let text): return text
        }
    }
}
