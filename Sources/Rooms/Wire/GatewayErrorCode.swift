/// Every error code the gateway answers with, in one table: the code on the wire, the HTTP status the server API
/// answers it with, and the words a client gets when the error says nothing more particular.
///
/// WebSocket clients get `{"type":"error","code":...,"message":...}` and stay connected; the server API answers
/// `{"code":...,"message":...}` with the code's status. A new code is a case here and its row in `definition`; the
/// protocol vectors (`Tests/Vectors/protocol.json`) list every code with its status, and docs/PROTOCOL.md and
/// docs/API.md say when each is answered.
public enum GatewayErrorCode: String, Hashable, Sendable, CaseIterable {
    case badRequest = "ERR_BAD_REQUEST"
    case unauthorized = "ERR_UNAUTHORIZED"
    case tokenExpired = "ERR_TOKEN_EXPIRED"
    case notGroupMember = "ERR_NOT_GROUP_MEMBER"
    case callFull = "ERR_CALL_FULL"
    case banned = "ERR_BANNED"
    case roomLocked = "ERR_ROOM_LOCKED"
    case forbidden = "ERR_FORBIDDEN"
    case notInRoom = "ERR_NOT_IN_ROOM"
    case notFound = "ERR_NOT_FOUND"
    case conflict = "ERR_CONFLICT"
    case floorTaken = "ERR_FLOOR_TAKEN"
    case admissionDenied = "ERR_ADMISSION_DENIED"
    case waitExpired = "ERR_WAIT_EXPIRED"
    case waitingRoomFull = "ERR_WAITING_ROOM_FULL"
    case methodNotAllowed = "ERR_METHOD_NOT_ALLOWED"
    case tooManyRooms = "ERR_TOO_MANY_ROOMS"
    case roomFull = "ERR_ROOM_FULL"
    case tooManyConnections = "ERR_TOO_MANY_CONNECTIONS"
    case tooManySubscriptions = "ERR_TOO_MANY_SUBSCRIPTIONS"
    case tooLarge = "ERR_TOO_LARGE"
    case rateLimited = "ERR_RATE_LIMITED"
    case unavailable = "ERR_UNAVAILABLE"
    case busy = "ERR_BUSY"

    /// A code's row: its HTTP status on the server API and its words.
    public struct Definition: Hashable, Sendable {
        /// The HTTP status of the server API's answer.
        public let httpStatus: Int
        /// The message when the error has nothing more particular to say.
        public let message: String
    }

    /// The table: 400 malformed, 401 not authenticated, 403 not allowed (a lock, a denied admission too), 404 not there, 405 wrong
    /// method, 408 a wait for admission ran out, 409 the request does not fit the connection's state or names a stale version, 413 past a size limit,
    /// 429 past a count or rate limit (the call's seats, the room's subscribers, the user's connections, signals per
    /// second), 503 try again.
    public var definition: Definition {
        switch self {
        case .badRequest: Definition(httpStatus: 400, message: "the request is malformed")
        case .unauthorized: Definition(httpStatus: 401, message: "authentication is required")
        case .tokenExpired: Definition(httpStatus: 401, message: "token expired")
        case .notGroupMember: Definition(httpStatus: 403, message: "your token does not include this room's group")
        case .callFull: Definition(httpStatus: 429, message: "the call is full")
        case .banned: Definition(httpStatus: 403, message: "you are banned from this room")
        case .roomLocked: Definition(httpStatus: 403, message: "the room is locked: a moderator must unlock it first")
        case .forbidden: Definition(httpStatus: 403, message: "you may not do this")
        case .notInRoom: Definition(httpStatus: 409, message: "join or subscribe to the room first")
        case .notFound: Definition(httpStatus: 404, message: "not found")
        case .conflict:
            Definition(
                httpStatus: 409, message: "it changed after the version you named (ifSeq); read it and try again")
        case .floorTaken:
            Definition(httpStatus: 409, message: "someone else is presenting and the room lets one present at a time")
        case .admissionDenied: Definition(httpStatus: 403, message: "a moderator did not let you into the call")
        case .waitExpired:
            Definition(httpStatus: 408, message: "nobody let you into the call in time; join again to wait again")
        case .waitingRoomFull:
            Definition(httpStatus: 429, message: "the waiting room holds as many as it can; try again later")
        case .methodNotAllowed: Definition(httpStatus: 405, message: "this resource does not take that method")
        case .tooManyRooms: Definition(httpStatus: 429, message: "this connection is in too many rooms")
        case .roomFull: Definition(httpStatus: 429, message: "the room has as many subscribers as it can take")
        case .tooManyConnections:
            Definition(httpStatus: 429, message: "this user has as many connections open as it may")
        case .tooManySubscriptions:
            Definition(httpStatus: 429, message: "this user is in this room over as many connections as it may")
        case .tooLarge: Definition(httpStatus: 413, message: "the change is past a size limit")
        case .rateLimited: Definition(httpStatus: 429, message: "too many of these too fast; wait a moment")
        case .unavailable: Definition(httpStatus: 503, message: "the room's store cannot be read or written; try again")
        case .busy: Definition(httpStatus: 503, message: "the room has too many requests waiting; try again")
        }
    }
}
