import EventIO

/// A Redis client for a deployment: one server, or a Redis Cluster, confined to one `EventLoop` as `RedisClient` is.
///
/// Against one server it is one `RedisClient` (which asks the Sentinels for the server when they name it). Against a Redis Cluster it learns the slot map from a seed
/// (`CLUSTER SLOTS`), keeps one `RedisClient` per primary, and sends each command to the primary serving its key's
/// slot (the key is found as `RedisCommandKey` says; a command without a key goes to any primary). A `MOVED` reply
/// updates the map for that slot, refreshes the whole map, and sends the command again where it was told; an `ASK`
/// reply sends it once to the target after `ASKING`; `TRYAGAIN` and `CLUSTERDOWN` are tried again shortly. At most
/// `maximumRedirects` redirections or retries per command. The map is also refreshed when a primary's connection is
/// lost (a failover promotes a replica: it appears in the new map), and every `topologyRefreshMilliseconds`.
///
/// The state is `.connected` while the map covers every slot and every primary's connection is up; `onConnected`
/// runs on each change to it (after a failover or a reconnect too). Pub/sub: `subscribe` is Redis's ordinary pub/sub
/// (in a cluster a message published on any node reaches the subscribers of every node); `subscribeShard` is sharded
/// pub/sub in a cluster (`SSUBSCRIBE` on the primary serving the channel's slot, moved when the slot moves; messages
/// stay within that shard), and ordinary pub/sub against one server. Publish to a shard channel with
/// `shardPublishCommand`.
public final class RedisClusterClient {
    /// Where Redis is, and the settings of every connection.
    public let deployment: RedisDeployment
    /// The loop the client runs on.
    public let loop: EventLoop
    /// How often a cluster's slot map is read again while nothing prompts it, in milliseconds.
    public var topologyRefreshMilliseconds: Int64 = 5_000
    /// The most redirections (`MOVED`, `ASK`) and retries (`TRYAGAIN`, `CLUSTERDOWN`, a target still connecting) of
    /// one command.
    public static let maximumRedirects = 5

    /// Called on every change of state.
    public var onStateChange: ((RedisConnectionState) -> Void)?
    /// Called each time the client becomes `.connected`, before `onStateChange` reports it.
    public var onConnected: (() -> Void)?
    /// Called with each pub/sub message: the channel and the payload.
    public var onMessage: ((_ channel: [UInt8], _ payload: [UInt8]) -> Void)?
    /// Called with every connection's failures, and with slot map refreshes that failed.
    public var onError: ((RedisError) -> Void)?

    /// The client's state: `.connected` when every slot's primary can be reached.
    public internal(set) var state = RedisConnectionState.disconnected
    /// The cluster's slot map as last read (with the `MOVED` seen since); nil against one server, or before the first.
    public internal(set) var slotMap: RedisSlotMap?

    // The client's machinery, shared with its extensions; touched on the loop only.

    /// A connection per node talked to: the primaries, and seeds or `ASK` targets while they are needed.
    var nodes: [RedisNodeAddress: RedisClient] = [:]
    var isStarted = false
    var refreshInFlight = false
    var refreshTimer: TimerID?
    var periodicTimer: TimerID?
    /// Whether `subscribe` or `subscribeShard` was called: the connections are for pub/sub only.
    var isSubscriber = false
    var channels: Set<[UInt8]> = []
    var shardChannels: Set<[UInt8]> = []
    /// The node the ordinary channels are subscribed on, and each shard channel's.
    var channelHome: RedisNodeAddress?
    var shardChannelHome: [[UInt8]: RedisNodeAddress] = [:]

    /// Creates a client; nothing happens on the network until `start()`.
    ///
    /// - Parameters:
    ///   - deployment: one server or a cluster's seeds, and the connections' settings.
    ///   - loop: the loop the client runs on; call every method on its thread.
    public init(deployment: RedisDeployment, loop: EventLoop) {
        self.deployment = deployment
        self.loop = loop
    }

    /// A client of one server.
    ///
    /// - Parameters:
    ///   - configuration: the server and the connection's settings.
    ///   - loop: the loop the client runs on.
    public convenience init(configuration: RedisClientConfiguration, loop: EventLoop) {
        self.init(deployment: RedisDeployment(configuration: configuration), loop: loop)
    }

    /// Whether this is a Redis Cluster's client.
    public var isCluster: Bool { self.deployment.isCluster }

