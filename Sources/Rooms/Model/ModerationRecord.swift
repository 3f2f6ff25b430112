/// A moderator action the gateway carried out, as reported to `RoomsNode.onModeration` for the log.
public struct ModerationRecord: Hashable, Sendable {
    /// The room.
    public var room: String
    /// The action's wire name, e.g. `mute`.
    public var action: String
    /// Who did it: a uid, or `api:NAME` for the server API.
    public var actor: String
    /// The target uid, for actions that have one.
    public var target: String?
    /// The reason given, if any.
    public var reason: String?
    /// Whether the action changed anything (muting someone already muted does not).
    public var changed: Bool
}
