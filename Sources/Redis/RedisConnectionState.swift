/// Where a `RedisClient`'s connection stands, as reported to `onStateChange`.
public enum RedisConnectionState: Hashable, Sendable {
    /// A TCP connect, or the setup after it (`AUTH`, `SELECT`, `onConnected`), is under way.
    case connecting
    /// Commands are accepted.
    case connected
    /// Not connected: stopped, or waiting to reconnect.
    case disconnected
}
