import EventIO

/// Sending: each command to the node serving its key's slot, following `MOVED` and `ASK`.
extension RedisClusterClient {
    /// Sends one command to the node serving its key (any primary when it names none), following redirections.
    ///
    /// The completion always runs on the loop, never inside `send`; the outcomes are `RedisClient.send`'s, and
    /// `notConnected` when the key's primary is not connected (or the slot is served by none).
    ///
    /// - Parameters:
    ///   - arguments: the command name and its arguments; at least the name.
    ///   - timeoutMilliseconds: how long to wait for the reply; nil for the configured command timeout.
    ///   - completion: told the outcome.
    public func send(
        _ arguments: [[UInt8]], timeoutMilliseconds: Int64? = nil,
        completion: @escaping (Result<RESPValue, RedisError>) -> Void
    ) {
        self.route(arguments, timeoutMilliseconds, wait: nil, to: nil, asking: false, left: Self.maximumRedirects) {
            result, _ in completion(result)
        }
    }

    /// Sends one command that writes to the node serving its key, followed there by `WAIT` on the same connection
    /// (`RedisClient.send(_:timeoutMilliseconds:replicas:waitMilliseconds:completion:)`): in a Redis Cluster the
    /// replicas counted are those of the key's primary. After a redirection the command and its `WAIT` go to the
    /// node it was sent to.
    ///
    /// - Parameters:
    ///   - arguments: the command name and its arguments; at least the name.
    ///   - timeoutMilliseconds: how long to wait for the command's reply; nil for the configured command timeout.
    ///   - replicas: the replicas to wait for; at least 1.
    ///   - waitMilliseconds: how long `WAIT` blocks at most.
    ///   - completion: the command's outcome, and the count of replicas that acknowledged it (or why none is known).
    public func send(
        _ arguments: [[UInt8]], timeoutMilliseconds: Int64? = nil, replicas: Int, waitMilliseconds: Int64,
        completion: @escaping (Result<RESPValue, RedisError>, Result<Int, RedisError>) -> Void
    ) {
        let wait = (replicas: replicas, milliseconds: waitMilliseconds)
        self.route(arguments, timeoutMilliseconds, wait: wait, to: nil, asking: false, left: Self.maximumRedirects) {
            result, count in completion(result, count ?? .failure(.connectionLost))
        }
    }

    /// Sends one command given as text; see `send(_:timeoutMilliseconds:completion:)`.
    ///
    /// - Parameters:
    ///   - arguments: the command name and its arguments, each sent as its UTF-8 bytes.
    ///   - timeoutMilliseconds: how long to wait for the reply; nil for the configured command timeout.
    ///   - completion: told the outcome.
    public func send(
        _ arguments: [String], timeoutMilliseconds: Int64? = nil,
        completion: @escaping (Result<RESPValue, RedisError>) -> Void
    ) {
        self.send(arguments.map { Array($0.utf8) }, timeoutMilliseconds: timeoutMilliseconds, completion: completion)
    }

    /// Sends one command to one node (a primary from `primaries`), for what each node answers for itself (`SCAN`,
    /// `SCRIPT LOAD`); redirections are not followed.
    ///
    /// - Parameters:
    ///   - arguments: the command name and its arguments.
    ///   - node: the node.
    ///   - timeoutMilliseconds: how long to wait for the reply; nil for the configured command timeout.
    ///   - completion: told the outcome; `notConnected` when the client has no connection to `node`.
    public func send(
        _ arguments: [String], to node: RedisNodeAddress, timeoutMilliseconds: Int64? = nil,
        completion: @escaping (Result<RESPValue, RedisError>) -> Void
    ) {
        guard let client = self.nodes[node] else {
            self.loop.execute { completion(.failure(.notConnected)) }
            return
        }
        client.send(arguments, timeoutMilliseconds: timeoutMilliseconds, completion: completion)
    }

    /// Sends one command to every primary (`primaries`, in order), and hands over every answer at once.
    ///
    /// - Parameters:
    ///   - arguments: the command name and its arguments.
    ///   - completion: each primary with its outcome, in the order of `primaries`; empty when none is known.
    public func sendToEachPrimary(
        _ arguments: [String], completion: @escaping ([(RedisNodeAddress, Result<RESPValue, RedisError>)]) -> Void
    ) {
        let primaries = self.primaries
        guard !primaries.isEmpty else {
            self.loop.execute { completion([]) }
            return
        }
        final class Answers {
            var results: [Result<RESPValue, RedisError>?]
            var count = 0
            init(_ count: Int) { self.results = Array(repeating: nil, count: count) }
        }
        let answers = Answers(primaries.count)
        for (index, primary) in primaries.enumerated() {
            self.send(arguments, to: primary) { result in
                answers.results[index] = result
                answers.count += 1
                guard answers.count == primaries.count else { return }
                completion(zip(primaries, answers.results).map { ($0, $1 ?? .failure(.connectionLost)) })
            }
        }
    }