    /// Whether commands can reach every slot (the state is `.connected`).
    public var isConnected: Bool { self.state == .connected }

    /// The command that publishes to a shard channel: `SPUBLISH` in a cluster, `PUBLISH` against one server.
    public var shardPublishCommand: String { self.isCluster ? "SPUBLISH" : "PUBLISH" }

    /// The primaries: the one server, or the cluster's as the slot map has them.
    public var primaries: [RedisNodeAddress] {
        guard self.isCluster else { return [self.singleAddress] }
        return self.slotMap?.primaries ?? []
    }

    /// How many commands wait for replies, over every connection.
    public var pendingCommandCount: Int { self.nodes.values.reduce(0) { $0 + $1.pendingCommandCount } }

    var singleAddress: RedisNodeAddress {
        RedisNodeAddress(host: self.deployment.configuration.host, port: self.deployment.configuration.port)
    }

    /// Connects, and keeps connecting, until `stop()`: to the server, or to the cluster's seeds and then its
    /// primaries. Does nothing when started.
    public func start() {
        guard !self.isStarted else { return }
        self.isStarted = true
        for client in self.nodes.values { client.start() }
        if self.isCluster {
            self.changeState(to: .connecting)
            for seed in self.deployment.clusterSeeds ?? [] { _ = self.node(seed) }
            self.schedulePeriodicRefresh()
        } else {
            _ = self.node(self.singleAddress)
        }
    }

    /// Closes every connection and fails their waiting commands with `connectionLost`; the subscriptions are kept
    /// for the next `start()`.
    public func stop() {
        guard self.isStarted else { return }
        self.isStarted = false
        for timer in [self.refreshTimer, self.periodicTimer].compactMap({ $0 }) { self.loop.cancelTimer(timer) }
        self.refreshTimer = nil
        self.periodicTimer = nil
        for client in self.nodes.values { client.stop() }
        self.nodes = [:]
        self.channelHome = nil
        self.shardChannelHome = [:]
        self.slotMap = nil
        self.refreshInFlight = false
        self.changeState(to: .disconnected)
    }

    /// The connection to `address`, made (and started, when the client is) when there is none.
    func node(_ address: RedisNodeAddress) -> RedisClient {
        if let client = self.nodes[address] { return client }
        var configuration = self.deployment.configuration
        configuration.host = address.host
        configuration.port = address.port
        let sentinel = self.isCluster ? nil : self.deployment.sentinel
        let client = RedisClient(configuration: configuration, sentinel: sentinel, loop: self.loop)
        client.onStateChange = { [unowned self] state in self.nodeChanged(address, to: state) }
        client.onMessage = { [unowned self] channel, payload in self.onMessage?(channel, payload) }
        client.onError = { [unowned self] error in self.onError?(error) }
        client.onShardChannelDropped = { [unowned self] channel in self.shardChannelDropped(channel) }
        self.nodes[address] = client
        if self.isStarted { client.start() }
        if !self.isCluster && self.isSubscriber {
            client.subscribe(Array(self.channels) + Array(self.shardChannels))
        }
        return client
    }

    /// A node's connection changed: the client's state follows, and a cluster's map is read when it is missing or a
    /// primary was lost.
    private func nodeChanged(_ address: RedisNodeAddress, to state: RedisConnectionState) {
        if self.isCluster {
            if state == .connected && self.slotMap == nil {
                self.refreshSlotMap()
            } else if state == .disconnected && self.primaries.contains(address) {
                self.scheduleRefresh(afterMilliseconds: 100)
            }
        }
        self.updateState()
    }

    /// Works out the client's state from the map and the connections.
    func updateState() {
        guard self.isStarted else { return }
        let state: RedisConnectionState
        if !self.isCluster {
            state = self.nodes[self.singleAddress]?.state ?? .disconnected
        } else if let map = self.slotMap, map.coversEverySlot {
            state =
                map.primaries.allSatisfy { self.nodes[$0]?.isConnected == true } ? .connected : .disconnected
        } else {
            state = self.state == .connected ? .disconnected : self.state
        }
        self.changeState(to: state)
    }

    func changeState(to state: RedisConnectionState) {
        guard state != self.state else { return }
        self.state = state
        if state == .connected { self.onConnected?() }
        guard self.state == state else { return }
        self.onStateChange?(state)
    }
}

@available(*, unavailable)
extension RedisClusterClient: Sendable {}
