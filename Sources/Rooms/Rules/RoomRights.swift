/// What a user may do in a room, as the join's answer tells the client (`rights`), by the rules that judge its
/// requests and the way it joined (`RoomActor.rights(in:joinedAs:)`). Moderator status and permissions can change
/// later: the roster entry's `operator` and `permissions` follow them.
struct RoomRights {
    /// The role the token gives in the room.
    var role: ParticipantRole?
    /// Whether the user moderates the room (by token or promoted).
    var isOperator: Bool
    /// The moderator actions the user may take.
    var actions: [ModeratorAction]
    var mayRecord: Bool
    /// Whether the user may report anyone as speaking (bots with `speaker`).
    var mayReportAnySpeaker: Bool
    /// Whether the user may set anyone's attributes (bots with `attributes`).
    var maySetAnyAttributes: Bool
    var maySetMetadata: Bool
    var maySetPermissions: Bool
    /// Whether the user may unmute itself and share its screen: in the call, and unless a moderator took it away.
    var mayUnmute: Bool
    var mayShare: Bool
    /// Whether the user may send the room's group meeting messages, unless a moderator took it away.
    var mayPublishMeetings: Bool
    /// Whether the user joins the call while the room is locked (`RoomActor.bypassesLock`).
    var bypassesLock: Bool
    /// Whether the user may read the room's attendance (`RoomActor.mayReadAttendance`).
    var mayReadAttendance: Bool
}
