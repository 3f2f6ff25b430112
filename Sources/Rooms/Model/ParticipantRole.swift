/// A participant's role in a room; it comes from the token, never from a message body.
public enum ParticipantRole: String, Hashable, Sendable, CaseIterable {
    case admin
    case moderator
    case participant
    case viewer
    case bot

    /// Whether the role may moderate others in the room (mute, remove, ban, promote, pin, end).
    public var isOperator: Bool { self == .admin || self == .moderator }

    /// Whether the role takes a seat counted against the room's capacity.
    public var countsAgainstCapacity: Bool { self == .participant || self == .viewer }
}
