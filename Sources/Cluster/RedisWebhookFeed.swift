import ClusterCore
import EventIO
import JSONCoding
import Redis
import Rooms

/// The webhook feed of a cluster node, in Redis: each room's entries are read from the room's stream (the shared
/// log), rendered as subscribers got them (`SharedRoomRenderer`), and each endpoint's cursor (`room → seq`) is kept
/// in a hash beside a lease (`WebhookScript`), so exactly one node delivers for an endpoint at a time and another
/// continues from the cursor once the holder's lease lapses.
///
/// Rooms with new entries are found through `P:rooms`, every room by the time of its last entry (each node brings
/// it up to date after its appends, at the end of the loop iteration): an endpoint looks at the rooms changed since it last looked, then reads the streams of those behind
/// its cursor. Confined to the delivery loop, with a Redis connection of its own.
public final class RedisWebhookFeed: WebhookFeed {
    /// The cluster's settings: Redis, key prefix, node id, lease.
    public let configuration: ClusterConfiguration
    /// Where warnings go (entries trimmed before they were delivered, a lease lost).
    public var log: ((String) -> Void)?
    /// How long an endpoint that is up to date waits before looking again, in milliseconds.
    public let idleWaitMilliseconds: Int64
    /// Between claims of an endpoint another node holds, and after a failure: a third of the lease.
    public var retryMilliseconds: Int64 { max(10, self.configuration.leaseMilliseconds / 3) }

    let loop: EventLoop
    let commands: RedisClusterClient
    let keys: RedisRoomKeys
    /// The most rooms looked at, and entries read from one stream, per command.
    let pageSize: Int
    /// The most dead letters kept per endpoint.
    let deadLetterCap: Int
    /// The most rooms whose state an endpoint keeps between reads; past it, rooms with nothing rendered and waiting
    /// are dropped (and loaded again from Redis when they have new entries).
    let maximumRooms: Int
    /// The rooms' speaker rule, for the speaking times of the attendance report.
    let speakerRule: SpeakerRule
    var scriptSHA: String?
    var endpoints: [String: Endpoint] = [:]
    /// Claims waiting for the connection and the script, by id.
    private var waitingForScript: [Int: () -> Void] = [:]
    private var nextWaiter = 0
    private var renewTimer: TimerID?
    private var isRunning = false

    /// One endpoint as this node sees it.
    final class Endpoint {
        /// Whether this node holds the lease, as of the last claim or renewal.
        var held = false
        /// When the lease ends at the latest (monotonic nanoseconds): counted from when the claim was sent.
        var leaseEnd: UInt64 = 0
        /// The cursor as this node last wrote or read it: room → last `seq` given, and its epoch.
        var cursor: [String: (sequence: UInt64, epoch: String)] = [:]
        /// Rooms changed at or after this time (milliseconds, Redis's clock) are looked at next.
        var since: Int64 = 0
        /// When the changed rooms were last looked at (monotonic nanoseconds).
        var lookedAt: UInt64 = 0
        /// Rooms behind the cursor, with their last `seq` when looked at.
        var pending: [String: UInt64] = [:]
        /// Per room: the state the entries are rendered against, and items rendered but not yet consumed.
        var rooms: [String: (renderer: SharedRoomRenderer, buffer: [WebhookFeedItem])] = [:]
        /// Rooms whose records expired: their cursor goes with the next move of the cursor.
        var expired: Set<String> = []
    }

    /// - Parameters:
    ///   - configuration: the cluster's settings (the lease is `leaseMilliseconds`).
    ///   - loop: the delivery loop.
    ///   - idleWaitMilliseconds: how long an up-to-date endpoint waits before looking again; default 20 ms.
    ///   - pageSize: the most rooms looked at, and entries read from one stream, per command; default 500.
    ///   - deadLetterCap: the most dead letters kept per endpoint; default 10,000.
    ///   - maximumRooms: the most rooms whose rendering state an endpoint keeps; default 10,000.
    public init(
        configuration: ClusterConfiguration, loop: EventLoop, idleWaitMilliseconds: Int64 = 20, pageSize: Int = 500,
        deadLetterCap: Int = 10_000, maximumRooms: Int = 10_000,
        speakerRule: SpeakerRule = RoomsConfiguration().speakerRule
    ) {
        self.speakerRule = speakerRule
        self.configuration = configuration
        self.loop = loop
        self.idleWaitMilliseconds = idleWaitMilliseconds
        self.pageSize = max(1, pageSize)
        self.deadLetterCap = max(1, deadLetterCap)
        self.maximumRooms = max(1, maximumRooms)
        self.keys = RedisRoomKeys(prefix: configuration.keyPrefix)
        self.commands = RedisClusterClient(deployment: configuration.deployment, loop: loop)
    }

