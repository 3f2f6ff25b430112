import JSONCoding

/// An ephemeral signal (docs/PROTOCOL.md, "signal"): a reaction or an app's signal that another subscriber sent to
/// the room, or to this user. It never enters the room's log, so it has no sequence number and is not replayed after
/// a reconnect.
public struct RollcallSignal: Hashable, Sendable {
    /// The room.
    public let room: String
    /// The sender's uid, from its token.
    public let from: String
    /// The app's name for it (`reaction` for emoji reactions).
    public let kind: String
    /// What came with it; `.null` when nothing did.
    public let data: JSONValue
    /// The uid it was for when sent to one participant (this user); nil when sent to the whole room.
    public let to: String?

    /// Reads a `signal` message; nil when it lacks its room, sender or kind.
    ///
    /// - Parameter message: the parsed message.
    public init?(message: JSONValue) {
        guard let room = message["room"]?.stringValue, let from = message["from"]?.stringValue,
            let kind = message["kind"]?.stringValue
        else { return nil }
        self.room = room
        self.from = from
        self.kind = kind
        self.data = message["data"] ?? .null
        self.to = message["to"]?.stringValue
    }
}
