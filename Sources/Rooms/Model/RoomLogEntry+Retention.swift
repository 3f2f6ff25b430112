/// How long a stored event is worth keeping: roster churn matters for minutes, meeting messages and moderation for
/// much longer (a banned user, a promotion, a meeting announced to the group).
public enum RetentionClass: Int, Hashable, Sendable, CaseIterable {
    /// Joins, leaves, connections, flags, speakers: what the roster is made of.
    case roster = 0
    /// Group meeting messages.
    case meeting = 1
    /// Moderator actions: bans, promotions, removals, mutes by others, locks, the end of a session.
    case moderation = 2
}

extension RoomLogEntry {
    /// The entry's retention class; moderation also covers a flag a moderator changed for someone else.
    public var retentionClass: RetentionClass {
        switch self.event {
        case .meetingMessage:
            return .meeting
        case .banChanged, .operatorChanged, .mutedByModerator, .sessionEnded, .hardMuted, .permissionsChanged,
            .unmuteRequested, .lockChanged, .floorChanged:
            return .moderation
        case .participantLeft(_, _, let reason):
            return reason == .removed || reason == .banned ? .moderation : .roster
        case .flagChanged(let uid, _, _):
            return self.actor != nil && self.actor != uid ? .moderation : .roster
        case .recordingChanged, .audioModeChanged:
            return self.actor == nil ? .roster : .moderation
        default:
            return .roster
        }
    }

    /// The uid a moderation entry is about, if any.
    public var target: String? {
        switch self.event {
        case .banChanged(let uid, _), .operatorChanged(let uid, _), .mutedByModerator(let uid),
            .participantLeft(let uid, _, _), .flagChanged(let uid, _, _), .hardMuted(let uid, _),
            .permissionsChanged(let uid, _), .unmuteRequested(let uid):
            return uid
        default:
            return nil
        }
    }
}
