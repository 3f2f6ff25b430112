import EventIO

/// A Redis client confined to one `EventLoop`: every method is called on that loop's thread, and every callback
/// and completion runs there.
///
/// `start()` connects and keeps the client connected until `stop()`: after every loss it reconnects with
/// exponential backoff and jitter, sends `AUTH` and `SELECT` as configured, calls `onConnected`, subscribes again to
/// the remembered channels, and only then reports `.connected`. Commands are pipelined: any number (up to
/// `maximumPendingCommands`) may wait, replies complete them in order, and everything sent during one loop
/// iteration is written together at its end.
///
/// Nothing is queued across reconnects: while the client is not connected, `send` fails at once with
/// `notConnected`, and a lost connection fails every waiting command with `connectionLost`. Every command has a
/// deadline; when one passes, the command fails with `timedOut` and the connection is reset, because a reply that
/// arrives late would otherwise be taken for the next command's.
public final class RedisClient {
    /// The client's settings.
    public let configuration: RedisClientConfiguration
    /// The loop the client runs on.
    public let loop: EventLoop

    /// Called on every change of state.
    public var onStateChange: ((RedisConnectionState) -> Void)?
    /// Called after each connect and reconnect once `AUTH` and `SELECT` succeeded, before the client reports
    /// `.connected`; commands sent from inside it go out before any other (for example `SCRIPT LOAD`).
    public var onConnected: (() -> Void)?
    /// Called with each pub/sub message: the channel and the payload (for pattern subscriptions made by other
    /// means, the channel the message was published to).
    public var onMessage: ((_ channel: [UInt8], _ payload: [UInt8]) -> Void)?
    /// Called when a connection attempt fails, the server refuses the setup (`AUTH`, `SELECT`), or a connection
    /// is lost or reset (`connectionLost`, `timedOut`, `protocolError`); the client goes on reconnecting.
    public var onError: ((RedisError) -> Void)?

    /// The connection's state.
    public internal(set) var state = RedisConnectionState.disconnected
    /// The channels the client is subscribed to, or will subscribe to once connected.
    public internal(set) var subscribedChannels: Set<[UInt8]> = []
    /// The shard channels (`SSUBSCRIBE`, Redis 7) the client is subscribed to, or will subscribe to once connected.
    public internal(set) var shardChannels: Set<[UInt8]> = []
    /// Called when the server ends a shard channel's subscription by itself (`sunsubscribe` pushed when the channel's
    /// slot moved to another node); the channel is forgotten, and is to be subscribed where its slot went.
    public var onShardChannelDropped: ((_ channel: [UInt8]) -> Void)?

    // The client's machinery, shared with its extensions; touched on the loop only.

    /// Between `start()` and `stop()`.
    var isStarted = false
    /// The current connection, from the connect until it is lost.
    var connection: RedisConnection?
    /// Whether `send` puts commands on the connection: from `onConnected` until the connection is lost.
    var acceptsCommands = false
    /// The commands waiting for replies on the current connection.
    var pending = RedisCommandQueue()
    /// Failed attempts since the last successful connect; sets the next reconnect delay.
    var reconnectAttempt = 0
    var reconnectTimer: TimerID?
    var connectTimer: TimerID?
    /// The deadline check, and when it fires.
    var deadlineTimer: TimerID?
    var deadlineTimerTime: UInt64 = 0
    /// Whether `subscribe` was ever called: from then on, message pushes are told apart from replies.
    var isSubscriber = false
    /// Where the Sentinels say the primary is, when they name the server.
    let sentinelLocator: RedisSentinelLocator?
    /// The primary the current or last connection went to, as the Sentinels named it.
    var primaryAddress: RedisNodeAddress?
    /// Between asking the Sentinels and connecting to the primary they named.
    var isLocatingPrimary = false
    /// When the Sentinels are asked again whether the connected server is still the primary.
    var sentinelRecheckTimer: TimerID?
    /// Commands of this loop iteration waiting for the `WAIT` that follows them (`RedisClient+Replication`).
    var replicaWaitGroup: RedisReplicaWaitGroup?

    /// Creates a client; nothing happens on the network until `start()`.
    ///
    /// With `sentinel`, the server is the primary the Sentinels name: each connect asks them first, the connection
    /// setup checks with `ROLE` that the server is a primary, and the client leaves a server that refuses a write
    /// with `READONLY` or that the Sentinels no longer name (asked every `recheckMilliseconds`), to connect to the
    /// one they name then.
    ///
    /// - Parameters:
    ///   - configuration: the server (unless `sentinel` names it) and the client's limits.
    ///   - sentinel: the Sentinels that name the server, or nil.
    ///   - loop: the loop the client runs on; call every method on its thread.
    public init(configuration: RedisClientConfiguration, sentinel: RedisSentinelSettings? = nil, loop: EventLoop) {
        self.configuration = configuration
        self.loop = loop
        self.sentinelLocator = sentinel.map {
            RedisSentinelLocator(settings: $0, configuration: configuration, loop: loop)
        }
    }

