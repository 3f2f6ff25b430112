/// An error answered to a client: a code from the table of `GatewayErrorCode` and a human message. The connection
/// stays open.
public struct GatewayError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The stable code, e.g. `ERR_CALL_FULL`.
    public let code: GatewayErrorCode
    /// A human-readable explanation.
    public let message: String

    /// - Parameters:
    ///   - code: the code.
    ///   - message: what went wrong in particular; nil for the code's own words.
    public init(_ code: GatewayErrorCode, _ message: String? = nil) {
        self.code = code
        self.message = message ?? code.definition.message
    }

    public var description: String { "\(self.code.rawValue): \(self.message)" }

    static func badRequest(_ message: String) -> GatewayError { GatewayError(.badRequest, message) }
    static func unauthorized(_ message: String) -> GatewayError { GatewayError(.unauthorized, message) }
    static func forbidden(_ message: String) -> GatewayError { GatewayError(.forbidden, message) }
    static let notGroupMember = GatewayError(.notGroupMember)
    /// The call has no seat left for the user's role.
    public static let callFull = GatewayError(.callFull)
    static let banned = GatewayError(.banned)
    static let roomLocked = GatewayError(.roomLocked)
    /// A version-checked write (`ifSeq`) whose object changed after that version, at `sequence`.
    static func conflict(_ what: String, changedAt sequence: UInt64, ifSeq: UInt64) -> GatewayError {
        GatewayError(.conflict, "\(what) changed at seq \(sequence), after ifSeq \(ifSeq); read them again")
    }
    static let notInRoom = GatewayError(.notInRoom)
    static func notFound(_ message: String) -> GatewayError { GatewayError(.notFound, message) }
    static let roomFull = GatewayError(.roomFull)
    static let tooManyRooms = GatewayError(.tooManyRooms)
    static let tooManyConnections = GatewayError(.tooManyConnections)
    static let tooManySubscriptions = GatewayError(.tooManySubscriptions)
    static let tokenExpired = GatewayError(.tokenExpired)
    /// A single process's store cannot read the records asked for (damaged, or the disk fails).
    static let storeUnreadable = GatewayError(
        .unavailable, "the store cannot read the records asked for; try again later")
    /// A single process's store cannot commit (the disk is full or failing): nothing is changed meanwhile.
    static let storeCannotCommit = GatewayError(
        .unavailable, "the store cannot commit changes (disk full or failing); try again later")
}

/// The application close codes (4000-4999) the gateway uses, in one place; the protocol vectors
/// (`Tests/Vectors/protocol.json`) list the same, with whether a client reconnects after each.
public enum GatewayCloseCode: UInt16, Hashable, Sendable, CaseIterable {
    /// Authentication failed, or none arrived within the configured time.
    case unauthorized = 4001
    /// The token expired and was not refreshed.
    case tokenExpired = 4002
    /// A moderator removed the participant from the call.
    case removed = 4003
    /// A moderator banned the participant.
    case banned = 4004
    /// A moderator ended the session for everyone.
    case sessionEnded = 4005
    /// The client did not read its messages for `slowSubscriberTimeoutMilliseconds` (its write queue stayed full).
    case slowConsumer = 4008
    /// The server API disconnected the user (`POST /v1/api/users/{uid}/disconnect`); the client may reconnect.
    case disconnected = 4009
    /// The user has `RoomsConfiguration.maximumConnectionsPerUser` connections open already.
    case tooManyConnections = 4010

    /// Whether the close ends the session for good, so a client does not reconnect after it (the same token would
    /// be refused again, or a moderator took the user out); after the others a client reconnects and resumes.
    public var isFinal: Bool {
        switch self {
        case .unauthorized, .tokenExpired, .removed, .banned, .sessionEnded: return true
        case .slowConsumer, .disconnected, .tooManyConnections: return false
        }
    }
}
