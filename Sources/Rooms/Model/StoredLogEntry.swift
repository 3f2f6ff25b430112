/// A log entry as a `RoomStore` keeps it: the entry, its event's wire name (for filters) and the event message
/// subscribers got when it was applied (so that history, resume and webhooks replay what was sent then).
public struct StoredLogEntry: Hashable, Sendable {
    /// The entry.
    public var entry: RoomLogEntry
    /// The event's wire name, e.g. `participant.joined`.
    public var eventName: String
    /// The event message as sent live, JSON text.
    public var message: [UInt8]
    /// The message webhooks deliver instead, when it carries more than subscribers got (the end of a session
    /// carries the attendance report, `RoomReplica.webhookMessage`); nil for every other entry.
    public var webhookMessage: [UInt8]?

    /// - Parameters:
    ///   - entry: the entry.
    ///   - eventName: the event's wire name.
    ///   - message: the event message as sent live.
    ///   - webhookMessage: the message webhooks deliver instead, if any.
    public init(entry: RoomLogEntry, eventName: String, message: [UInt8], webhookMessage: [UInt8]? = nil) {
        self.entry = entry
        self.eventName = eventName
        self.message = message
        self.webhookMessage = webhookMessage
    }
}
