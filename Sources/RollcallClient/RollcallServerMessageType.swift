/// The `type` of every message the gateway sends (docs/PROTOCOL.md, "Server → client"); the client reads each by
/// it, and ignores a type it does not know.
public enum RollcallServerMessageType: String, Hashable, Sendable, CaseIterable {
    case welcome
    case snapshot
    case patch
    case event
    case resumed
    case ack
    case result
    case error
    case pong
    case unsubscribed
    case signal
    /// A join waits in the room's waiting room, with its position.
    case waiting
}
