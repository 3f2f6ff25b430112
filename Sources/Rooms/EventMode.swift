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
        case .notable: return event.isNotable
        }
    }
}
