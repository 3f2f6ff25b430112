import ClusterCore
import EventIO
import JSONCoding
import Redis
import Rooms

/// The shared log of a cluster, in Redis: each room's log is a Redis Stream appended by an atomic script that numbers
/// the entries, checks the seats and device ownership, and publishes each entry on the room's channel. Every node
/// that follows a room applies the entries in order with the same reducer, so all nodes hold the same roster and
/// hand out the same sequence numbers.
///
/// Confined to the gateway's event loop. What arrives goes through a `SharedLogFollower`, which delivers each
/// room's entries to the delegate in order: a gap (a lost pub/sub message, a reconnect) is filled from the stream
/// from the last applied sequence number; a gap that cannot be filled (the stream was trimmed past it, or the
/// room's records were lost) reloads the room, and its subscribers get a fresh snapshot.
public final class RedisRoomLog: FollowingSharedLog {
    /// The cluster's settings: Redis, key prefix, node id, lease, expiry, checkpoints.
    public let configuration: ClusterConfiguration
    /// Seats, grace period and history, as every node applies them.
    let rules: SharedRoomRules
    let loop: EventLoop
    let commands: RedisClusterClient
    let subscriber: RedisClusterClient
    /// With `replicaAcks` above 0, the connections the appends go on, each followed by `WAIT` (which blocks its
    /// connection on the server, so the lease, reads and checkpoints stay on `commands`); nil otherwise.
    let replicated: RedisClusterClient?
    /// Whether the node can trust its subscription, for `/readyz` (`RedisRoomLog+Probe`).
    public let subscriptionHealth = SharedLogHealth()
    /// The probe on its way through this node's subscription: its payload, the channels it must come back on, and
    /// when it is due back (monotonic nanoseconds).
    var probe: (payload: [UInt8], channels: Set<[UInt8]>, deadline: UInt64)?
    /// Counts the probes sent, for their payloads.
    var probesSent: UInt64 = 0
    /// The probe channels subscribed, one per primary in a Redis Cluster.
    var probeChannels: Set<[UInt8]> = []
    var probeTimer: TimerID?
    /// Whether the subscription (re)connected since the last probe tick: its subscriptions may still be on their way.
    var subscriberJustConnected = true
    let keys: RedisRoomKeys
    /// Follows this node's rooms: delivery in order, gaps, reloads.
    public let follower = SharedLogFollower()
    /// The digest of `RoomLogScript` once Redis has it.
    var scriptSHA: String?
    /// Appends waiting for, or on their way in, their room's script call, by room.
    var appendQueues: [String: RoomAppendQueue] = [:]
    /// Rooms appended to since `P:rooms` was last brought up to date, and whether that is scheduled.
    var roomsToIndex: [String] = []
    var indexScheduled = false
    /// The rooms this node knows to be in its set of rooms (`P:{nodes}:N:rooms`), so a join there needs no `SADD`.
    var roomsRegistered: Set<String> = []
    /// Script calls that carried appends (each one or more proposals of one room).
    var appendCalls = 0
    var leaseTimer: TimerID?
    var pollTimer: TimerID?
    var isRunning = false

    /// - Parameters:
    ///   - configuration: the cluster's settings.
    ///   - rules: the rooms' capacity, reserved seats, reconnect grace period and history, which every node of the
    ///     cluster must agree on (`SharedRoomRules(gatewayConfiguration)`).
    ///   - loop: the gateway's event loop; every call to the log, and every call it makes to its delegate, happens
    ///     on it.
    public init(configuration: ClusterConfiguration, rules: SharedRoomRules, loop: EventLoop) {
        self.configuration = configuration
        self.rules = rules
        self.loop = loop
        self.keys = RedisRoomKeys(prefix: configuration.keyPrefix)
        self.commands = RedisClusterClient(deployment: configuration.deployment, loop: loop)
        self.subscriber = RedisClusterClient(deployment: configuration.deployment, loop: loop)
        self.replicated =
            configuration.replicaAcks > 0 ? RedisClusterClient(deployment: configuration.deployment, loop: loop) : nil
        self.follower.reader = self
    }

    /// Whether the node can trust what it receives (`SharedLogService.health`): its subscription's probes.
    public var health: SharedLogHealth? { self.subscriptionHealth }

    /// Whether the command connections are up and the script is loaded.
    public var isAvailable: Bool {
        self.commands.isConnected && self.scriptSHA != nil && self.replicated?.isConnected != false
    }

