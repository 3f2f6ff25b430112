import Redis
import Rooms

/// Settings of cluster mode: where Redis is, and how the shared room logs behave.
public struct ClusterConfiguration: Sendable {
    /// The settings of every Redis connection, and the server's address when Redis is one server.
    public var redis: RedisClientConfiguration
    /// A Redis Cluster's seed nodes; nil when Redis is one server (`redis`'s host and port).
    public var redisClusterSeeds: [RedisNodeAddress]?
    /// The Sentinels that name the one Redis server (the primary); nil when it is `redis`'s host and port.
    public var redisSentinel: RedisSentinelSettings?
    /// Prefix of every key and channel, so several deployments can share one Redis.
    public var keyPrefix: String = "rollcall"
    /// This node's id in the shared records: unique per process (the default is random).
    public var nodeID: String
    /// A node that has not renewed its lease for this long is dead: its devices are reconnecting from then, and
    /// leave after the reconnect grace period unless they came back through another node.
    public var leaseMilliseconds: Int64 = 5_000
    /// Shared records of a room nobody uses expire after this long (0: never).
    public var roomExpiryMilliseconds: Int64 = 86_400_000
    /// A checkpoint of each room is written every this many entries (it trails the log by as many, so a node that
    /// loads a room can rebuild any of the last entries' views for exact resumes).
    public var checkpointInterval: UInt64 = 100
    /// How often each followed room's last sequence number is compared with the shared log's, in milliseconds:
    /// catches entries a lost pub/sub connection missed.
    public var pollIntervalMilliseconds: Int64 = 1_000
    /// Replicas that must confirm an append before it is acknowledged (`WAIT` after the append, on the room's
    /// primary); 0 acknowledges once the primary has it. An append confirmed by fewer within
    /// `replicaAckTimeoutMilliseconds` is answered `ERR_UNAVAILABLE`, though it is in the log.
    public var replicaAcks = 0
    /// How long an append waits for its replicas' confirmations, in milliseconds.
    public var replicaAckTimeoutMilliseconds: Int64 = 500
    /// How often the node publishes a probe to itself through its own subscription, in milliseconds (0: never). A
    /// probe not back within the command timeout marks the subscription dead: the node reports not ready and
    /// reconnects its subscription, and is ready again once a probe comes back.
    public var probeIntervalMilliseconds: Int64 = 1_000
    /// Keys `SCAN` looks at per call of the cluster-wide room listing (`GET /v1/api/rooms`), on each primary.
    public var listingScanCount = 1_000
    /// The most keys one listing looks at, over all primaries, before it answers with what it found (a bound on its
    /// time in Redis).
    public var listingScanLimit = 1_000_000

    /// - Parameters:
    ///   - redis: the Redis server's settings.
    ///   - nodeID: this node's id; random when nil.
    public init(redis: RedisClientConfiguration, nodeID: String? = nil) {
        self.redis = redis
        self.nodeID = nodeID ?? ClusterConfiguration.randomNodeID()
    }

    /// - Parameters:
    ///   - deployment: one Redis server (perhaps named by Sentinels), or a Redis Cluster's seeds, with the
    ///     connections' settings.
    ///   - nodeID: this node's id; random when nil.
    public init(deployment: RedisDeployment, nodeID: String? = nil) {
        self.init(redis: deployment.configuration, nodeID: nodeID)
        self.redisClusterSeeds = deployment.clusterSeeds
        self.redisSentinel = deployment.sentinel
    }

    /// Where Redis is: `redis`, the primary `redisSentinel` names, or the cluster of `redisClusterSeeds`.
    public var deployment: RedisDeployment {
        RedisDeployment(configuration: self.redis, clusterSeeds: self.redisClusterSeeds, sentinel: self.redisSentinel)
    }

    /// A random node id: 16 hex digits.
    public static func randomNodeID() -> String {
        var generator = SystemRandomNumberGenerator()
        let value = generator.next() as UInt64
        let hex = String(value, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
