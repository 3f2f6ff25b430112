import Foundation
import Redis

/// A Redis Cluster for tests: `primaries` primaries (and `replicasPerPrimary` replicas of each), every one a
/// `RedisServerProcess` started with `--cluster-enabled yes` on its own loopback port, joined with
/// `redis-cli --cluster create` and waited for until every node reports `cluster_state:ok` and knows every other.
///
/// `shutDown()` (and deinit) kills every server and removes their directories; every wait is bounded.
public final class RedisClusterProcess: @unchecked Sendable {
    /// Every server, primaries first as `redis-cli` was given them (it makes the first `primaries` the primaries).
    public let servers: [RedisServerProcess]
    /// How many of `servers` were created as primaries.
    public let primaryCount: Int

    /// Starts the servers and makes them one cluster.
    ///
    /// - Parameters:
    ///   - primaries: how many primaries (at least 3, as `redis-cli --cluster create` requires).
    ///   - replicasPerPrimary: how many replicas of each primary.
    ///   - nodeTimeoutMilliseconds: `cluster-node-timeout`: how long a primary may be unreachable before its replica
    ///     takes over.
    ///   - timeout: how long the cluster may take to form, in seconds.
    /// - Throws: `RedisServerProcessError` when a server does not start, `redis-cli` fails, or the cluster does not
    ///   form in time.
    public init(
        primaries: Int = 3, replicasPerPrimary: Int = 0, nodeTimeoutMilliseconds: Int = 1_000,
        timeout: TimeInterval = 30
    ) throws {
        var servers: [RedisServerProcess] = []
        do {
            for _ in 0..<(primaries * (1 + replicasPerPrimary)) {
                servers.append(
                    try RedisServerProcess(
                        extraArguments: ["--appendfsync", "everysec"],
                        clusterNodeTimeoutMilliseconds: nodeTimeoutMilliseconds))
            }
            let cli = try Self.run(
                "redis-cli",
                ["--cluster", "create"] + servers.map { "127.0.0.1:\($0.port)" }
                    + ["--cluster-replicas", String(replicasPerPrimary), "--cluster-yes"], timeout: timeout)
            guard cli.status == 0 else {
                throw RedisServerProcessError("redis-cli --cluster create failed:\n\(cli.output)")
            }
            let deadline = Date().addingTimeInterval(timeout)
            while !Self.formed(servers) {
                guard Date() < deadline else {
                    throw RedisServerProcessError("the Redis Cluster did not form within \(timeout) s")
                }
                Thread.sleep(forTimeInterval: 0.05)
            }
        } catch {
            for server in servers { server.shutDown() }
            throw error
        }
        self.servers = servers
        self.primaryCount = primaries
    }

    deinit {
        self.shutDown()
    }

    /// The seed nodes to give a client: every server's address.
    public var seeds: [RedisNodeAddress] { self.servers.map { RedisNodeAddress(host: "127.0.0.1", port: $0.port) } }

    /// A deployment of this cluster with `configuration`'s settings (its host and port are replaced by the seeds').
    ///
    /// - Parameter configuration: timeouts and limits of every connection.
    public func deployment(_ configuration: RedisClientConfiguration = RedisClientConfiguration()) -> RedisDeployment {
        RedisDeployment(configuration: configuration, clusterSeeds: self.seeds)
    }

    /// The server listening on `port`.
    ///
    /// - Parameter port: the port.
    public func server(port: Int) -> RedisServerProcess? {
        self.servers.first { $0.port == port }
    }

    /// What `redis-cli -p port arguments...` prints, or nil when it fails.
    ///
    /// - Parameters:
    ///   - port: the node.
    ///   - arguments: the command.
    public func cli(port: Int, _ arguments: [String]) -> String? {
        guard let result = try? Self.run("redis-cli", ["-p", String(port)] + arguments, timeout: 10),
            result.status == 0
        else { return nil }
        return result.output
    }

    /// Kills every server and removes their directories. Safe to call more than once.
    public func shutDown() {
        for server in self.servers { server.shutDown() }
    }

    /// Whether every running server says the cluster is ok and knows all the others.
    private static func formed(_ servers: [RedisServerProcess]) -> Bool {
        servers.allSatisfy { server in
            guard let info = try? Self.run("redis-cli", ["-p", String(server.port), "cluster", "info"], timeout: 5),
                info.status == 0
            else { return false }
            return info.output.contains("cluster_state:ok")
                && info.output.contains("cluster_known_nodes:\(servers.count)\r")
        }
    }

    /// Runs a program found on PATH and collects its output (standard output and error together), killing it
    /// after `timeout` seconds.
    private static func run(
        _ name: String, _ arguments: [String], timeout: TimeInterval
    ) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [name] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw RedisServerProcessError("cannot run \(name): \(error)")
        }
        let deadline = Date().addingTimeInterval(timeout)
        var output = Data()
        let reader = pipe.fileHandleForReading
        let group = DispatchGroup()
        let box = OutputBox()
        group.enter()
        DispatchQueue.global().async {
            box.data = reader.readDataToEndOfFile()
            group.leave()
        }
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        _ = group.wait(timeout: .now() + 5)
        output = box.data
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }

    private final class OutputBox: @unchecked Sendable {
        var data = Data()
    }
}
