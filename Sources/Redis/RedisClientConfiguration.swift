/// Settings of one Redis connection.
public struct RedisClientConfiguration: Sendable {
    /// The server's address: an IPv4 or IPv6 literal, or `localhost` (127.0.0.1); names are not resolved.
    public var host: String = "127.0.0.1"
    /// The server's TCP port.
    public var port: Int = 6379
    /// The ACL user for `AUTH`; nil authenticates with the password alone (the `default` user).
    public var username: String? = nil
    /// When set, `AUTH` is sent on every connect and reconnect before anything else.
    public var password: String? = nil
    /// When non-zero, `SELECT` is sent on every connect and reconnect, after `AUTH`.
    public var database: Int = 0
    /// How long the TCP connect may take.
    public var connectTimeoutMilliseconds: Int64 = 1_000
    /// How long a command may wait for its reply unless `send` says otherwise.
    public var commandTimeoutMilliseconds: Int64 = 1_000
    /// The first reconnect delay; each failed attempt doubles it, up to `reconnectMaximumDelayMilliseconds`. Each
    /// delay is drawn between half and all of its value, so clients that lost the same server spread out.
    public var reconnectInitialDelayMilliseconds: Int64 = 50
    /// The longest reconnect delay.
    public var reconnectMaximumDelayMilliseconds: Int64 = 2_000
    /// The most commands waiting for replies; further ones fail at once with `tooManyPendingCommands`.
    public var maximumPendingCommands: Int = 100_000
    /// The most encoded bytes waiting for the socket; further commands fail at once with `outputBufferFull`.
    public var maximumOutputBytes: Int = 64 * 1024 * 1024
    /// The longest bulk string accepted in a reply.
    public var maximumReplyBulkBytes: Int = 64 * 1024 * 1024
    /// The largest reply held while its bytes arrive (an array of many bulk strings may pass one bulk's bound);
    /// a larger one is a protocol error and resets the connection.
    public var maximumReplyBytes: Int = 256 * 1024 * 1024

    /// The defaults: `127.0.0.1:6379`, database 0, no password.
    public init() {}
}
