/// An event a node asks the shared log to append, with who caused it and the condition it depends on.
public struct ProposedEvent: Hashable, Sendable {
    public var event: RoomEvent
    public var actor: String?
    public var reason: String?
    /// The event only makes sense while this node still holds the device it is about (a lost connection, a leave
    /// at the end of the grace period): if the device came back through another node, the append is refused.
    public var requiresDeviceOwnership: Bool

    public init(_ event: RoomEvent, actor: String?, reason: String? = nil, requiresDeviceOwnership: Bool = false) {
        self.event = event
        self.actor = actor
        self.reason = reason
        self.requiresDeviceOwnership = requiresDeviceOwnership
    }
}

/// Events to append to one room's shared log, all or none.
public struct LogProposal: Hashable, Sendable {
    public var room: String
    public var events: [ProposedEvent]
    /// Append only if the log's last sequence number is still this one (for changes every node may propose at the
    /// same moment, such as the switch of the shown speaker: one wins, the others are refused).
    public var expectedSequence: UInt64?

    public init(room: String, events: [ProposedEvent], expectedSequence: UInt64? = nil) {
        self.room = room
        self.events = events
        self.expectedSequence = expectedSequence
    }
}

/// Why the shared log refused or failed an append.
public enum LogAppendFailure: Error, Hashable, Sendable {
    /// A condition did not hold (`expectedSequence`, device ownership): nothing was appended, nothing is wrong.
    case conditionFailed
    /// An answer for the client (for example `ERR_CALL_FULL` from the shared admission check, or
    /// `ERR_UNAVAILABLE` when the shared store cannot be reached).
    case refused(GatewayError)
}

/// The log a cluster of gateway nodes shares: every node appends to it and applies what it delivers, in order.
///
/// The gateway calls these from its own thread; the implementation calls the gateway's `sharedLog…` methods on the
/// same thread. Entries are delivered to the gateway exactly in sequence order, each once; a room whose entries
/// cannot all be delivered (its log was trimmed or lost in between) is reloaded with `sharedLogLoaded`.
public protocol SharedRoomLog: AnyObject {
    /// The gateway needs this room: load its latest checkpoint and the entries after it (`Gateway.sharedLogLoaded`
    /// or `Gateway.sharedLogFailed`), then deliver every later entry (`Gateway.sharedLogReceived`).
    ///
    /// - Parameter room: the room id.
    func follow(_ room: String)

    /// The gateway forgot the room: stop delivering its entries.
    ///
    /// - Parameter room: the room id.
    func unfollow(_ room: String)

    /// Appends events; the completion gets the sequence number of the last one appended once it is in the shared
    /// log (the entries themselves arrive through `Gateway.sharedLogReceived`), or the failure.
    ///
    /// - Parameters:
    ///   - proposal: the events and their conditions.
    ///   - completion: called on the gateway's thread, never inside the call.
    func append(_ proposal: LogProposal, completion: @escaping (Result<UInt64, LogAppendFailure>) -> Void)

    /// Asks every other node to close a user's connections (`Gateway.sharedLogDisconnect` there), for the server
    /// API's disconnect; best effort.
    ///
    /// - Parameters:
    ///   - uid: the user.
    ///   - reason: the close reason.
    func disconnect(uid: String, reason: String?)
}

extension GatewayError {
    /// The shared store of a cluster cannot be reached or did not answer in time; the client may try again.
    public static let unavailable = GatewayError(
        "ERR_UNAVAILABLE", "the cluster's shared store is unreachable or did not answer; try again"
    )
    /// Too many requests wait for one room on this node.
    public static let busy = GatewayError("ERR_BUSY", "the room has too many requests waiting; try again")
}
