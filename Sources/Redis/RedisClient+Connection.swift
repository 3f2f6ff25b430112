import EventIO

extension RedisClient {
    /// The shortest time between two deadline checks, so a busy pipeline does not re-arm the timer per command.
    static let deadlineCheckIntervalNanoseconds: UInt64 = 5_000_000

    // MARK: Connecting

    /// Starts a connection attempt: to the configured server, or to the primary the Sentinels name.
    func connect() {
        guard self.isStarted, self.connection == nil, !self.isLocatingPrimary else { return }
        self.reconnectTimer = nil
        self.changeState(to: .connecting)
        guard let locator = self.sentinelLocator else {
            self.open(to: RedisNodeAddress(host: self.configuration.host, port: self.configuration.port))
            return
        }
        self.isLocatingPrimary = true
        locator.locatePrimary { [weak self] result in
            guard let self, self.isLocatingPrimary else { return }
            self.isLocatingPrimary = false
            guard self.isStarted, self.connection == nil else { return }
            switch result {
            case .success(let primary):
                self.primaryAddress = primary
                self.open(to: primary)
            case .failure(let error):
                self.connectionAttemptFailed(error)
            }
        }
    }

    /// Opens the TCP connection to `server`, with the connect timeout.
    private func open(to server: RedisNodeAddress) {
        let address: SocketAddress
        switch Self.socketAddress(server) {
        case .success(let resolved):
            address = resolved
        case .failure(let error):
            self.connectionAttemptFailed(error)
            return
        }
        let connection = RedisConnection(loop: self.loop, configuration: self.configuration)
        connection.client = self
        do {
            try connection.start(to: address)
        } catch {
            self.connectionAttemptFailed(.connectFailed("\(address): \(error)"))
            return
        }
        self.connection = connection
        let timeout = Self.nanoseconds(milliseconds: self.configuration.connectTimeoutMilliseconds)
        self.connectTimer = self.loop.scheduleTimer(afterNanoseconds: timeout) { [weak self, weak connection] in
            guard let self, let connection, self.connection === connection, !connection.isOpen else { return }
            self.connectTimer = nil
            let milliseconds = self.configuration.connectTimeoutMilliseconds
            self.connectionFailed(.connectFailed("\(address): no answer within \(milliseconds) ms"))
        }
    }

    private static func socketAddress(_ server: RedisNodeAddress) -> Result<SocketAddress, RedisError> {
        guard let port = UInt16(exactly: server.port), port > 0 else {
            return .failure(.connectFailed("port \(server.port) is out of range"))
        }
        let host = server.host.lowercased() == "localhost" ? "127.0.0.1" : server.host
        guard let address = SocketAddress(ipv4: host, port: port) ?? SocketAddress(ipv6: host, port: port) else {
            return .failure(.connectFailed("host \(host.debugDescription) is not an IP address or localhost"))
        }
        return .success(address)
    }

    /// The TCP connection is up: sends `AUTH` and `SELECT` as configured (and `ROLE`, when the Sentinels named the
    /// server), then finishes the setup once they succeeded.
    func connectionDidOpen(_ connection: RedisConnection) {
        guard connection === self.connection else { return }
        if let timer = self.connectTimer { self.loop.cancelTimer(timer) }
        self.connectTimer = nil
        var setup: [(name: String, arguments: [String])] = []
        if let password = self.configuration.password {
            setup.append(("AUTH", ["AUTH"] + (self.configuration.username.map { [$0] } ?? []) + [password]))
        }
        if self.configuration.database != 0 {
            setup.append(("SELECT", ["SELECT", String(self.configuration.database)]))
        }
        if self.sentinelLocator != nil {
            setup.append(("ROLE", ["ROLE"]))
        }
        guard !setup.isEmpty else {
            self.finishSetup(connection)
            return
        }
        for (index, command) in setup.enumerated() {
            let isLast = index == setup.count - 1
            self.enqueue(
                timeoutMilliseconds: nil,
                completion: { [weak self, weak connection] result in
                    guard let self, let connection, self.connection === connection else { return }
                    switch result {
                    case .success(let reply):
                        if command.name == "ROLE", let refusal = Self.refusalAsPrimary(reply) {
                            self.connectionFailed(.notPrimary(refusal))
                            return
                        }
                        if isLast { self.finishSetup(connection) }
                    case .failure(let error):
                        // A connection failure was reported already; a refusal is reported here.
                        guard let message = error.serverMessage else { return }
                        self.connectionFailed(.handshakeFailed("\(command.name): \(message)"))
                    }
                }
            ) { buffer in
                RESPEncoder.encodeCommand(command.arguments, into: &buffer)
            }
        }
    }

