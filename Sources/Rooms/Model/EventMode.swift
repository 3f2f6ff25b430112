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
        if event.isForOperatorsOnly { return false }
        switch self {
        case .all: return true
        case .none:
            if case .meetingMessage = event { return true }
            return false
        case .notable: return event.isNotable
        }
    }

    /// Whether an event may go to some subscriber in this mode: what the mode takes, and every unmute request (it
    /// goes to the participant asked, whatever its mode). The log keeps, per mode, the newest of these it dropped.
    func mayDeliver(_ event: RoomEvent) -> Bool {
        if case .unmuteRequested = event { return true }
        return self.includes(event)
    }

    /// Whether a subscriber in this mode, of user `uid`, is sent the event when it is applied (`RoomsNode.apply`), and
    /// so again when a resume replays it: what the mode takes and the unmute requests addressed to the user, but no
    /// raw report of who speaks under the stable speaker rule (only the switches the reports cause).
    ///
    /// - Parameters:
    ///   - event: the event.
    ///   - uid: the subscriber's user.
    ///   - speakerRule: how the shown speaker follows the reports.
    func delivers(_ event: RoomEvent, to uid: String?, speakerRule: SpeakerRule) -> Bool {
        if event.isSpeakerReport && speakerRule.isStable { return false }
        if case .unmuteRequested(let target) = event, target == uid { return true }
        return self.includes(event)
    }
}
