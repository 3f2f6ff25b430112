import Cluster
import Foundation
import Redis
import Testing

@testable import RollcallCLI

/// Configuration precedence (defaults < file < environment < flags) and every way a value is refused.
@Suite("Configuration loading")
struct ConfigurationTests {
    /// Writes `text` to a temporary file and returns its path.
    func file(_ text: String) throws -> String {
        let path = NSTemporaryDirectory() + "rollcall-config-\(UUID().uuidString).conf"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static let tokenKeyLines = "[auth]\nkeys = t:0123456789abcdef0123456789abcdef\n"

    func load(
        file text: String? = nil,
        environment: [String: String] = [:],
        overrides: [(String, String)] = []
    ) throws(ConfigError) -> (RollcallConfiguration, ConfigurationLoader) {
        // A file is always given (so the default file in the working directory never takes part), and it starts
        // with a token key, which has no default.
        let path = try! self.file(Self.tokenKeyLines + (text ?? ""))
        defer { try? FileManager.default.removeItem(atPath: path) }
        var loader = ConfigurationLoader()
        let configuration = try loader.load(path: path, environment: environment, overrides: overrides)
        return (configuration, loader)
    }

    /// The error message a load fails with, or nil when it succeeds.
    func refusal(
        file text: String? = nil,
        environment: [String: String] = [:],
        overrides: [(String, String)] = []
    ) -> String? {
        do {
            _ = try self.load(file: text, environment: environment, overrides: overrides)
            return nil
        } catch {
            return error.description
        }
    }

    @Test("each source overrides the one before: defaults < file < environment < flags")
    func precedence() throws {
        let text = "[rooms]\ncapacity = 20\nreserved_seats = 3\nmax_text_bytes = 100\n"
        let (configuration, loader) = try self.load(
            file: text,
            environment: ["ROLLCALL_ROOMS_RESERVED_SEATS": "4", "ROLLCALL_ROOMS_MAX_TEXT_BYTES": "200"],
            overrides: [("rooms.max_text_bytes", "300")]
        )
        #expect(configuration.rooms.roomCapacity == 20)
        #expect(configuration.rooms.reservedSeats == 4)
        #expect(configuration.rooms.maximumTextLength == 300)
        #expect(configuration.rooms.maximumRoomsPerSession == 16)
        #expect(loader.origins["rooms.capacity"]?.hasSuffix(":4") == true)
        #expect(loader.origins["rooms.reserved_seats"] == "ROLLCALL_ROOMS_RESERVED_SEATS")
        #expect(loader.origins["rooms.max_text_bytes"] == "command line")
        #expect(loader.origins["rooms.max_rooms_per_connection"] == nil)
        #expect(loader.describe(configuration).contains("rooms.max_rooms_per_connection = 16  # default"))
    }

    @Test("the new keys: body limit, API keys, log level, drain delay; API secrets are hidden by check-config")
    func operatorKeys() throws {
        let (configuration, loader) = try self.load(
            file: "[api]\nkeys = backend:0123456789abcdef, bot:fedcba9876543210\n[log]\nlevel = debug\n",
            overrides: [("limits.max_http_body_bytes", "1_024"), ("timeouts.drain_delay_ms", "250")]
        )
        #expect(configuration.server.maximumHTTPBodySize == 1024)
        #expect(configuration.drainDelayMilliseconds == 250)
        #expect(configuration.log.level == .debug)
        #expect(try configuration.api.parsedKeys().map(\.name) == ["backend", "bot"])
        let described = loader.describe(configuration)
        #expect(described.contains("api.keys = backend:(secret), bot:(secret)"))
        #expect(!described.contains("0123456789abcdef"))
        let defaults = try self.load().0
        #expect(defaults.server.maximumHTTPBodySize == 65_536)
        #expect(defaults.api.keys.isEmpty)
        #expect(defaults.log.level == .info)
    }

    @Test("an unknown key is refused, naming the key and where it came from")
    func unknownKey() {
        #expect(self.refusal(file: "[rooms]\ncapacitee = 3\n")?.contains("rooms.capacitee: unknown key") == true)
        #expect(
            self.refusal(overrides: [("nope.key", "1")])?.contains("nope.key: unknown key (from command line)") == true)
    }

    @Test("a value that is not a number is refused")
    func badNumber() {
        let message = self.refusal(environment: ["ROLLCALL_ROOMS_CAPACITY": "lots"])
        #expect(message?.contains("rooms.capacity: 'lots' is not a whole number") == true)
        #expect(message?.contains("ROLLCALL_ROOMS_CAPACITY") == true)
    }

