/// Which room events a subscription receives besides roster patches (docs/PROTOCOL.md, "join").
public enum RollcallEventMode: String, Hashable, Sendable {
    /// Every event of the room's log.
    case all
    /// Meeting messages, moderation, recording, pins, removals and bans.
    case notable
    /// Meeting messages only.
    case none
}
