/// The roster view filters (docs/PROTOCOL.md, "Roster views"), for `RollcallView`.
public enum RollcallViewFilter: String, Hashable, Sendable, CaseIterable {
    /// The whole roster.
    case all
    /// Admins, moderators and promoted participants.
    case operators
    /// Participants with audio muted.
    case muted
    /// Participants a moderator muted.
    case moderatorMuted = "moderator_muted"
    /// Participants who may not unmute themselves (a hard mute).
    case restricted
    /// Banned users.
    case banned
    /// Participants with a hand raised, in the hand queue's order.
    case raisedHands = "raised_hands"
    /// Participants sharing their screen.
    case presenters
    /// The active speaker, as shown.
    case speakers
    /// Participants who left.
    case left
    /// Participants whose name matches the view's `query`.
    case search
    /// Who waits in the waiting room, in arrival order (for those who may admit).
    case waiting
}
