/// Every error code the gateway answers with (docs/PROTOCOL.md, "ack, result, error, welcome, pong"), for
/// `RollcallError.serverErrorCode`.
public enum RollcallServerErrorCode: String, Hashable, Sendable, CaseIterable {
    /// Malformed JSON, an unknown type or field, a wrong type, a value too long.
    case badRequest = "ERR_BAD_REQUEST"
    /// Not authenticated yet, or the token failed verification.
    case unauthorized = "ERR_UNAUTHORIZED"
    /// The token expired without a refresh (the connection closes with 4002).
    case tokenExpired = "ERR_TOKEN_EXPIRED"
    /// The token gives no access to this room or group.
    case notGroupMember = "ERR_NOT_GROUP_MEMBER"
    /// No seat left for the user's role.
    case callFull = "ERR_CALL_FULL"
    /// The user is banned from this room.
    case banned = "ERR_BANNED"
    /// The room is locked: a new join into the call is refused but for moderators and bots with `lock`.
    case roomLocked = "ERR_ROOM_LOCKED"
    /// The request needs a moderator or a bot capability.
    case forbidden = "ERR_FORBIDDEN"
    /// The request needs the room joined first.
    case notInRoom = "ERR_NOT_IN_ROOM"
    /// The target is not in the call, or the room does not exist.
    case notFound = "ERR_NOT_FOUND"
    /// A version-checked write (`ifSeq`): the attributes, metadata or permissions changed after that sequence
    /// number; nothing was changed.
    case conflict = "ERR_CONFLICT"
    /// The room lets one participant present at a time (the presenter floor) and someone else is presenting.
    case floorTaken = "ERR_FLOOR_TAKEN"
    /// A moderator turned the join away from the room's waiting room; the message carries the reason.
    case admissionDenied = "ERR_ADMISSION_DENIED"
    /// The join waited in the waiting room as long as the room lets anyone wait; join again to wait again.
    case waitExpired = "ERR_WAIT_EXPIRED"
    /// The room's waiting room holds as many as it may.
    case waitingRoomFull = "ERR_WAITING_ROOM_FULL"
    /// The server API's resource does not take that method.
    case methodNotAllowed = "ERR_METHOD_NOT_ALLOWED"
    /// The connection is in as many rooms as it may be.
    case tooManyRooms = "ERR_TOO_MANY_ROOMS"
    /// The room has as many participants and observers as it takes.
    case roomFull = "ERR_ROOM_FULL"
    /// The user has as many connections open as it may (the connection closes with 4010).
    case tooManyConnections = "ERR_TOO_MANY_CONNECTIONS"
    /// The user is in this room over as many connections as it may be.
    case tooManySubscriptions = "ERR_TOO_MANY_SUBSCRIPTIONS"
    /// Attributes, metadata or a signal's data past their limits.
    case tooLarge = "ERR_TOO_LARGE"
    /// Past a rate: more signals from this user to the room than the gateway takes per second.
    case rateLimited = "ERR_RATE_LIMITED"
    /// The room's store could not be read or did not answer; try again.
    case unavailable = "ERR_UNAVAILABLE"
    /// Too many requests wait for the same room; try again.
    case busy = "ERR_BUSY"
}
