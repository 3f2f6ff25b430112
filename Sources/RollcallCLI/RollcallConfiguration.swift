import Cluster
import Redis
import Rooms
import WebSocketServer

/// Everything `rollcall serve` is configured with: the transport, the rooms layer and token verification.
public struct RollcallConfiguration: Sendable {
    /// Listeners, TLS, loops, timeouts and transport limits.
    public var server = ServerConfiguration()
    /// Capacity, grace period, history and per-connection limits of rooms.
    public var rooms = RoomsConfiguration()
    /// Token verification.
    public var auth = AuthSettings()
    /// The WebSocket path of the rooms protocol.
    public var gatewayPath = "/v1/ws"
    /// Rooms threads: rooms are spread over them by a hash of their id. Above 1 not in a cluster.
    public var roomThreads = 1
    /// Whether `/dashboard` serves the live dashboard page.
    public var dashboardEnabled = true
    /// Keys of the server API.
    public var api = APISettings()
    /// The log level.
    public var log = LogSettings()
    /// On SIGTERM or SIGINT, how long `/readyz` answers 503 while everything else keeps running, before the
    /// listeners close, in milliseconds.
    public var drainDelayMilliseconds: Int = 0
    /// Cluster mode: several nodes share rooms through Redis. Off (single process) by default.
    public var cluster = ClusterSettings()
    /// The embedded store of a single process (`storage.path`); off when the path is empty.
    public var storage = StorageSettings()
    /// Webhook endpoints fed from the store's log.
    public var webhooks = WebhookSettings()

    /// The defaults of config/rollcall.conf's keys.
    public init() {}
}

/// Cluster mode's settings as configured; `redisURL` empty keeps the single-process default.
public struct ClusterSettings: Sendable {
    /// `redis://[:password@]host[:port][/db]`; empty: no cluster.
    public var redisURL = ""
    /// The prefix of every key the cluster writes in Redis (`cluster.key_prefix`).
    public var keyPrefix = "rollcall"
    /// This node's id; empty: random per start.
    public var nodeID = ""
    /// A node that has not renewed its lease for this long counts as dead (`cluster.lease_ms`).
    public var leaseMilliseconds: Int64 = 5_000
    /// Shared records of a room no node uses expire after this long (`cluster.room_expiry_ms`; 0: never).
    public var roomExpiryMilliseconds: Int64 = 86_400_000
    /// A room's checkpoint goes to Redis every this many entries (`cluster.checkpoint_interval`).
    public var checkpointInterval = 100
    /// How long a Redis call may take before it fails (`cluster.call_timeout_ms`).
    public var callTimeoutMilliseconds: Int64 = 1_000
    /// Replicas that must confirm an append before it is acknowledged (`cluster.replica_acks`; 0: none).
    public var replicaAcks = 0
    /// How long an append waits for them (`cluster.replica_ack_timeout_ms`).
    public var replicaAckTimeoutMilliseconds: Int64 = 500
    /// How often the node probes its own subscription (`cluster.probe_interval_ms`; 0: never).
    public var probeIntervalMilliseconds: Int64 = 1_000

    /// The defaults of the `[cluster]` keys.
    public init() {}
}

/// How tokens are checked.
public struct AuthSettings: Sendable {
    /// HS256 keys as `kid:secret` (or a bare secret for tokens without `kid`). The first key signs `rollcall token`.
    public var keys: [String] = []
    /// Required `iss`, if set.
    public var issuer: String?
    /// Required `aud`, if set.
    public var audience: String?
    /// Clock leeway for `exp`, `nbf` and `iat`, in seconds.
    public var leewaySeconds: Int = 30
    /// Whether the development key may sign tokens on listeners beyond loopback (`auth.allow_development_key`, for
    /// a lab network); without it such a start is refused.
    public var allowsDevelopmentKeyBeyondLoopback = false

    public init() {}

    /// The key shipped in config/rollcall.conf for development. Its secret is public: the server refuses to listen
    /// beyond loopback with it, and warns while it is in use.
    public static let developmentKey = "dev:rollcall-development-key-change-me"

    /// The entry of `keys` whose secret is the development key's, whatever its kid; nil when none is.
    public var developmentKeyInUse: String? {
        let secret = Self.developmentKey.split(separator: ":", maxSplits: 1).last
        return self.keys.first { $0.split(separator: ":", maxSplits: 1).last == secret }
    }
}

extension RollcallConfiguration {
    /// The cluster's settings for the rooms layer, or nil in the single-process default.
    ///
    /// - Throws: `ConfigError` when the Redis URL cannot be read.
    func clusterConfiguration() throws(ConfigError) -> ClusterConfiguration? {
        guard !self.cluster.redisURL.isEmpty else { return nil }
        var deployment: RedisDeployment
        do {
            deployment = try RedisDeployment(url: self.cluster.redisURL)
        } catch {
            throw ConfigError("cluster.redis_url: \(error.description)")
        }
        deployment.configuration.commandTimeoutMilliseconds = self.cluster.callTimeoutMilliseconds
        deployment.configuration.connectTimeoutMilliseconds = self.cluster.callTimeoutMilliseconds
        var configuration = ClusterConfiguration(
            deployment: deployment, nodeID: self.cluster.nodeID.isEmpty ? nil : self.cluster.nodeID)
        guard !self.cluster.keyPrefix.contains(where: { $0 == "{" || $0 == "}" }) else {
            throw ConfigError("cluster.key_prefix: must not hold { or }, which make Redis Cluster hash tags")
        }
        configuration.keyPrefix = self.cluster.keyPrefix
        configuration.leaseMilliseconds = self.cluster.leaseMilliseconds
        configuration.roomExpiryMilliseconds = self.cluster.roomExpiryMilliseconds
        configuration.checkpointInterval = UInt64(self.cluster.checkpointInterval)
        if (1..<50).contains(self.cluster.probeIntervalMilliseconds) {
            throw ConfigError("cluster.probe_interval_ms: 0 (off) or at least 50")
        }
        configuration.replicaAcks = self.cluster.replicaAcks
        configuration.replicaAckTimeoutMilliseconds = self.cluster.replicaAckTimeoutMilliseconds
        configuration.probeIntervalMilliseconds = self.cluster.probeIntervalMilliseconds
        return configuration
    }
}
