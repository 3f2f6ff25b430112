/// A command sent on the current connection and waiting for its reply.
struct RedisPendingCommand {
    /// Told the reply; nil for a subscription confirmation, which the client consumes itself.
    let completion: ((Result<RESPValue, RedisError>) -> Void)?
    /// The monotonic time (ns) after which the command has timed out.
    let deadline: UInt64

    /// Whether this entry stands for a `subscribe`/`unsubscribe` confirmation rather than a caller's command.
    var isConfirmation: Bool { self.completion == nil }
}
