import JSONCoding

/// One entry of a room's log as the client received it (docs/PROTOCOL.md, "event").
public struct RollcallEvent: Hashable, Sendable {
    /// The room (for a meeting message, the group).
    public var room: String
    /// Its sequence number in the room's log.
    public var sequence: UInt64
    /// The event name, such as `participant.audio_muted` or `meeting.message`.
    public var name: String
    /// Milliseconds since the epoch.
    public var time: Int64
    /// Who caused it; nil for the gateway itself.
    public var actor: String?
    /// The reason a moderator gave.
    public var reason: String?
    /// The event's data.
    public var data: JSONValue
    /// Whether it was replayed by a resume after a reconnect.
    public var recovered: Bool

    /// Reads an `event` message.
    ///
    /// - Parameters:
    ///   - message: the parsed message.
    init?(message: JSONValue) {
        guard let room = message["room"]?.stringValue, let sequence = message["seq"]?.intValue,
            let name = message["event"]?.stringValue
        else { return nil }
        self.room = room
        self.sequence = UInt64(max(0, sequence))
        self.name = name
        self.time = message["time"]?.intValue ?? 0
        self.actor = message["actor"]?.stringValue
        self.reason = message["reason"]?.stringValue ?? message["data"]?["reason"]?.stringValue
        self.data = message["data"] ?? .null
        self.recovered = message["recovered"]?.boolValue ?? false
    }

    /// The event's name as the client knows it; nil for a name from a newer gateway (`name` still has it).
    public var knownName: RollcallEventName? { RollcallEventName(rawValue: self.name) }

    /// The uid the event is about (`data.uid`), when it names one.
    public var uid: String? { self.data["uid"]?.stringValue }
}
