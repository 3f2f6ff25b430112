/// Where Redis is: one server, or a Redis Cluster known by a few of its nodes (seeds).
///
/// Read from `cluster.redis_url`: `redis://[[user]:password@]host[:port][/database]` names one server, and
/// `redis-cluster://[[user]:password@]host[:port][,host[:port]...]` a Redis Cluster by one or more seed nodes (any
/// nodes of it, primaries or replicas; the client learns the others from them). A cluster has no databases: a path is
/// refused. Hosts are IP literals (IPv6 in brackets) or `localhost`; the port defaults to 6379.
public struct RedisDeployment: Sendable {
    /// The settings of every connection: credentials, timeouts, limits; its host and port are the first seed's.
    public var configuration: RedisClientConfiguration
    /// The seed nodes of a Redis Cluster; nil for a single server (`configuration`'s host and port).
    public var clusterSeeds: [RedisNodeAddress]?

    /// - Parameters:
    ///   - configuration: the settings of every connection, and the single server's address.
    ///   - clusterSeeds: a Redis Cluster's seed nodes, or nil for one server.
    public init(configuration: RedisClientConfiguration, clusterSeeds: [RedisNodeAddress]? = nil) {
        self.configuration = configuration
        self.clusterSeeds = clusterSeeds
        if let first = clusterSeeds?.first {
            self.configuration.host = first.host
            self.configuration.port = first.port
        }
    }

    /// Reads a `redis://` or a `redis-cluster://` URL.
    ///
    /// - Parameter url: the URL.
    /// - Throws: `RedisError.invalidURL` naming what is wrong.
    public init(url: String) throws(RedisError) {
        let scheme = "redis-cluster://"
        guard url.lowercased().hasPrefix(scheme) else {
            self.init(configuration: try RedisClientConfiguration(url: url))
            return
        }
        let rest = url.dropFirst(scheme.count)
        var credentials = ""
        var hosts = Substring(rest)
        if let at = rest.lastIndex(of: "@") {
            credentials = String(rest[...at])
            hosts = rest[rest.index(after: at)...]
        }
        if hosts.contains("/") {
            throw .invalidURL("a Redis Cluster has no databases: no path after the nodes of \(url.debugDescription)")
        }
        var configuration = RedisClientConfiguration()
        var seeds: [RedisNodeAddress] = []
        for host in hosts.split(separator: ",", omittingEmptySubsequences: false) {
            guard !host.isEmpty else { throw .invalidURL("an empty node in \(url.debugDescription)") }
            let node = try RedisClientConfiguration(url: "redis://" + credentials + host)
            if seeds.isEmpty { configuration = node }
            seeds.append(RedisNodeAddress(host: node.host, port: node.port))
        }
        self.init(configuration: configuration, clusterSeeds: seeds)
    }

    /// Whether this names a Redis Cluster.
    public var isCluster: Bool { self.clusterSeeds != nil }
}
