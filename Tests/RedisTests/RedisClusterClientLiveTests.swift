import ClusterTesting
import EventIO
import Foundation
import Redis
import Testing

/// The cluster client against a real three-primary Redis Cluster on loopback.
@Suite(.serialized) struct RedisClusterClientLiveTests {
    /// Runs `body` with a fresh cluster, a loop and a started client; stops them afterwards.
    private static func withCluster(
        replicas: Int = 0, _ body: (RedisClusterProcess, LoopHarness, RedisClusterClient) throws -> Void
    ) throws {
        let cluster = try RedisClusterProcess(primaries: 3, replicasPerPrimary: replicas)
        defer { cluster.shutDown() }
        let harness = try LoopHarness()
        defer { harness.shutDown() }
        var configuration = RedisClientConfiguration()
        configuration.commandTimeoutMilliseconds = 5_000
        configuration.reconnectInitialDelayMilliseconds = 20
        configuration.reconnectMaximumDelayMilliseconds = 200
        let client = harness.onLoop { () -> RedisClusterClient in
            let client = RedisClusterClient(deployment: cluster.deployment(configuration), loop: harness.loop)
            client.start()
            return client
        }
        defer { harness.onLoop { client.stop() } }
        #expect(waitUntil(seconds: 10) { harness.onLoop { client.isConnected } })
        try body(cluster, harness, client)
    }

    private static func request(
        _ arguments: [String], _ client: RedisClusterClient, _ harness: LoopHarness
    ) -> Result<RESPValue, RedisError>? {
        let box = ResultBox<Result<RESPValue, RedisError>>()
        harness.onLoop { client.send(arguments) { box.put($0) } }
        return box.wait(seconds: 10)
    }

