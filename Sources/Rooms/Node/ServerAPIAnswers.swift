import JSONCoding

/// What a write through the server API did: the answer of `RoomsNode.apiPublishMeeting`, `apiPublishEvent` and
/// `apiModerate`, which the server shapes into `{"room", "seq", "changed"}`.
public struct RoomChangeOutcome: Sendable, Equatable {
    /// The room written to.
    public let room: String
    /// The room's sequence number after the write (its last event's when nothing changed).
    public let sequence: UInt64
    /// Whether the write recorded events (false when the room already was as asked).
    public let changed: Bool
}

/// One room of the server API's listing (`RoomsNode.apiRooms`).
public struct RoomListingEntry: Sendable, Equatable {
    /// The room's id.
    public let room: String
    /// Its sequence number: the larger of the log's and this node's.
    public let sequence: UInt64
    /// Participants the lists show (hidden ones left out), or the log's count of seats for a room not held here.
    public let participants: Int
    /// Subscriptions to the room on this node.
    public let subscribers: Int
    /// The group meeting running in the room, when this node holds it and one is active.
    public let activeMeeting: MeetingMessage?
    /// Whether this node holds the room in memory.
    public let loaded: Bool
}

/// One page of the room listing, in id order.
public struct RoomListingPage: Sendable, Equatable {
    /// The rooms, at most the page's limit.
    public let entries: [RoomListingEntry]
    /// The id to list after for the next page, or nil when this page is the last.
    public let next: String?

    /// A page of `entries`; `next` is the last id when the page is full.
    public init(entries: [RoomListingEntry], limit: Int) {
        self.entries = entries
        self.next = entries.count == limit ? entries.last?.room : nil
    }
}

/// A room as the server API shows it (`RoomsNode.apiRoom`): its state as a subscriber's snapshot of the `all` view
/// carries it, its roster in that view, and its subscriptions on this node.
public struct RoomReport: Sendable {
    /// The snapshot message the `all` view would get now (`type` included).
    public let snapshot: JSONValue
    /// The roster of the `all` view.
    public let roster: JSONValue
    /// Subscriptions to the room on this node.
    public let subscribers: Int
}

extension MeetingMessage {
    /// The meeting's wire form, as the `meeting` event and the snapshot carry it.
    public var wireJSON: JSONValue { ServerMessages.meeting(self) }
}