    @Test("a number outside its range is refused")
    func outOfRange() {
        #expect(
            self.refusal(overrides: [("rooms.capacity", "0")])?.contains("rooms.capacity: 0 is outside 1...") == true)
        #expect(
            self.refusal(overrides: [("limits.max_http_body_bytes", "100000000")])?
                .contains("limits.max_http_body_bytes") == true
        )
    }

    @Test("a malformed address is refused")
    func badAddress() {
        let message = self.refusal(overrides: [("server.listen", "127.0.0.1:80, nowhere")])
        #expect(message?.contains("server.listen: 'nowhere' is not an address") == true)
    }

    @Test("a value that is not a boolean is refused")
    func badBool() {
        #expect(
            self.refusal(overrides: [("server.echo", "maybe")])?.contains("server.echo: 'maybe' is not true or false")
                == true)
    }

    @Test("no token key is refused")
    func missingTokenKey() {
        #expect(self.refusal(overrides: [("auth.keys", "")])?.contains("auth.keys: no token key configured") == true)
    }

    @Test("bad API keys and log levels are refused")
    func badOperatorValues() {
        #expect(self.refusal(overrides: [("api.keys", "0123456789abcdef0123")])?.contains("is not name:secret") == true)
        #expect(self.refusal(overrides: [("api.keys", "bot:short")])?.contains("at least 16 bytes") == true)
        #expect(
            self.refusal(overrides: [("api.keys", "a:0123456789abcdef,a:fedcba9876543210")])?.contains("used twice")
                == true
        )
        #expect(self.refusal(overrides: [("log.level", "loud")])?.contains("log.level: 'loud'") == true)
    }

    @Test("cluster mode is off by default and its Redis URL is checked at start")
    func clusterSettings() throws {
        let (plain, _) = try self.load()
        #expect(try plain.clusterConfiguration() == nil)
        let (cluster, _) = try self.load(
            file: "[cluster]\nredis_url = redis://:pw@127.0.0.1:6390/2\nlease_ms = 2_000\n",
            overrides: [("cluster.node_id", "node-a"), ("cluster.call_timeout_ms", "250")]
        )
        let settings = try #require(try cluster.clusterConfiguration())
        #expect(settings.redis.port == 6390)
        #expect(settings.redis.password == "pw")
        #expect(settings.redis.database == 2)
        #expect(settings.redis.commandTimeoutMilliseconds == 250)
        #expect(settings.nodeID == "node-a")
        #expect(settings.leaseMilliseconds == 2000)
        #expect(
            self.refusal(overrides: [("cluster.redis_url", "http://127.0.0.1:6379")])?
                .contains("cluster.redis_url:") == true)
        #expect(
            self.refusal(overrides: [("cluster.lease_ms", "10")])?.contains("cluster.lease_ms: 10 is outside") == true)
        #expect(
            self.refusal(overrides: [("cluster.key_prefix", "")])?.contains("cluster.key_prefix: must not be empty")
                == true)
    }

    @Test("replica acknowledgements and the subscription probe are read and bounded")
    func clusterReplicaAndProbeSettings() throws {
        let url = ("cluster.redis_url", "redis://127.0.0.1:6390")
        let defaults = try #require(try self.load(overrides: [url]).0.clusterConfiguration())
        #expect(defaults.replicaAcks == 0)
        #expect(defaults.replicaAckTimeoutMilliseconds == 500)
        #expect(defaults.probeIntervalMilliseconds == 1_000)
        let (set, _) = try self.load(
            file: "[cluster]\nreplica_acks = 2\nreplica_ack_timeout_ms = 750\n",
            overrides: [url, ("cluster.probe_interval_ms", "0")])
        let settings = try #require(try set.clusterConfiguration())
        #expect(settings.replicaAcks == 2)
        #expect(settings.replicaAckTimeoutMilliseconds == 750)
        #expect(settings.probeIntervalMilliseconds == 0)
        #expect(
            self.refusal(overrides: [url, ("cluster.replica_acks", "17")])?
                .contains("cluster.replica_acks: 17 is outside") == true)
        #expect(
            self.refusal(overrides: [url, ("cluster.replica_ack_timeout_ms", "0")])?
                .contains("cluster.replica_ack_timeout_ms: 0 is outside") == true)
        #expect(
            self.refusal(overrides: [url, ("cluster.probe_interval_ms", "20")])?
                .contains("cluster.probe_interval_ms: 0 (off) or at least 50") == true)
    }

    @Test("webhooks need the embedded store or a cluster, and take a CA file")
    func webhookSources() throws {
        let hooks: [(String, String)] = [
            ("webhooks.endpoint.crm.url", "https://hooks.example/in"),
            ("webhooks.endpoint.crm.secret", "0123456789abcdef"), ("webhooks.ca_file", "/etc/rollcall/hooks-ca.pem"),
        ]
        #expect(self.refusal(overrides: hooks + [("storage.path", "")])?.contains("set one of them") == true)
        let (cluster, _) = try self.load(
            overrides: hooks + [("storage.path", ""), ("cluster.redis_url", "redis://127.0.0.1:6390")])
        let configuration = try #require(try cluster.webhookConfiguration())
        #expect(configuration.endpoints.map(\.name) == ["crm"])
        #expect(configuration.trustedCertificatesPath == "/etc/rollcall/hooks-ca.pem")
        let (stored, _) = try self.load(overrides: hooks + [("storage.path", "rollcall.db")])
        #expect(try stored.webhookConfiguration() != nil)
    }

    @Test("rooms.threads is 1 by default, and above 1 with rooms in memory or with the store, not in a cluster")
    func roomThreads() throws {
        #expect(try self.load().0.roomThreads == 1)
        #expect(try self.load(overrides: [("rooms.threads", "2")]).0.roomThreads == 2)
        #expect(self.refusal(overrides: [("rooms.threads", "0")])?.contains("rooms.threads") == true)
        #expect(try self.load(overrides: [("rooms.threads", "2"), ("storage.path", "rollcall.db")]).0.roomThreads == 2)
        let cluster = self.refusal(overrides: [("rooms.threads", "2"), ("cluster.redis_url", "redis://127.0.0.1:6390")])
        #expect(cluster?.contains("cannot be combined with cluster.redis_url") == true)
        #expect(try self.load(overrides: [("rooms.threads", "1"), ("storage.path", "rollcall.db")]).0.roomThreads == 1)
    }
}