    /// Sends several commands at once (pipelined; in a cluster each to its key's primary) and hands over every
    /// answer at once, in the order of `commands`. For what touches keys of several slots, one command per slot.
    ///
    /// - Parameters:
    ///   - commands: the commands, each its name and arguments.
    ///   - completion: each command's outcome, in order.
    public func sendAll(
        _ commands: [[String]], completion: @escaping ([Result<RESPValue, RedisError>]) -> Void
    ) {
        guard !commands.isEmpty else {
            self.loop.execute { completion([]) }
            return
        }
        final class Answers {
            var results: [Result<RESPValue, RedisError>]
            var waiting: Int
            init(_ count: Int) {
                self.results = Array(repeating: .failure(.connectionLost), count: count)
                self.waiting = count
            }
        }
        let answers = Answers(commands.count)
        for (index, command) in commands.enumerated() {
            self.send(command) { result in
                answers.results[index] = result
                answers.waiting -= 1
                if answers.waiting == 0 { completion(answers.results) }
            }
        }
    }

    /// What a routed command waits for beside its reply: replicas (`WAIT`) and how long.
    typealias ReplicaWait = (replicas: Int, milliseconds: Int64)
    /// A routed command's outcome, and with a `ReplicaWait` the count of replicas (nil without one).
    typealias RoutedCompletion = (Result<RESPValue, RedisError>, Result<Int, RedisError>?) -> Void

    /// Sends `arguments` to `target` (or the key's primary when nil), after `ASKING` when `asking`, and deals with
    /// the redirections and retries of its reply while `left` allows; with `wait`, followed by `WAIT` there.
    private func route(
        _ arguments: [[UInt8]], _ timeout: Int64?, wait: ReplicaWait?, to target: RedisNodeAddress?, asking: Bool,
        left: Int, _ completion: @escaping RoutedCompletion
    ) {
        let address = target ?? self.address(for: arguments)
        guard let address, self.isCluster || self.nodes[address] != nil else {
            self.loop.execute { completion(.failure(.notConnected), wait.map { _ in .failure(.notConnected) }) }
            return
        }
        let client = self.node(address)
        if self.isCluster && !client.isConnected && left < Self.maximumRedirects && left > 0 {
            // A redirection's target still connecting: wait a little for it.
            self.retry(arguments, timeout, wait: wait, to: target, asking: asking, left: left, completion)
            return
        }
        if asking { client.send(["ASKING"]) { _ in } }
        let answered: RoutedCompletion = { [weak self] result, count in
            guard let self, self.isCluster, left > 0, case .failure(let error) = result,
                let message = error.serverMessage
            else {
                completion(result, count)
                return
            }
            if let redirection = RedisRedirection(message) {
                switch redirection.kind {
                case .moved:
                    self.slotMap?.assign(redirection.slot, to: redirection.target)
                    self.scheduleRefresh(afterMilliseconds: 0)
                    self.route(arguments, timeout, wait: wait, to: nil, asking: false, left: left - 1, completion)
                case .ask:
                    self.route(
                        arguments, timeout, wait: wait, to: redirection.target, asking: true, left: left - 1,
                        completion)
                }
            } else if message.hasPrefix("TRYAGAIN") || message.hasPrefix("CLUSTERDOWN") {
                if message.hasPrefix("CLUSTERDOWN") { self.scheduleRefresh(afterMilliseconds: 0) }
                self.retry(arguments, timeout, wait: wait, to: target, asking: asking, left: left, completion)
            } else {
                completion(result, count)
            }
        }
        if let wait {
            client.send(
                arguments, timeoutMilliseconds: timeout, replicas: wait.replicas, waitMilliseconds: wait.milliseconds
            ) { result, count in answered(result, count) }
        } else {
            client.send(arguments, timeoutMilliseconds: timeout) { result in answered(result, nil) }
        }
    }

    /// Routes the command again after a pause that doubles with each retry (20 ms, 40 ms, ...).
    private func retry(
        _ arguments: [[UInt8]], _ timeout: Int64?, wait: ReplicaWait?, to target: RedisNodeAddress?, asking: Bool,
        left: Int, _ completion: @escaping RoutedCompletion
    ) {
        let pause = UInt64(20 << (Self.maximumRedirects - left)) * 1_000_000
        self.loop.scheduleTimer(afterNanoseconds: pause) { [weak self] in
            guard let self, self.isStarted else {
                completion(.failure(.notConnected), wait.map { _ in .failure(.notConnected) })
                return
            }
            self.route(arguments, timeout, wait: wait, to: target, asking: asking, left: left - 1, completion)
        }
    }

    /// The node a command goes to: the one server, the primary of its key's slot, or (no key) a connected primary.
    private func address(for arguments: [[UInt8]]) -> RedisNodeAddress? {
        guard self.isCluster else { return self.singleAddress }
        guard let map = self.slotMap else { return nil }
        guard let key = RedisCommandKey.routingKey(arguments) else {
            return map.primaries.first { self.nodes[$0]?.isConnected == true } ?? map.primaries.first
        }
        return map.primary(of: RedisKeySlot.slot(of: key))
    }
}
