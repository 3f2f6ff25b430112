/// How a client is in a room.
public enum RollcallJoinKind: String, Hashable, Sendable {
    /// Joins the call: takes a seat and appears in the roster.
    case participant
    /// Watches the room without joining the call.
    case observer
}
