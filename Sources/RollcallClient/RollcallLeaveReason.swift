/// Why a participant's device left (the `data.reason` of `participant.left` and `session.timed_out`; docs/PROTOCOL.md,
/// "event"); `RollcallEvent.leaveReason` reads it.
public enum RollcallLeaveReason: String, Hashable, Sendable, CaseIterable {
    /// The client said so (`leave`).
    case left
    /// The socket dropped and did not come back within the grace period (`session.timed_out`).
    case timedOut = "timed_out"
    /// The client closed its socket and did not come back within the grace period.
    case connectionClosed = "connection_closed"
    /// A moderator removed the user.
    case removed
    /// A moderator banned the user.
    case banned
    /// A moderator ended the session for everyone; `session.ended` follows.
    case sessionEnded = "session_ended"
    /// A refreshed token no longer names the room.
    case accessRevoked = "access_revoked"
}
