import TokenAuth

/// Which room events a subscriber receives besides the roster patches.
public enum EventMode: String, Hashable, Sendable {
    /// Every event of the room's log.
    case all
    /// Meeting messages, moderation, recording, session end, removals: what an app shows as a notice.
    case notable
    /// No events: the roster patches (and meeting messages) only.
    case none

    /// Whether an event goes to a subscriber in this mode. Meeting messages go to everyone.
    func includes(_ event: RoomEvent) -> Bool {
        switch self {
        case .all: return true
        case .none:
            if case .meetingMessage = event { return true }
            return false
        case .notable:
            switch event {
            case .meetingMessage, .mutedByModerator, .operatorChanged, .banChanged, .sessionEnded, .recordingChanged:
                return true
            case .participantLeft(_, _, let reason):
                return reason == .removed || reason == .banned
            case .flagChanged(_, let flag, _):
                return flag == .pinned
            default:
                return false
            }
        }
    }
}

/// One client connection, as the gateway sees it.
final class GatewaySession {
    enum AuthState {
        case awaiting(deadline: Int64)
        case authenticated(TokenClaims)
    }

    struct Subscription {
        var kind: ClientMessage.SubscriptionKind
        var deviceID: String
        var view: RosterViewSpec
        var events: EventMode
    }

    let id: SessionID
    var auth: AuthState
    var subscriptions: [String: Subscription] = [:]
    /// False while the connection's write queue is over its high watermark: roster patches are not sent then.
    var isWritable = true
    var unwritableSince: Int64?
    /// Rooms whose patches were skipped while not writable: a fresh snapshot replaces them.
    var needsResync: Set<String> = []

    init(id: SessionID, auth: AuthState) {
        self.id = id
        self.auth = auth
    }

    var claims: TokenClaims? {
        if case .authenticated(let claims) = self.auth { return claims }
        return nil
    }
}
