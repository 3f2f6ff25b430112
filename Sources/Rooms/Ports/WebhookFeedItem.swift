/// One committed log entry as webhooks deliver it: the event message exactly as the room's subscribers got it.
public struct WebhookFeedItem: Hashable, Sendable {
    /// The entry's place in the feed, for the `Rollcall-Delivery` header (which percent-encodes it): the commit
    /// position in the embedded store, `room:seq` in a cluster.
    public var marker: String
    /// The room it belongs to.
    public var room: String
    /// Its sequence number in the room.
    public var sequence: UInt64
    /// When it was applied, in milliseconds since the epoch.
    public var time: Int64
    /// The event's wire name (`participant.joined`, ...).
    public var eventName: String
    /// The event message as subscribers got it, JSON text.
    public var message: [UInt8]

    /// - Parameters:
    ///   - marker: the entry's place in the feed.
    ///   - room: the room.
    ///   - sequence: its sequence number in the room.
    ///   - time: when it was applied, in milliseconds since the epoch.
    ///   - eventName: the event's wire name.
    ///   - message: the event message, JSON text.
    public init(marker: String, room: String, sequence: UInt64, time: Int64, eventName: String, message: [UInt8]) {
        self.marker = marker
        self.room = room
        self.sequence = sequence
        self.time = time
        self.eventName = eventName
        self.message = message
    }
}