    /// Connects (and keeps reconnecting), and renews the leases this node holds every third of the lease.
    public func start() {
        guard !self.isRunning else { return }
        self.isRunning = true
        self.commands.onConnected = { [unowned self] in self.loadScript() }
        self.commands.onStateChange = { [unowned self] state in
            if state == .disconnected { self.scriptSHA = nil }
        }
        self.commands.start()
        self.scheduleRenewal()
    }

    /// Stops the connection and the renewals; the leases lapse by themselves.
    public func stop() {
        guard self.isRunning else { return }
        self.isRunning = false
        if let timer = self.renewTimer { self.loop.cancelTimer(timer) }
        self.commands.stop()
        self.endpoints = [:]
        self.waitingForScript = [:]
    }

    /// Takes the endpoint's lease when it is free or lapsed (or renews it), reading its cursor when newly taken.
    ///
    /// - Parameters:
    ///   - endpoint: the endpoint's name.
    ///   - completion: whether this node holds it.
    public func claim(_ endpoint: String, completion: @escaping (Bool) -> Void) {
        let state = self.endpoints[endpoint] ?? Endpoint()
        self.endpoints[endpoint] = state
        self.runLease(endpoint, state) { [weak self] held, newly in
            guard let self, held, newly else {
                completion(held)
                return
            }
            self.commands.send(["HGETALL", self.keys.webhook(endpoint).cursor]) { result in
                guard case .success(.array(let fields?)) = result else {
                    state.held = false
                    completion(false)
                    return
                }
                state.cursor = [:]
                for index in stride(from: 0, to: fields.count - 1, by: 2) {
                    guard let room = Self.text(fields[index]), let value = Self.text(fields[index + 1]),
                        let slash = value.firstIndex(of: "/"), let sequence = UInt64(value[..<slash])
                    else { continue }
                    state.cursor[room] = (sequence, String(value[value.index(after: slash)...]))
                }
                state.since = 0
                state.pending = [:]
                state.rooms = [:]
                state.expired = []
                state.lookedAt = 0
                self.findExpiredRooms(state)
                completion(true)
            }
        }
    }

    /// Whether this node holds the endpoint's lease and it cannot have lapsed yet.
    ///
    /// - Parameter endpoint: the endpoint's name.
    public func holds(_ endpoint: String) -> Bool {
        guard let state = self.endpoints[endpoint] else { return false }
        return state.held && EventLoop.monotonicNow() < state.leaseEnd
    }

    /// Moves the cursor of every room in `consumed` to its last `seq`, and records dead letters, while this node
    /// holds the lease (`WebhookFeed.advance`).
    ///
    /// - Parameters:
    ///   - endpoint: the endpoint's name.
    ///   - consumed: the entries done with.
    ///   - delivered: the entries sent.
    ///   - deadLetterError: why they were given up on, if they were.
    ///   - time: now, in milliseconds.
    ///   - completion: true when the cursor moved, false when the lease is another node's, or the failure.
    public func advance(
        _ endpoint: String, consumed: [WebhookFeedItem], delivered: [WebhookFeedItem], deadLetterError: String?,
        time: Int64, completion: @escaping (Result<Bool, WebhookFeedError>) -> Void
    ) {
        guard let state = self.endpoints[endpoint], let sha = self.scriptSHA else {
            self.loop.execute { completion(.failure(WebhookFeedError("the shared store is unreachable"))) }
            return
        }
        var last: [String: UInt64] = [:]
        for item in consumed { last[item.room] = max(last[item.room] ?? 0, item.sequence) }
        var moved: [(room: String, sequence: UInt64, epoch: String)] = []
        for (room, sequence) in last.sorted(by: { $0.key < $1.key }) {
            guard let epoch = state.rooms[room]?.renderer.epoch else { continue }
            moved.append((room, sequence, epoch))
        }
        let keys = self.keys.webhook(endpoint)
        var arguments = [
            "EVALSHA", sha, "1", keys.lease, "advance", keys.lease, self.configuration.nodeID,
            String(self.configuration.leaseMilliseconds), keys.cursor, keys.dead, String(self.deadLetterCap),
            String(moved.count),
        ]
        let forgotten = state.expired.subtracting(moved.map(\.room)).sorted()
        arguments[arguments.count - 1] = String(moved.count + forgotten.count)
        for move in moved { arguments += [move.room, "\(move.sequence)/\(move.epoch)"] }
        for room in forgotten { arguments += [room, ""] }
        if let deadLetterError {
            for item in delivered {
                arguments.append(
                    JSONWriter.string(
                        .object(
                            JSONObject(uniqueKeysWithValues: [
                                ("room", .string(item.room)), ("seq", .int(Int64(item.sequence))), ("time", .int(time)),
                                ("error", .string(deadLetterError)),
                            ]))))
            }
        }
        let sentAt = EventLoop.monotonicNow()
        self.commands.send(arguments) { [weak self] result in
            guard let self else { return }
            switch result {
            case .success(.integer(1)):
                state.leaseEnd = sentAt + UInt64(self.configuration.leaseMilliseconds) * 1_000_000
                for room in forgotten {
                    state.expired.remove(room)
                    if state.rooms[room] == nil { state.cursor[room] = nil }
                }
                for move in moved {
                    state.cursor[move.room] = (move.sequence, move.epoch)
                    if let known = state.pending[move.room], known <= move.sequence { state.pending[move.room] = nil }
                }
                completion(.success(true))
            case .success:
                state.held = false
                completion(.success(false))
            case .failure(let error):
                completion(.failure(WebhookFeedError("cannot move the webhook cursor: \(error)")))
            }
        }
    }

