import JSONCoding

/// Where rooms and sessions live when the rooms layer runs as several gateways, one per thread (rooms threads).
///
/// A room belongs to one rooms thread, found by a stable hash of its id; a group's meeting messages are commands to the
/// room named after the group, so one rooms thread orders them all. Every rooms thread knows every session (they all see its
/// opening, authentication and end); a session's own messages (its welcome, pongs, errors that are about no room)
/// and the closes for its deadlines come from one rooms thread, its home.
public struct RoomThreadPlacement: Sendable, Hashable {
    /// How many rooms threads there are (at least one).
    public let count: Int

    /// - Parameter count: how many rooms threads there are; at least one.
    public init(count: Int) {
        precondition(count >= 1, "at least one rooms thread")
        self.count = count
    }

    /// The rooms thread that owns a room: FNV-1a of the id's UTF-8, modulo the count, the same in every process and run.
    ///
    /// - Parameter id: the room (for a meeting message, the group).
    /// - Returns: the rooms thread's index.
    public func roomThread(ofRoom id: String) -> Int {
        guard self.count > 1 else { return 0 }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in id.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        return Int(hash % UInt64(self.count))
    }

    /// The rooms thread that answers a session's own messages and closes it for its deadlines.
    ///
    /// - Parameter session: the session.
    /// - Returns: the rooms thread's index.
    public func home(of session: SessionID) -> Int {
        Int(session.rawValue % UInt64(self.count))
    }
}

/// One gateway's place among the rooms threads: its index, the placement, and the decisions about sessions that every
/// rooms thread must agree on.
public struct RoomThreadPlace: Sendable {
    /// This gateway's index among the rooms threads.
    public let index: Int
    /// The placement every rooms thread uses.
    public let placement: RoomThreadPlacement
    /// Decides each authentication once for every rooms thread, and counts each user's connections.
    public let authority: SessionAuthority

    /// - Parameters:
    ///   - index: this gateway's index, below `authority.placement.count`.
    ///   - authority: the decisions shared by every rooms thread.
    public init(index: Int, authority: SessionAuthority) {
        precondition(index >= 0 && index < authority.placement.count, "a rooms thread index within the placement")
        self.index = index
        self.placement = authority.placement
        self.authority = authority
    }
}

/// A client message read on the connection's thread, for the rooms thread it goes to.
public struct RoutedMessage: Sendable {
    enum Content: Sendable {
        /// A request for the rooms thread's rooms (or, for `auth`, for every rooms thread).
        case request(ClientRequest)
        /// A message that could not be read: the home rooms thread answers with the error.
        case refused(requestID: JSONValue?, GatewayError)
        /// The `rooms` query: every rooms thread adds the rooms it owns, and the last one answers.
        case roomsQuery(requestID: JSONValue?, RoomsQueryAnswer)
    }

    let content: Content
}

/// Where a routed message goes.
public enum RoomThreadDestination: Sendable, Hashable {
    /// To one rooms thread.
    case roomThread(Int)
    /// To every rooms thread, in the same order as the session's other messages.
    case everyRoomThread
}

/// Reads client messages on the connection's thread and finds the rooms thread each goes to: a room's messages to the
/// room's rooms thread, a meeting message to its group's rooms thread, `auth` to every rooms thread, `ping` and unreadable messages to
/// the session's home, the `rooms` query to every rooms thread (each adds its rooms, the last answers).
public struct RoomThreadRouter: Sendable {
    /// The placement of rooms and sessions.
    public let placement: RoomThreadPlacement
    private let decoder: ClientMessageDecoder

    /// - Parameters:
    ///   - configuration: the rooms layer's settings (limits the decoder checks).
    ///   - placement: the placement of rooms and sessions.
    public init(configuration: RoomsConfiguration, placement: RoomThreadPlacement) {
        self.placement = placement
        self.decoder = ClientMessageDecoder(configuration: configuration)
    }

    /// Reads one text message of `session` as the gateway does (`ClientMessageDecoder.read`) and says where it goes.
    ///
    /// - Parameters:
    ///   - text: the message's bytes (UTF-8, validated by the transport).
    ///   - session: the sender.
    /// - Returns: the destination and the message for it.
    public func route(_ text: UnsafeRawBufferPointer, from session: SessionID) -> (RoomThreadDestination, RoutedMessage)
    {
        let home = RoomThreadDestination.roomThread(self.placement.home(of: session))
        let request: ClientRequest
        switch self.decoder.read(text) {
        case .request(let read):
            request = read
        case .refused(let requestID, let error):
            return (home, RoutedMessage(content: .refused(requestID: requestID, error)))
        }
        switch request.message {
        case .authenticate:
            return (.everyRoomThread, RoutedMessage(content: .request(request)))
        case .query(.rooms):
            let answer = RoomsQueryAnswer(parts: self.placement.count)
            return (.everyRoomThread, RoutedMessage(content: .roomsQuery(requestID: request.id, answer)))
        default:
            guard let room = request.message.roomIDs.first else {
                return (home, RoutedMessage(content: .request(request)))
            }
            return (.roomThread(self.placement.roomThread(ofRoom: room)), RoutedMessage(content: .request(request)))
        }
    }
}
