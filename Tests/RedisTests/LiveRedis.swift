import ClusterTesting
import Redis

/// A real `redis-server` and an event loop for one test, and the client probes made on them: `tearDown` stops the
/// probes, the loop and the server, in that order.
final class LiveRedis {
    let server: RedisServerProcess
    let harness: LoopHarness
    private var probes: [ClientProbe] = []

    /// - Parameter serverArguments: extra `redis-server` arguments.
    init(serverArguments: [String] = []) throws {
        self.server = try RedisServerProcess(extraArguments: serverArguments)
        do {
            self.harness = try LoopHarness()
        } catch {
            self.server.shutDown()
            throw error
        }
    }

    /// A client configuration for the server, reconnecting quickly so the tests do not wait long.
    func configuration() -> RedisClientConfiguration {
        var configuration = RedisClientConfiguration()
        configuration.port = self.server.port
        configuration.reconnectInitialDelayMilliseconds = 20
        configuration.reconnectMaximumDelayMilliseconds = 200
        // Generous: the machine may be loaded; the timeout test sets its own.
        configuration.commandTimeoutMilliseconds = 5_000
        return configuration
    }

    /// A new probe (not started) with `configuration`, stopped by `tearDown`.
    func probe(
        _ configuration: RedisClientConfiguration? = nil,
        onConnected: ((RedisClient) -> Void)? = nil
    ) -> ClientProbe {
        let probe = ClientProbe(self.harness, configuration ?? self.configuration(), onConnected: onConnected)
        self.probes.append(probe)
        return probe
    }

    func tearDown() {
        for probe in self.probes.reversed() { probe.stop() }
        self.harness.shutDown()
        self.server.shutDown()
    }
}