    /// Accepts commands, lets `onConnected` send its own first, subscribes again, and reports `.connected`.
    private func finishSetup(_ connection: RedisConnection) {
        self.reconnectAttempt = 0
        self.acceptsCommands = true
        self.onConnected?()
        guard self.connection === connection else { return }
        if !self.subscribedChannels.isEmpty {
            self.sendSubscription("SUBSCRIBE", Array(self.subscribedChannels))
        }
        if !self.shardChannels.isEmpty {
            self.sendSubscription("SSUBSCRIBE", Array(self.shardChannels))
        }
        self.scheduleSentinelRecheck()
        self.changeState(to: .connected)
    }

    // MARK: Replies

    /// Completes the oldest waiting command with `value`, or hands a pub/sub message to `onMessage`.
    func connection(_ connection: RedisConnection, didReceive value: RESPValue) {
        guard connection === self.connection else { return }
        if self.isSubscriber, let message = Self.pubSubMessage(value) {
            if self.subscribedChannels.contains(message.channel) || self.shardChannels.contains(message.channel)
                || message.isPattern
            {
                self.onMessage?(message.channel, message.payload)
            }
            return
        }
        if self.isSubscriber, let channel = Self.serverShardUnsubscribe(value),
            self.pending.isEmpty || self.pending.first?.isConfirmation == false
        {
            // Not the confirmation of an SUNSUBSCRIBE of ours: the server dropped the subscription.
            if self.shardChannels.remove(channel) != nil { self.onShardChannelDropped?(channel) }
            return
        }
        guard let command = self.pending.popFirst() else {
            self.connectionFailed(.protocolError("a reply arrived that no command waited for"))
            return
        }
        if case .error(let message) = value {
            command.completion?(.failure(.server(message)))
            if self.sentinelLocator != nil, message.hasPrefix("READONLY"), self.connection === connection {
                self.connectionFailed(.notPrimary("a write was refused: \(message)"))
            }
        } else {
            command.completion?(.success(value))
        }
    }

    /// A `message` or `pmessage` push: its channel and payload.
    private static func pubSubMessage(
        _ value: RESPValue
    ) -> (channel: [UInt8], payload: [UInt8], isPattern: Bool)? {
        guard case .array(let elements?) = value, let first = elements.first, case .bulkString(let kind?) = first
        else { return nil }
        switch (kind, elements.count) {
        case (Array("message".utf8), 3), (Array("smessage".utf8), 3):
            guard case .bulkString(let channel?) = elements[1], case .bulkString(let payload?) = elements[2] else {
                return nil
            }
            return (channel, payload, false)
        case (Array("pmessage".utf8), 4):
            guard case .bulkString(let channel?) = elements[2], case .bulkString(let payload?) = elements[3] else {
                return nil
            }
            return (channel, payload, true)
        default:
            return nil
        }
    }

    /// The channel of an `sunsubscribe` push, which is either the confirmation of an `SUNSUBSCRIBE` or the server
    /// ending the subscription because the channel's slot moved.
    private static func serverShardUnsubscribe(_ value: RESPValue) -> [UInt8]? {
        guard case .array(let elements?) = value, elements.count == 3, case .bulkString(let kind?) = elements[0],
            kind.elementsEqual("sunsubscribe".utf8), case .bulkString(let channel?) = elements[1]
        else { return nil }
        return channel
    }

    // MARK: Sending

    /// Puts a command on the connection and its completion behind the waiting ones, with its deadline.
    ///
    /// - Parameters:
    ///   - timeoutMilliseconds: the command's timeout; nil for the configured one.
    ///   - completion: told the reply; nil for a subscription confirmation.
    ///   - encode: appends the encoded command to the output buffer.
    func enqueue(
        timeoutMilliseconds: Int64?,
        completion: ((Result<RESPValue, RedisError>) -> Void)?,
        encode: (inout [UInt8]) -> Void
    ) {
        guard let connection = self.connection else { return }
        let milliseconds = timeoutMilliseconds ?? self.configuration.commandTimeoutMilliseconds
        let deadline = EventLoop.monotonicNow() &+ Self.nanoseconds(milliseconds: milliseconds)
        self.pending.append(RedisPendingCommand(completion: completion, deadline: deadline))
        connection.enqueue(encode)
        self.armDeadlineTimer(at: deadline)
    }

    /// Sends `SUBSCRIBE` or `UNSUBSCRIBE` for `channels`, expecting one confirmation per channel. Shard channels
    /// (`SSUBSCRIBE`, `SUNSUBSCRIBE`) go one a command: in a cluster, channels of different slots cannot share one.
    func sendSubscription(_ command: String, _ channels: [[UInt8]]) {
        guard !channels.isEmpty, self.connection != nil else { return }
        if channels.count > 1 && command.hasPrefix("S") {
            for channel in channels { self.sendSubscription(command, [channel]) }
            return
        }
        let name = Array(command.utf8)
        self.enqueue(timeoutMilliseconds: nil, completion: nil) { buffer in
            RESPEncoder.encodeCommand([name] + channels, into: &buffer)
        }
        // The first confirmation is the entry just queued; the others follow it.
        let timeout = Self.nanoseconds(milliseconds: self.configuration.commandTimeoutMilliseconds)
        for _ in 1..<channels.count {
            let deadline = EventLoop.monotonicNow() &+ timeout
            self.pending.append(RedisPendingCommand(completion: nil, deadline: deadline))
        }
    }

