import JSONCoding

/// What a client may ask for: one JSON text frame each (see docs/PROTOCOL.md).
enum ClientMessage: Hashable {
    enum SubscriptionKind: String, Hashable {
        /// Joins the call: takes a seat and appears in the roster.
        case participant
        /// Watches the room without joining it (dashboards, lobbies).
        case observer
    }

    enum Query: Hashable {
        case rooms
        case activeMeeting(group: String)
        case members(room: String, page: MembersPage?)
        case operators(room: String)
        case muted(room: String)
        case banned(room: String)
        case history(room: String, after: UInt64, limit: Int)
        /// Moderators only: who attended the current (or last) call and for how long, a page in join order.
        case attendance(room: String, after: Int?, limit: Int)
        /// Those who may admit only: who waits in the waiting room, a page in the order they arrived.
        case waiting(room: String, after: Int?, limit: Int)
    }

    case authenticate(token: String)
    case join(
        room: String,
        kind: SubscriptionKind,
        deviceID: String,
        callType: String?,
        view: RosterViewSpec,
        events: EventMode,
        resume: Resume?
    )
    case changeView(room: String, view: RosterViewSpec)
    case leave(room: String)
    /// A change to a room (`state`, `speaker`, `media`, `meeting`, `action`); for `meeting` the room is the group.
    case command(room: String, RoomCommand)
    case query(Query)
    /// An ephemeral signal (`RoomSignal`, without its sender): fanned out at once, never in the room's log.
    case signal(room: String, RoomSignal)
    case ping
}

extension ClientMessage {
    /// Whether handling the message reads nothing of its room's state (a meeting message: only the token's
    /// groups are checked), so in a cluster it need not wait for this node's earlier changes to the room.
    var isIndependentOfRoomState: Bool {
        if case .command(_, let command) = self { return command.isIndependentOfRoomState }
        return false
    }

    /// The rooms the message reads or changes, in the order a cluster node loads them before handling it.
    var roomIDs: [String] {
        switch self {
        case .authenticate, .ping, .query(.rooms): return []
        case .join(let room, _, _, _, _, _, _), .changeView(let room, _), .leave(let room), .command(let room, _),
            .signal(let room, _):
            return [room]
        case .query(.activeMeeting(let room)), .query(.members(let room, _)), .query(.operators(let room)),
            .query(.muted(let room)), .query(.banned(let room)), .query(.history(let room, _, _)),
            .query(.attendance(let room, _, _)), .query(.waiting(let room, _, _)):
            return [room]
        }
    }
}

/// A page of the `members` query: the members in join order after the cursor `after` (an `order`; none for the
/// first page), at most `limit` of them, read at sequence number `at` (the first page's `seq`; none for now), so
/// paging while the room churns yields no duplicate and no omission against the roster at that `seq`.
struct MembersPage: Hashable {
    var after: Int?
    var limit: Int
    var at: UInt64?
}

/// A decoded request: the message and the client's correlation id (echoed in the ack or error).
struct ClientRequest {
    var id: JSONValue?
    var message: ClientMessage
}
