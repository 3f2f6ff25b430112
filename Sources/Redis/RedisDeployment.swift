/// Where Redis is: one server, a primary found through Redis Sentinel, or a Redis Cluster known by a few of its nodes
/// (seeds).
///
/// Read from `cluster.redis_url`: `redis://[[user]:password@]host[:port][/database]` names one server,
/// `redis-sentinel://[[user]:password@]host[:port][,host[:port]...]/primary-name[/database]` a primary by the
/// Sentinels that watch it (`RedisSentinelSettings`), and `redis-cluster://[[user]:password@]host[:port][,host[:port]...]`
/// a Redis Cluster by one or more seed nodes (any nodes of it, primaries or replicas; the client learns the others
/// from them). A cluster has no databases: a path is refused. Hosts are IP literals (IPv6 in brackets) or
/// `localhost`; the port defaults to 6379 (26379 for a Sentinel).
public struct RedisDeployment: Sendable {
    /// The settings of every connection: credentials, timeouts, limits; its host and port are the first seed's.
    public var configuration: RedisClientConfiguration
    /// The seed nodes of a Redis Cluster; nil for a single server (`configuration`'s host and port).
    public var clusterSeeds: [RedisNodeAddress]?
    /// The Sentinels that name the one server, the primary; nil when the server is `configuration`'s host and port.
    public var sentinel: RedisSentinelSettings?

    /// - Parameters:
    ///   - configuration: the settings of every connection, and the single server's address.
    ///   - clusterSeeds: a Redis Cluster's seed nodes, or nil for one server.
    ///   - sentinel: the Sentinels that name the one server, or nil; not with `clusterSeeds`.
    public init(
        configuration: RedisClientConfiguration, clusterSeeds: [RedisNodeAddress]? = nil,
        sentinel: RedisSentinelSettings? = nil
    ) {
        self.configuration = configuration
        self.clusterSeeds = clusterSeeds
        self.sentinel = clusterSeeds == nil ? sentinel : nil
        if let first = clusterSeeds?.first {
            self.configuration.host = first.host
            self.configuration.port = first.port
        }
    }

    /// Reads a `redis://`, a `redis-sentinel://` or a `redis-cluster://` URL.
    ///
    /// - Parameter url: the URL.
    /// - Throws: `RedisError.invalidURL` naming what is wrong.
    public init(url: String) throws(RedisError) {
        if url.lowercased().hasPrefix(Self.sentinelScheme) {
            try self.init(sentinelURL: url)
            return
        }
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

    private static let sentinelScheme = "redis-sentinel://"

    /// Reads `redis-sentinel://[[user]:password@]host[:port][,host[:port]...]/primary-name[/database]`.
    private init(sentinelURL url: String) throws(RedisError) {
        var rest = Substring(url.dropFirst(Self.sentinelScheme.count))
        var credentials = ""
        if let at = rest.lastIndex(of: "@") {
            credentials = String(rest[...at])
            rest = rest[rest.index(after: at)...]
        }
        guard let slash = rest.firstIndex(of: "/") else {
            throw .invalidURL("\(url.debugDescription) names no primary: add /primary-name after the Sentinels")
        }
        let hosts = rest[..<slash]
        let path = rest[rest.index(after: slash)...].split(separator: "/", omittingEmptySubsequences: false)
        guard let name = path.first, !name.isEmpty, path.count <= 2 else {
            throw .invalidURL("the path of \(url.debugDescription) must be /primary-name or /primary-name/database")
        }
        guard name.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "@") }) else {
            throw .invalidURL("the primary name \(String(name).debugDescription) is not printable ASCII")
        }
        var sentinels: [RedisNodeAddress] = []
        for host in hosts.split(separator: ",", omittingEmptySubsequences: false) {
            guard !host.isEmpty else { throw .invalidURL("an empty Sentinel in \(url.debugDescription)") }
            let sentinel = try RedisClientConfiguration(url: "redis://" + host)
            let namesPort = host.hasPrefix("[") ? host.contains("]:") : host.contains(":")
            let port = namesPort ? sentinel.port : RedisSentinelSettings.defaultPort
            sentinels.append(RedisNodeAddress(host: sentinel.host, port: port))
        }
        // The primary's credentials and database; its address comes from the Sentinels.
        let database = path.count == 2 ? "/" + path[1] : ""
        let primary = try RedisClientConfiguration(url: "redis://" + credentials + "127.0.0.1" + database)
        self.init(
            configuration: primary,
            sentinel: RedisSentinelSettings(sentinels: sentinels, primaryName: String(name)))
    }
}
