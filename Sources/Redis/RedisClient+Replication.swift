/// Commands sent in one loop iteration that wait for replicas: they share the one `WAIT` sent behind them.
final class RedisReplicaWaitGroup {
    /// A member: its reply once it came, and who hears both answers.
    final class Member {
        var reply: Result<RESPValue, RedisError>?
        let completion: (Result<RESPValue, RedisError>, Result<Int, RedisError>) -> Void

        init(_ completion: @escaping (Result<RESPValue, RedisError>, Result<Int, RedisError>) -> Void) {
            self.completion = completion
        }
    }

    /// How many replicas `WAIT` asks for, and how long it blocks at most.
    let replicas: Int
    let waitMilliseconds: Int64
    /// The connection the members went out on: `WAIT` counts that connection's writes only.
    weak var connection: RedisConnection?
    var members: [Member] = []

    init(replicas: Int, waitMilliseconds: Int64, connection: RedisConnection) {
        self.replicas = replicas
        self.waitMilliseconds = waitMilliseconds
        self.connection = connection
    }
}

/// Writes acknowledged by replicas: a command followed on the same connection by `WAIT numreplicas timeout`.
extension RedisClient {
    /// Sends a command that writes, then, behind it on the same connection, `WAIT replicas waitMilliseconds`: the
    /// number of replicas that acknowledged every write of the connection so far. The commands of one loop iteration
    /// share one `WAIT` (sent at the end of the iteration, behind all of them), so a pipeline of writes pays for one
    /// round trip to the replicas, not one each.
    ///
    /// `WAIT` blocks the connection on the server until it answers, so commands that must not wait for replicas go
    /// on another client. A write is not undone when too few replicas acknowledge it: the reply says it happened on
    /// the primary, the count says how far it got.
    ///
    /// The completion runs on the loop, never inside the call, once both answers are in: the command's outcome (as
    /// `send` reports it) and the count of replicas (`WAIT`'s integer reply), or the error that kept `WAIT` from
    /// answering (`connectionLost` when the connection changed before it went out, so no count can be trusted).
    ///
    /// - Parameters:
    ///   - arguments: the command name and its arguments; at least the name.
    ///   - timeoutMilliseconds: how long to wait for the command's reply; nil for `commandTimeoutMilliseconds`.
    ///   - replicas: the replicas to wait for; at least 1.
    ///   - waitMilliseconds: how long `WAIT` blocks at most; at least 1 (`WAIT` takes 0 as "for ever").
    ///   - completion: told the command's outcome and the count of replicas.
    public func send(
        _ arguments: [[UInt8]],
        timeoutMilliseconds: Int64? = nil,
        replicas: Int,
        waitMilliseconds: Int64,
        completion: @escaping (Result<RESPValue, RedisError>, Result<Int, RedisError>) -> Void
    ) {
        let member = RedisReplicaWaitGroup.Member(completion)
        let admitted = self.admit(argumentCount: arguments.count) { result in
            member.completion(result, .failure(.connectionLost))
        }
        guard admitted, let connection = self.connection else { return }
        let wait = max(waitMilliseconds, 1)
        let replicas = max(replicas, 1)
        if let group = self.replicaWaitGroup,
            group.replicas != replicas || group.waitMilliseconds != wait || group.connection !== connection
        {
            self.sendWait(for: group)
        }
        let group: RedisReplicaWaitGroup
        if let open = self.replicaWaitGroup {
            group = open
        } else {
            group = RedisReplicaWaitGroup(replicas: replicas, waitMilliseconds: wait, connection: connection)
            self.replicaWaitGroup = group
            // The end of this iteration: the group's `WAIT` goes behind every command of the iteration.
            self.loop.execute { [weak self, weak group] in
                guard let self, let group, self.replicaWaitGroup === group else { return }
                self.sendWait(for: group)
            }
        }
        group.members.append(member)
        self.enqueue(timeoutMilliseconds: timeoutMilliseconds, completion: { result in member.reply = result }) {
            buffer in
            RESPEncoder.encodeCommand(arguments, into: &buffer)
        }
    }

    /// Closes the group and sends its `WAIT`; every member hears both answers once it comes.
    private func sendWait(for group: RedisReplicaWaitGroup) {
        if self.replicaWaitGroup === group { self.replicaWaitGroup = nil }
        let members = group.members
        func finish(_ count: Result<Int, RedisError>) {
            for member in members {
                member.completion(member.reply ?? .failure(.connectionLost), count)
            }
        }
        guard let connection = group.connection, connection === self.connection, self.acceptsCommands else {
            // The connection the members went out on is gone: their replies failed, and no count is known.
            self.loop.execute { finish(.failure(.connectionLost)) }
            return
        }
        // The client's deadline leaves `WAIT` its whole time to block, and a command's time to answer after it.
        let timeout = group.waitMilliseconds + self.configuration.commandTimeoutMilliseconds
        let arguments = ["WAIT", String(group.replicas), String(group.waitMilliseconds)]
        self.enqueue(
            timeoutMilliseconds: timeout,
            completion: { result in
                switch result {
                case .success(.integer(let count)): finish(.success(Int(count)))
                case .success(let other): finish(.failure(.protocolError("WAIT answered \(other)")))
                case .failure(let error): finish(.failure(error))
                }
            }
        ) { buffer in
            RESPEncoder.encodeCommand(arguments, into: &buffer)
        }
    }
}