    // MARK: Deadlines

    /// Makes sure the deadline check runs by `deadline` (a little later when checks would come too close).
    private func armDeadlineTimer(at deadline: UInt64) {
        if self.deadlineTimer != nil, self.deadlineTimerTime <= deadline { return }
        if let timer = self.deadlineTimer { self.loop.cancelTimer(timer) }
        let now = EventLoop.monotonicNow()
        let fireTime = max(deadline, now &+ Self.deadlineCheckIntervalNanoseconds)
        self.deadlineTimerTime = fireTime
        self.deadlineTimer = self.loop.scheduleTimer(afterNanoseconds: fireTime &- now) { [weak self] in
            guard let self else { return }
            self.deadlineTimer = nil
            self.checkDeadlines()
        }
    }

    /// Resets the connection when a waiting command's deadline passed; otherwise waits for the next deadline.
    private func checkDeadlines() {
        guard let earliest = self.pending.earliestDeadline() else { return }
        guard earliest <= EventLoop.monotonicNow() else {
            self.armDeadlineTimer(at: earliest)
            return
        }
        self.connectionFailed(.timedOut)
    }

    // MARK: Losing the connection

    /// The connection failed: reported by the connection itself (closed, reset, malformed reply).
    func connection(_ connection: RedisConnection, didFailWith error: RedisError) {
        guard connection === self.connection else { return }
        self.connectionFailed(error)
    }

    /// Closes the connection, fails the waiting commands, reports `error`, and schedules a reconnect.
    ///
    /// Commands whose deadline passed fail with `timedOut`; after a malformed reply, the command it answered fails
    /// with the protocol error; every other command fails with `connectionLost`.
    func connectionFailed(_ error: RedisError) {
        let commands = self.dropConnection()
        self.connectionAttemptFailed(error)
        let now = EventLoop.monotonicNow()
        for (index, command) in commands.enumerated() {
            guard let completion = command.completion else { continue }
            if error == .timedOut && command.deadline <= now {
                completion(.failure(.timedOut))
            } else if index == 0 && error.isProtocolError {
                completion(.failure(error))
            } else {
                completion(.failure(.connectionLost))
            }
        }
    }

    /// Reports a failed or lost connection and schedules the next attempt.
    private func connectionAttemptFailed(_ error: RedisError) {
        self.changeState(to: .disconnected)
        self.onError?(error)
        self.scheduleReconnect()
    }

    /// Closes the connection and cancels its timers; returns the commands that were waiting.
    func dropConnection() -> [RedisPendingCommand] {
        self.connection?.close()
        self.connection = nil
        self.acceptsCommands = false
        if let timer = self.connectTimer { self.loop.cancelTimer(timer) }
        self.connectTimer = nil
        if let timer = self.deadlineTimer { self.loop.cancelTimer(timer) }
        self.deadlineTimer = nil
        if let timer = self.sentinelRecheckTimer { self.loop.cancelTimer(timer) }
        self.sentinelRecheckTimer = nil
        return self.pending.removeAll()
    }

    private func scheduleReconnect() {
        guard self.isStarted, self.reconnectTimer == nil, self.connection == nil else { return }
        let delay = Self.reconnectDelay(attempt: self.reconnectAttempt, configuration: self.configuration)
        self.reconnectAttempt += 1
        self.reconnectTimer = self.loop.scheduleTimer(afterNanoseconds: Self.nanoseconds(milliseconds: delay)) {
            [weak self] in
            self?.connect()
        }
    }

    /// The delay before reconnect attempt `attempt` (0 after a connection was lost): the initial delay doubled
    /// per attempt up to the maximum, of which a random part between a half and all is used.
    static func reconnectDelay(attempt: Int, configuration: RedisClientConfiguration) -> Int64 {
        let initial = max(configuration.reconnectInitialDelayMilliseconds, 1)
        let maximum = max(configuration.reconnectMaximumDelayMilliseconds, initial)
        let (grown, overflow) = initial.multipliedReportingOverflow(by: Int64(1) << min(attempt, 32))
        let ceiling = overflow ? maximum : min(grown, maximum)
        return ceiling - Int64.random(in: 0...(ceiling / 2))
    }

    func changeState(to state: RedisConnectionState) {
        guard state != self.state else { return }
        self.state = state
        self.onStateChange?(state)
    }

    /// `milliseconds` as nanoseconds, at least one millisecond and at most about 292 years.
    static func nanoseconds(milliseconds: Int64) -> UInt64 {
        UInt64(min(max(milliseconds, 1), Int64.max / 1_000_000)) * 1_000_000
    }
}
