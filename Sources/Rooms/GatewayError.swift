/// An error answered to a client: a stable code and a human message. The connection stays open.
public struct GatewayError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The stable code, e.g. `ERR_CALL_FULL`.
    public let code: String
    /// A human-readable explanation.
    public let message: String

    public init(_ code: String, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(self.code): \(self.message)" }

    static func badRequest(_ message: String) -> GatewayError { GatewayError("ERR_BAD_REQUEST", message) }
    static func unauthorized(_ message: String) -> GatewayError { GatewayError("ERR_UNAUTHORIZED", message) }
    static func forbidden(_ message: String) -> GatewayError { GatewayError("ERR_FORBIDDEN", message) }
    static let notGroupMember = GatewayError("ERR_NOT_GROUP_MEMBER", "your token does not include this room's group")
    /// The call has no seat left for the user's role.
    public static let callFull = GatewayError("ERR_CALL_FULL", "the call is full")
    static let banned = GatewayError("ERR_BANNED", "you are banned from this room")
    static let notInRoom = GatewayError("ERR_NOT_IN_ROOM", "join or subscribe to the room first")
    static func notFound(_ message: String) -> GatewayError { GatewayError("ERR_NOT_FOUND", message) }
    static let roomFull = GatewayError("ERR_ROOM_FULL", "the room has as many subscribers as it can take")
    static let tooManyRooms = GatewayError("ERR_TOO_MANY_ROOMS", "this connection is in too many rooms")
    static let rateLimited = GatewayError("ERR_RATE_LIMITED", "too many messages; slow down")
    static let tooManyConnections = GatewayError(
        "ERR_TOO_MANY_CONNECTIONS", "this user has as many connections open as it may")
    static let tooManySubscriptions = GatewayError(
        "ERR_TOO_MANY_SUBSCRIPTIONS", "this user is in this room over as many connections as it may")
    /// A single process's store cannot read the records asked for (damaged, or the disk fails).
    static let storeUnreadable = GatewayError(
        "ERR_UNAVAILABLE", "the store cannot read the records asked for; try again later")
    /// A single process's store cannot commit (the disk is full or failing): nothing is changed meanwhile.
    static let storeCannotCommit = GatewayError(
        "ERR_UNAVAILABLE", "the store cannot commit changes (disk full or failing); try again later")
}

/// The application close codes (4000-4999) the gateway uses, in one place.
public enum GatewayCloseCode {
    /// Authentication failed, or none arrived within the configured time.
    public static let unauthorized: UInt16 = 4001
    /// The token expired and was not refreshed.
    public static let tokenExpired: UInt16 = 4002
    /// A moderator removed the participant from the call.
    public static let removed: UInt16 = 4003
    /// A moderator banned the participant.
    public static let banned: UInt16 = 4004
    /// A moderator ended the session for everyone.
    public static let sessionEnded: UInt16 = 4005
    /// The client did not read its messages for `slowSubscriberTimeoutMilliseconds` (its write queue stayed full).
    public static let slowConsumer: UInt16 = 4008
    /// The server API disconnected the user (`POST /v1/api/users/{uid}/disconnect`); the client may reconnect.
    public static let disconnected: UInt16 = 4009
    /// The user has `GatewayConfiguration.maximumConnectionsPerUser` connections open already.
    public static let tooManyConnections: UInt16 = 4010
}
