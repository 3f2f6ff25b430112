/// A user in a room's waiting room: who they say they are, as their token vouches, and when they arrived. The
/// waiting room keeps them in the order they arrived; a moderator admits or denies each.
public struct WaitingEntry: Hashable, Sendable {
    public var uid: String
    public var name: String
    public var avatar: String?
    /// The role the user's token gives in the room: the one they join with once admitted.
    public var role: ParticipantRole
    /// What the token vouches for (`attrs`), for the moderator to decide by.
    public var attributes: [String: String]
    /// When the user arrived, in milliseconds since the epoch (the time of its `waiting.entered` entry): the order of
    /// the queue, and where the wait's bound counts from.
    public var since: Int64

    public init(
        uid: String, name: String, avatar: String?, role: ParticipantRole, attributes: [String: String], since: Int64
    ) {
        self.uid = uid
        self.name = name
        self.avatar = avatar
        self.role = role
        self.attributes = attributes
        self.since = since
    }
}

/// Why a user left the waiting room without an answer.
public enum WaitingLeaveReason: String, Hashable, Sendable, CaseIterable {
    /// Its connection went, or it sent `leave`.
    case left
    /// It waited as long as the room lets anyone wait (`rooms.waiting_room.max_wait_seconds`).
    case expired
}
