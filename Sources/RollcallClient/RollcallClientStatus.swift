/// Where a client's connection stands.
public enum RollcallClientStatus: Hashable, Sendable {
    /// Not started yet.
    case idle
    /// Connecting and authenticating for the first time.
    case connecting
    /// Connected and authenticated.
    case connected
    /// The connection dropped; waiting before attempt `attempt` of the reconnect policy.
    case reconnecting(attempt: Int)
    /// Closed for good: by `close()`, by the server (for example 4003 when removed), or after the last attempt.
    case closed(RollcallCloseInfo?)
}
