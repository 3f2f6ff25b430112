/// The `type` of every message the gateway sends (docs/PROTOCOL.md, "Server → client"); `ServerMessages` writes
/// each with its case's raw value, and the protocol vectors (`Tests/Vectors/protocol.json`) list the same.
public enum ServerMessageType: String, Hashable, Sendable, CaseIterable {
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
    /// A join waits in the room's waiting room: its position, until the join's answer (an ack or an error).
    case waiting
}
