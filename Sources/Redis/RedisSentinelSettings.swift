/// A primary watched by Redis Sentinel: the Sentinels to ask, and the name they know the primary by.
///
/// Read from `redis-sentinel://[[user]:password@]host[:port][,host[:port]...]/primary-name[/database]`: the hosts
/// are Sentinels (port 26379 when none is given), the path names the primary (`sentinel monitor <name> ...`), and
/// the credentials and database are the primary's. Sentinels are asked without `AUTH`.
public struct RedisSentinelSettings: Sendable, Equatable {
    /// Sentinel's own default port.
    public static let defaultPort = 26_379

    /// The Sentinels, in the order they are asked.
    public var sentinels: [RedisNodeAddress]
    /// The primary's name in the Sentinels' configuration.
    public var primaryName: String
    /// How often a connected client asks the Sentinels again which server is the primary, in milliseconds: after a
    /// failover that did not close its connection (a partition healed, say), it leaves the demoted server within
    /// this long.
    public var recheckMilliseconds: Int64 = 1_000

    /// - Parameters:
    ///   - sentinels: the Sentinels, at least one.
    ///   - primaryName: the primary's name as the Sentinels monitor it.
    public init(sentinels: [RedisNodeAddress], primaryName: String) {
        self.sentinels = sentinels
        self.primaryName = primaryName
    }
}