    /// The node id of the server on `port` (`CLUSTER MYID`).
    private static func nodeID(_ cluster: RedisClusterProcess, _ port: Int) throws -> String {
        try #require(cluster.cli(port: port, ["cluster", "myid"])).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func keysSpreadOverEveryPrimaryAndReadBackThroughTheirSlotsPrimary() throws {
        try Self.withCluster { cluster, harness, client in
            #expect(harness.onLoop { client.primaries.count } == 3)
            // Redis's own slot for a few keys agrees with the client's.
            for key in ["123456789", "foo", "{user1000}.following", "rollcall:room:{r-1}:log"] {
                let slot = cluster.cli(port: cluster.servers[0].port, ["cluster", "keyslot", key])
                #expect(
                    slot.flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
                        == RedisKeySlot.slot(of: key), "\(key)")
            }
            let keys = (0..<60).map { "key-\($0)" }
            let sets = ResultBox<[Result<RESPValue, RedisError>]>()
            harness.onLoop { client.sendAll(keys.map { ["SET", $0, "value of \($0)"] }) { sets.put($0) } }
            let written = try #require(sets.wait(seconds: 10))
            #expect(written.allSatisfy { (try? $0.get()) == .simpleString("OK") })
            for key in keys {
                #expect(
                    try Self.request(["GET", key], client, harness)?.get() == .bulkString(Array("value of \(key)".utf8))
                )
            }
            // Each primary holds some of them: no node got everything.
            let counts = cluster.servers.prefix(3).map { server in
                Int(cluster.cli(port: server.port, ["dbsize"])?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "")
                    ?? -1
            }
            #expect(counts.reduce(0, +) == keys.count)
            #expect(counts.allSatisfy { $0 > 0 }, "\(counts)")
        }
    }

    @Test func aSlotMovedBehindTheClientsBackIsFollowedAfterMovedAndTheMapIsRefreshed() throws {
        try Self.withCluster { cluster, harness, client in
            let key = "moving-key"
            let slot = RedisKeySlot.slot(of: key)
            let source = try #require(harness.onLoop { client.slotMap?.primary(of: slot) })
            let target = try #require(harness.onLoop { client.primaries.first { $0 != source } })
            #expect(try Self.request(["SET", key, "before"], client, harness)?.get() == .simpleString("OK"))
            // Move the slot with its key to another primary, as a resharding does.
            let targetID = try Self.nodeID(cluster, target.port)
            let sourceID = try Self.nodeID(cluster, source.port)
            _ = cluster.cli(port: target.port, ["cluster", "setslot", String(slot), "importing", sourceID])
            _ = cluster.cli(port: source.port, ["cluster", "setslot", String(slot), "migrating", targetID])
            _ = cluster.cli(port: source.port, ["migrate", "127.0.0.1", String(target.port), key, "0", "5000"])
            for port in cluster.servers.map(\.port) {
                _ = cluster.cli(port: port, ["cluster", "setslot", String(slot), "node", targetID])
            }
            // The client still thinks the slot is the source's: MOVED sends it to the target.
            #expect(harness.onLoop { client.slotMap?.primary(of: slot) } == source)
            #expect(try Self.request(["GET", key], client, harness)?.get() == .bulkString(Array("before".utf8)))
            #expect(waitUntil(seconds: 5) { harness.onLoop { client.slotMap?.primary(of: slot) } == target })
            #expect(try Self.request(["SET", key, "after"], client, harness)?.get() == .simpleString("OK"))
            let onTarget = cluster.cli(port: target.port, ["cluster", "countkeysinslot", String(slot)])
            #expect(onTarget?.trimmingCharacters(in: .whitespacesAndNewlines) == "1")
        }
    }

    @Test func aKeyOfASlotBeingMigratedIsWrittenOnTheTargetAfterAsk() throws {
        try Self.withCluster { cluster, harness, client in
            let key = "new-key"
            let slot = RedisKeySlot.slot(of: key)
            let source = try #require(harness.onLoop { client.slotMap?.primary(of: slot) })
            let target = try #require(harness.onLoop { client.primaries.first { $0 != source } })
            let targetID = try Self.nodeID(cluster, target.port)
            let sourceID = try Self.nodeID(cluster, source.port)
            _ = cluster.cli(port: target.port, ["cluster", "setslot", String(slot), "importing", sourceID])
            _ = cluster.cli(port: source.port, ["cluster", "setslot", String(slot), "migrating", targetID])
            // The key is not on the source: it answers ASK, and the client asks the target after ASKING.
            #expect(try Self.request(["SET", key, "asked"], client, harness)?.get() == .simpleString("OK"))
            #expect(try Self.request(["GET", key], client, harness)?.get() == .bulkString(Array("asked".utf8)))
            let onTarget = cluster.cli(port: target.port, ["cluster", "countkeysinslot", String(slot)])
            #expect(onTarget?.trimmingCharacters(in: .whitespacesAndNewlines) == "1")
            let onSource = cluster.cli(port: source.port, ["cluster", "countkeysinslot", String(slot)])
            #expect(onSource?.trimmingCharacters(in: .whitespacesAndNewlines) == "0")
            // Still the source's slot for the client: ASK does not change the map.
            #expect(harness.onLoop { client.slotMap?.primary(of: slot) } == source)
        }
    }

    @Test func shardChannelsReachTheirSubscriberFromEveryPrimary() throws {
        try Self.withCluster { cluster, harness, client in
            let subscriber = harness.onLoop { () -> RedisClusterClient in
                let subscriber = RedisClusterClient(deployment: cluster.deployment(), loop: harness.loop)
                subscriber.start()
                return subscriber
            }
            defer { harness.onLoop { subscriber.stop() } }
            let received = ResultBox<Set<String>>()
            let channels = (0..<12).map { "room:{r-\($0)}" }
            harness.onLoop {
                var seen: Set<String> = []
                subscriber.onMessage = { channel, _ in
                    seen.insert(String(decoding: channel, as: UTF8.self))
                    if seen.count == channels.count { received.put(seen) }
                }
                subscriber.subscribeShard(channels.map { Array($0.utf8) })
            }
            #expect(waitUntil(seconds: 10) { harness.onLoop { subscriber.isConnected } })
            let homes = Set(
                channels.compactMap { channel in
                    harness.onLoop { subscriber.slotMap?.primary(of: RedisKeySlot.slot(of: channel)) }
                })
            #expect(homes.count == 3)
            // Published until every channel was heard (its SSUBSCRIBE may still be on its way at first), boundedly.
            for _ in 0..<50 where received.peek() == nil {
                for channel in channels { _ = Self.request(["SPUBLISH", channel, "hello"], client, harness) }
                Thread.sleep(forTimeInterval: 0.05)
            }
            #expect(received.wait(seconds: 5)?.count == channels.count)
        }
    }
}