    deinit {
        self.connection?.close()
    }

    /// Whether commands are accepted (the state is `.connected`).
    public var isConnected: Bool { self.state == .connected }

    /// How many commands wait for replies.
    public var pendingCommandCount: Int { self.pending.count }

    /// Connects, and reconnects with backoff after every loss, until `stop()`. Does nothing when started.
    public func start() {
        guard !self.isStarted else { return }
        self.isStarted = true
        self.reconnectAttempt = 0
        self.sentinelLocator?.start()
        self.connect()
    }

    /// Closes the connection, fails the waiting commands with `connectionLost` (on the loop, after this returns)
    /// and stops reconnecting. The subscribed channels are kept for the next `start()`.
    public func stop() {
        guard self.isStarted else { return }
        self.isStarted = false
        if let timer = self.reconnectTimer { self.loop.cancelTimer(timer) }
        self.reconnectTimer = nil
        self.isLocatingPrimary = false
        self.sentinelLocator?.stop()
        let commands = self.dropConnection()
        self.failLater(commands.compactMap(\.completion), with: .connectionLost)
        self.changeState(to: .disconnected)
    }

    /// Sends one command. Many may wait at once; replies complete them in order.
    ///
    /// The completion always runs on the loop, never inside `send`. It gets the reply, or `.server(message)` for
    /// an error reply, or a `RedisError` for a command that was not sent (`notConnected`, `tooManyPendingCommands`,
    /// `outputBufferFull`, `invalidCommand`) or got no reply (`timedOut`, `connectionLost`).
    ///
    /// - Parameters:
    ///   - arguments: the command name and its arguments, each any bytes; at least the name.
    ///   - timeoutMilliseconds: how long to wait for the reply; nil for `commandTimeoutMilliseconds`. At least 1.
    ///   - completion: told the outcome.
    public func send(
        _ arguments: [[UInt8]],
        timeoutMilliseconds: Int64? = nil,
        completion: @escaping (Result<RESPValue, RedisError>) -> Void
    ) {
        guard self.admit(argumentCount: arguments.count, completion: completion) else { return }
        self.enqueue(timeoutMilliseconds: timeoutMilliseconds, completion: completion) { buffer in
            RESPEncoder.encodeCommand(arguments, into: &buffer)
        }
    }

    /// Sends one command given as text, each argument as its UTF-8 bytes. Many may wait at once; replies complete
    /// them in order.
    ///
    /// The completion always runs on the loop, never inside `send`; see `send(_:timeoutMilliseconds:completion:)`
    /// for the outcomes.
    ///
    /// - Parameters:
    ///   - arguments: the command name and its arguments; at least the name.
    ///   - timeoutMilliseconds: how long to wait for the reply; nil for `commandTimeoutMilliseconds`. At least 1.
    ///   - completion: told the outcome.
    public func send(
        _ arguments: [String],
        timeoutMilliseconds: Int64? = nil,
        completion: @escaping (Result<RESPValue, RedisError>) -> Void
    ) {
        guard self.admit(argumentCount: arguments.count, completion: completion) else { return }
        self.enqueue(timeoutMilliseconds: timeoutMilliseconds, completion: completion) { buffer in
            RESPEncoder.encodeCommand(arguments, into: &buffer)
        }
    }

    /// Checks that a caller's command can go out now; otherwise fails it on the loop and returns false.
    func admit(
        argumentCount: Int,
        completion: @escaping (Result<RESPValue, RedisError>) -> Void
    ) -> Bool {
        let error: RedisError
        if argumentCount == 0 {
            error = .invalidCommand("a command needs at least its name")
        } else if !self.acceptsCommands || self.connection == nil {
            error = .notConnected
        } else if self.pending.count >= self.configuration.maximumPendingCommands {
            error = .tooManyPendingCommands
        } else if let connection = self.connection,
            connection.queuedOutputBytes >= self.configuration.maximumOutputBytes
        {
            error = .outputBufferFull
        } else {
            return true
        }
        self.failLater([completion], with: error)
        return false
    }

    /// Runs `completions` with `error` on the loop, after the current call returns.
    func failLater(_ completions: [(Result<RESPValue, RedisError>) -> Void], with error: RedisError) {
        guard !completions.isEmpty else { return }
        self.loop.execute {
            for completion in completions { completion(.failure(error)) }
        }
    }
}

@available(*, unavailable)
extension RedisClient: Sendable {}
