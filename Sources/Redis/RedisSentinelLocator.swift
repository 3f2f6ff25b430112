import EventIO

/// Finds the primary that Redis Sentinel names, for a `RedisClient` to connect to; confined to one `EventLoop`.
///
/// Keeps a connection to each Sentinel (each a `RedisClient`, so it reconnects on its own) and asks them in turn
/// `SENTINEL get-master-addr-by-name`: the first that answers with an address decides, and is asked first the next
/// time. A Sentinel that is not connected, does not know the name or fails is passed over. While no Sentinel is
/// connected yet (just after `start()`), a question waits up to the connect timeout for one to be.
public final class RedisSentinelLocator {
    /// The Sentinels and the primary's name.
    public let settings: RedisSentinelSettings
    /// The loop the locator runs on.
    public let loop: EventLoop

    /// One client per Sentinel, in the order they are asked.
    private var sentinels: [RedisClient]
    private var waiting: [(Result<RedisNodeAddress, RedisError>) -> Void] = []
    private var waitTimer: TimerID?
    private let waitMilliseconds: Int64
    private var isStarted = false

    /// Creates a locator; nothing happens on the network until `start()`.
    ///
    /// - Parameters:
    ///   - settings: the Sentinels and the primary's name.
    ///   - configuration: the timeouts and limits of the Sentinels' connections (its host, port, credentials and
    ///     database are not used: Sentinels are asked without `AUTH`).
    ///   - loop: the loop the locator runs on; call every method on its thread.
    public init(settings: RedisSentinelSettings, configuration: RedisClientConfiguration, loop: EventLoop) {
        self.settings = settings
        self.loop = loop
        self.waitMilliseconds = configuration.connectTimeoutMilliseconds
        self.sentinels = settings.sentinels.map { address in
            var sentinel = configuration
            sentinel.host = address.host
            sentinel.port = address.port
            sentinel.username = nil
            sentinel.password = nil
            sentinel.database = 0
            return RedisClient(configuration: sentinel, loop: loop)
        }
        for client in self.sentinels {
            client.onStateChange = { [unowned self] state in
                if state == .connected { self.answerWaiting() }
            }
        }
    }

    /// Connects to every Sentinel, and keeps reconnecting, until `stop()`.
    public func start() {
        guard !self.isStarted else { return }
        self.isStarted = true
        for client in self.sentinels { client.start() }
    }

    /// Closes the Sentinels' connections and fails the waiting questions with `notConnected`.
    public func stop() {
        guard self.isStarted else { return }
        self.isStarted = false
        for client in self.sentinels { client.stop() }
        self.failWaiting(.notConnected)
    }

    /// Asks the Sentinels where the primary is; the completion runs on the loop, never inside this call.
    ///
    /// - Parameter completion: the primary's address, or `connectFailed` naming why no Sentinel named one.
    public func locatePrimary(_ completion: @escaping (Result<RedisNodeAddress, RedisError>) -> Void) {
        let connected = self.sentinels.filter(\.isConnected)
        guard !connected.isEmpty else {
            guard self.isStarted else {
                self.loop.execute { completion(.failure(.notConnected)) }
                return
            }
            self.waiting.append(completion)
            if self.waitTimer == nil {
                let nanoseconds = RedisClient.nanoseconds(milliseconds: self.waitMilliseconds)
                self.waitTimer = self.loop.scheduleTimer(afterNanoseconds: nanoseconds) { [weak self] in
                    guard let self else { return }
                    self.waitTimer = nil
                    let sentinels = self.settings.sentinels.map(\.description).joined(separator: ", ")
                    self.failWaiting(.connectFailed("no Sentinel answers (\(sentinels))"))
                }
            }
            return
        }
        self.ask(connected, from: 0, failures: [], completion)
    }

    private func answerWaiting() {
        guard !self.waiting.isEmpty else { return }
        if let timer = self.waitTimer { self.loop.cancelTimer(timer) }
        self.waitTimer = nil
        let waiting = self.waiting
        self.waiting = []
        for completion in waiting { self.locatePrimary(completion) }
    }

    private func failWaiting(_ error: RedisError) {
        if let timer = self.waitTimer { self.loop.cancelTimer(timer) }
        self.waitTimer = nil
        let waiting = self.waiting
        self.waiting = []
        self.loop.execute {
            for completion in waiting { completion(.failure(error)) }
        }
    }

    /// Asks `candidates[index]`, and the next ones while they cannot answer.
    private func ask(
        _ candidates: [RedisClient], from index: Int, failures: [String],
        _ completion: @escaping (Result<RedisNodeAddress, RedisError>) -> Void
    ) {
        guard index < candidates.count else {
            let reasons = failures.joined(separator: "; ")
            completion(
                .failure(.connectFailed("no Sentinel names the primary \(self.settings.primaryName): \(reasons)")))
            return
        }
        let sentinel = candidates[index]
        let name = "\(sentinel.configuration.host):\(sentinel.configuration.port)"
        sentinel.send(["SENTINEL", "get-master-addr-by-name", self.settings.primaryName]) { [weak self] result in
            guard let self else { return }
            switch result {
            case .success(let reply):
                if let address = Self.address(from: reply) {
                    self.askFirst(sentinel)
                    completion(.success(address))
                    return
                }
                let failure = "\(name) does not know \(self.settings.primaryName.debugDescription)"
                self.ask(candidates, from: index + 1, failures: failures + [failure], completion)
            case .failure(let error):
                self.ask(candidates, from: index + 1, failures: failures + ["\(name): \(error)"], completion)
            }
        }
    }

    /// Moves the Sentinel that answered to the front, as Sentinel's client guidelines ask.
    private func askFirst(_ sentinel: RedisClient) {
        guard let position = self.sentinels.firstIndex(where: { $0 === sentinel }), position > 0 else { return }
        self.sentinels.remove(at: position)
        self.sentinels.insert(sentinel, at: 0)
    }

    /// `[host, port]`, as `SENTINEL get-master-addr-by-name` answers; nil for a null or anything else.
    static func address(from reply: RESPValue) -> RedisNodeAddress? {
        guard case .array(let items?) = reply, items.count == 2,
            case .bulkString(let host?) = items[0], case .bulkString(let port?) = items[1],
            let portNumber = Int(String(decoding: port, as: UTF8.self)), (1...65_535).contains(portNumber)
        else { return nil }
        return RedisNodeAddress(host: String(decoding: host, as: UTF8.self), port: portNumber)
    }
}

@available(*, unavailable)
extension RedisSentinelLocator: Sendable {}
