import JSONCoding

/// The gateway's `ack` to a request about a room.
public struct RollcallAcknowledgement: Hashable, Sendable {
    /// The room.
    public var room: String?
    /// The room's sequence number after the request.
    public var sequence: UInt64
    /// Whether the request changed anything (repeating a state or an action does not).
    public var changed: Bool

    /// Reads an `ack` message.
    ///
    /// - Parameters:
    ///   - message: the parsed message.
    init(message: JSONValue) {
        self.room = message["room"]?.stringValue
        self.sequence = UInt64(max(0, message["seq"]?.intValue ?? 0))
        self.changed = message["changed"]?.boolValue ?? false
    }
}