    /// Marks the cursor's rooms whose records expired, a page of rooms per command, so the next move of the cursor
    /// drops them (the cursor does not grow with every room that ever was).
    func findExpiredRooms(_ state: Endpoint) {
        let rooms = state.cursor.keys.sorted()
        var start = 0
        while start < rooms.count {
            let page = Array(rooms[start..<min(start + self.pageSize, rooms.count)])
            start += page.count
            self.commands.sendAll(page.map { ["GET", self.keys.room($0).epoch] }) { results in
                for (room, result) in zip(page, results) {
                    if case .success(let value) = result, Self.text(value) == nil { state.expired.insert(room) }
                }
            }
        }
    }

    // MARK: Leases

    /// Runs the claim script; the completion gets whether the lease is held and whether it was newly taken.
    func runLease(_ endpoint: String, _ state: Endpoint, completion: @escaping (Bool, Bool) -> Void) {
        guard let sha = self.scriptSHA, self.commands.isConnected else {
            // Not connected yet (a node that just started) or reconnecting: the claim waits for the script, at most
            // a retry period, so a starting node does not lose that period.
            self.nextWaiter += 1
            let id = self.nextWaiter
            self.waitingForScript[id] = { [weak self] in self?.runLease(endpoint, state, completion: completion) }
            let wait = UInt64(self.retryMilliseconds) * 1_000_000
            self.loop.scheduleTimer(afterNanoseconds: wait) { [weak self] in
                guard self?.waitingForScript.removeValue(forKey: id) != nil else { return }
                completion(false, false)
            }
            return
        }
        let sentAt = EventLoop.monotonicNow()
        let arguments = [
            "EVALSHA", sha, "1", self.keys.webhook(endpoint).lease, "claim", self.keys.webhook(endpoint).lease,
            self.configuration.nodeID,
            String(self.configuration.leaseMilliseconds),
        ]
        self.commands.send(arguments) { [weak self] result in
            guard let self else { return }
            let held: Bool
            if case .success(.integer(1)) = result { held = true } else { held = false }
            let newly = held && !(state.held && sentAt < state.leaseEnd)
            if held {
                state.leaseEnd = sentAt + UInt64(self.configuration.leaseMilliseconds) * 1_000_000
            } else if case .success = result, state.held {
                self.log?("webhook endpoint \(endpoint): another node holds its lease now")
            }
            if case .success = result { state.held = held }
            completion(held, newly)
        }
    }

    private func scheduleRenewal() {
        let interval = UInt64(max(1, self.configuration.leaseMilliseconds / 3)) * 1_000_000
        self.renewTimer = self.loop.scheduleTimer(afterNanoseconds: interval) { [weak self] in
            guard let self, self.isRunning else { return }
            for (endpoint, state) in self.endpoints where state.held {
                self.runLease(endpoint, state) { _, _ in }
            }
            self.scheduleRenewal()
        }
    }

    private func loadScript() {
        self.commands.sendToEachPrimary(["SCRIPT", "LOAD", WebhookScript.source]) { [weak self] results in
            guard let self else { return }
            let digests = results.compactMap { _, result in (try? result.get()).flatMap(Self.text) }
            guard !results.isEmpty, digests.count == results.count, let sha = digests.first else {
                self.loop.scheduleTimer(afterNanoseconds: 100_000_000) { [weak self] in
                    guard let self, self.isRunning, self.commands.isConnected, self.scriptSHA == nil else { return }
                    self.loadScript()
                }
                return
            }
            self.scriptSHA = sha
            let waiting = self.waitingForScript
            self.waitingForScript = [:]
            for id in waiting.keys.sorted() { waiting[id]?() }
        }
    }

    /// The text of a simple or bulk string reply.
    static func text(_ value: RESPValue) -> String? { RedisRoomLog.text(value) }
}

@available(*, unavailable) extension RedisWebhookFeed: Sendable {}