    /// Connects (and keeps reconnecting), renews this node's lease and reaps dead nodes. Call on the loop.
    public func start() {
        guard !self.isRunning else { return }
        self.isRunning = true
        self.commands.onConnected = { [unowned self] in self.loadScript() }
        self.commands.onStateChange = { [unowned self] state in
            if state == .disconnected {
                self.scriptSHA = nil
                self.log?("shared store connection lost; reconnecting")
            }
        }
        self.subscriber.onMessage = { [unowned self] channel, payload in
            self.received(channel: channel, payload: payload)
        }
        self.subscriber.onConnected = { [unowned self] in
            // Entries published while the subscription was down are read from the streams.
            self.follower.subscriptionRestored()
            self.subscriberJustConnected = true
        }
        self.subscriber.subscribe([Array(self.keys.controlChannel.utf8)])
        self.commands.start()
        self.subscriber.start()
        self.replicated?.start()
        self.scheduleLease()
        self.schedulePoll()
        self.scheduleProbe()
    }

    /// Stops the connections and timers. Call on the loop.
    public func stop() {
        guard self.isRunning else { return }
        self.isRunning = false
        if let timer = self.leaseTimer { self.loop.cancelTimer(timer) }
        if let timer = self.pollTimer { self.loop.cancelTimer(timer) }
        if let timer = self.probeTimer { self.loop.cancelTimer(timer) }
        self.probe = nil
        self.commands.stop()
        self.subscriber.stop()
        self.replicated?.stop()
    }

    // MARK: SharedRoomLog

    /// Follows a room: listens for its entries, then loads it (`SharedRoomLog.follow`).
    ///
    /// - Parameter roomID: the room.
    public func follow(_ roomID: String) {
        guard !self.follower.isFollowing(roomID) else { return }
        self.subscriber.subscribeShard([Array(self.keys.channel(roomID).utf8)])
        self.follower.follow(roomID)
    }

    /// Stops following a room (`SharedRoomLog.unfollow`).
    ///
    /// - Parameter roomID: the room.
    public func unfollow(_ roomID: String) {
        guard self.follower.unfollow(roomID) else { return }
        self.subscriber.unsubscribeShard([Array(self.keys.channel(roomID).utf8)])
    }

    /// Appends events through the store's atomic check-and-append (`SharedRoomLog.append`). The appends of one room
    /// that arrive while its previous call is on its way, or within one loop iteration, go to Redis in one call
    /// (`RedisRoomLog+Batching`), each checked and appended as if it were alone; calls of different rooms are
    /// pipelined on the connection.
    ///
    /// - Parameters:
    ///   - proposal: the events and their conditions.
    ///   - completion: the last sequence number, or the failure; on the gateway's thread, never inside the call.
    public func append(_ proposal: LogProposal, completion: @escaping (Result<UInt64, LogAppendFailure>) -> Void) {
        guard self.isAvailable else {
            self.loop.execute { [weak self] in self?.follower.appendFailed(completion: completion) }
            return
        }
        self.enqueue(proposal, completion: completion)
    }

    /// Asks every other node to close a user's connections (`SharedRoomLog.disconnect`).
    ///
    /// - Parameters:
    ///   - uid: the user.
    ///   - reason: the close reason.
    public func disconnect(uid: String, reason: String?) {
        let message = JSONWriter.bytes(
            .object(
                JSONObject(uniqueKeysWithValues: [
                    ("op", .string("disconnect")), ("node", .string(self.configuration.nodeID)), ("uid", .string(uid)),
                    ("reason", reason.map { .string($0) } ?? .null),
                ])))
        self.commands.send([Array("PUBLISH".utf8), Array(self.keys.controlChannel.utf8), message]) {
            [weak self] result in
            if case .failure(let error) = result {
                self?.log?("cannot ask the other nodes to disconnect a user: \(error)")
            }
        }
    }

    /// A message to every node: a user to disconnect.
    func receivedControl(_ payload: [UInt8]) {
        guard let value = try? JSONParser.parse(payload, limits: SharedLogEntry.limits),
            value["op"]?.stringValue == "disconnect", value["node"]?.stringValue != self.configuration.nodeID,
            let uid = value["uid"]?.stringValue
        else { return }
        self.delegate?.sharedLogDisconnect(uid: uid, reason: value["reason"]?.stringValue)
    }

    /// A call of `RoomLogScript`: `EVALSHA` with its routing key (`KEYS[1]`), the mode, the key prefix, the publish
    /// command of the deployment, and the mode's arguments.
    func scriptCall(_ sha: String, key: String, _ mode: String, _ arguments: [String]) -> [String] {
        ["EVALSHA", sha, "1", key, mode, self.configuration.keyPrefix, self.commands.shardPublishCommand] + arguments
    }

    /// The text of a simple or bulk string reply.
    static func text(_ value: RESPValue) -> String? {
        switch value {
        case .simpleString(let text): return text
        case .bulkString(let bytes?): return String(decoding: bytes, as: UTF8.self)
        default: return nil
        }
    }
}

@available(*, unavailable) extension RedisRoomLog: Sendable {}
