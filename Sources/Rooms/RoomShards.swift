import JSONCoding

/// Where rooms and sessions live when the rooms layer runs as several gateways, one per thread (shards).
///
/// A room belongs to one shard, found by a stable hash of its id; a group's meeting messages are commands to the
/// room named after the group, so one shard orders them all. Every shard knows every session (they all see its
/// opening, authentication and end); a session's own messages (its welcome, pongs, errors that are about no room)
/// and the closes for its deadlines come from one shard, its home.
public struct ShardPlacement: Sendable, Hashable {
    /// How many shards there are (at least one).
    public let count: Int

    /// - Parameter count: how many shards there are; at least one.
    public init(count: Int) {
        precondition(count >= 1, "at least one shard")
        self.count = count
    }

    /// The shard that owns a room: FNV-1a of the id's UTF-8, modulo the count, the same in every process and run.
    ///
    /// - Parameter id: the room (for a meeting message, the group).
    /// - Returns: the shard's index.
    public func shard(ofRoom id: String) -> Int {
        guard self.count > 1 else { return 0 }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in id.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        return Int(hash % UInt64(self.count))
    }

    /// The shard that answers a session's own messages and closes it for its deadlines.
    ///
    /// - Parameter session: the session.
    /// - Returns: the shard's index.
    public func home(of session: SessionID) -> Int {
        Int(session.rawValue % UInt64(self.count))
    }
}

/// One gateway's place among the shards: its index, the placement, and the decisions about sessions that every
/// shard must agree on.
public struct GatewayShard: Sendable {
    /// This gateway's index among the shards.
    public let index: Int
    /// The placement every shard uses.
    public let placement: ShardPlacement
    /// Decides each authentication once for every shard, and counts each user's connections.
    public let authority: SessionAuthority

    /// - Parameters:
    ///   - index: this gateway's index, below `authority.placement.count`.
    ///   - authority: the decisions shared by every shard.
    public init(index: Int, authority: SessionAuthority) {
        precondition(index >= 0 && index < authority.placement.count, "a shard index within the placement")
        self.index = index
        self.placement = authority.placement
        self.authority = authority
    }
}

/// A client message read on the connection's thread, for the shard it goes to.
public struct RoutedMessage: Sendable {
    enum Content: Sendable {
        /// A request for the shard's rooms (or, for `auth`, for every shard).
        case request(ClientRequest)
        /// A message that could not be read: the home shard answers with the error.
        case refused(requestID: JSONValue?, GatewayError)
        /// The `rooms` query: every shard adds the rooms it owns, and the last one answers.
        case roomsQuery(requestID: JSONValue?, RoomsQueryAnswer)
    }

    let content: Content
}

/// Where a routed message goes.
public enum ShardDestination: Sendable, Hashable {
    /// To one shard.
    case shard(Int)
    /// To every shard, in the same order as the session's other messages.
    case everyShard
}

/// Reads client messages on the connection's thread and finds the shard each goes to: a room's messages to the
/// room's shard, a meeting message to its group's shard, `auth` to every shard, `ping` and unreadable messages to
/// the session's home, the `rooms` query to every shard (each adds its rooms, the last answers).
public struct ShardRouter: Sendable {
    /// The placement of rooms and sessions.
    public let placement: ShardPlacement
    private let decoder: ClientMessageDecoder

    /// - Parameters:
    ///   - configuration: the rooms layer's settings (limits the decoder checks).
    ///   - placement: the placement of rooms and sessions.
    public init(configuration: GatewayConfiguration, placement: ShardPlacement) {
        self.placement = placement
        self.decoder = ClientMessageDecoder(configuration: configuration)
    }

    /// Reads one text message of `session` as the gateway does (`ClientMessageDecoder.read`) and says where it goes.
    ///
    /// - Parameters:
    ///   - text: the message's bytes (UTF-8, validated by the transport).
    ///   - session: the sender.
    /// - Returns: the destination and the message for it.
    public func route(_ text: UnsafeRawBufferPointer, from session: SessionID) -> (ShardDestination, RoutedMessage) {
        let home = ShardDestination.shard(self.placement.home(of: session))
        let request: ClientRequest
        switch self.decoder.read(text) {
        case .request(let read):
            request = read
        case .refused(let requestID, let error):
            return (home, RoutedMessage(content: .refused(requestID: requestID, error)))
        }
        switch request.message {
        case .authenticate:
            return (.everyShard, RoutedMessage(content: .request(request)))
        case .query(.rooms):
            let answer = RoomsQueryAnswer(parts: self.placement.count)
            return (.everyShard, RoutedMessage(content: .roomsQuery(requestID: request.id, answer)))
        default:
            guard let room = request.message.roomIDs.first else {
                return (home, RoutedMessage(content: .request(request)))
            }
            return (.shard(self.placement.shard(ofRoom: room)), RoutedMessage(content: .request(request)))
        }
    }
}
