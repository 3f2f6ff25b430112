import ClusterCore
import ClusterTesting
import EventIO
import Foundation
import Redis
import Rooms
import Testing

@testable import Cluster

/// What a node's shared log delivered, recorded on its loop.
private final class Received: SharedRoomLogDelegate {
    var entries: [String: [RoomLogEntry]] = [:]

    func sharedLogLoaded(room: String, checkpoint: RoomReplica?, entries: [RoomLogEntry]) {
        self.entries[room, default: []] += entries
    }
    func sharedLogReloading(room: String) {}
    func sharedLogReloadFailed(room: String) {}
    func sharedLogReceived(room: String, entries: [RoomLogEntry]) { self.entries[room, default: []] += entries }
    func sharedLogFailed(room: String) {}
    func sharedLogDisconnect(uid: String, reason: String?) {}
    func sharedLogLeaseLost() {}
    func replica(of room: String, at sequence: UInt64) -> RoomReplica? { nil }
}

/// `cluster.replica_acks` against a real primary with one replica on loopback (`redis-server --replicaof`): an
/// append is acknowledged once the replica confirmed it, and with the replica gone the writer gets
/// `ERR_UNAVAILABLE` after the wait, the entry stays in the log, and the shortfall is counted.
@Suite(.serialized) struct ReplicaAckTests {
    /// A primary and its replica, the replica's link up.
    private static func withReplicatedRedis(
        _ body: (RedisServerProcess, RedisServerProcess, RedisClientConfiguration, LoopHarness) throws -> Void
    ) throws {
        let primary = try RedisServerProcess()
        defer { primary.shutDown() }
        // No append-only file on the replica: one writing its first after a sync ignores SIGTERM (stop() waits 5 s).
        let replica = try RedisServerProcess(
            extraArguments: ["--appendonly", "no", "--replicaof", "127.0.0.1", String(primary.port)])
        defer { replica.shutDown() }
        let harness = try LoopHarness()
        defer { harness.shutDown() }
        var redis = RedisClientConfiguration()
        redis.port = primary.port
        redis.commandTimeoutMilliseconds = 5_000
        #expect(
            waitUntil(seconds: 20) {
                Self.info(port: primary.port, harness).contains("connected_slaves:1")
                    && Self.info(port: replica.port, harness).contains("master_link_status:up")
            })
        try body(primary, replica, redis, harness)
    }

    /// `INFO replication` of the server on `port`, through a client of its own; empty when it does not answer.
    private static func info(port: Int, _ harness: LoopHarness) -> String {
        var configuration = RedisClientConfiguration()
        configuration.port = port
        let box = ResultBox<String>()
        let client = harness.onLoop { () -> RedisClient in
            let client = RedisClient(configuration: configuration, loop: harness.loop)
            client.onStateChange = { [unowned client] state in
                guard state == .connected else { return }
                client.send(["INFO", "replication"]) { result in
                    if case .success(.bulkString(let bytes?)) = result {
                        box.put(String(decoding: bytes, as: UTF8.self))
                    }
                }
            }
            client.start()
            return client
        }
        defer { harness.onLoop { client.stop() } }
        return box.wait(seconds: 5) ?? ""
    }

    private static func node(
        _ redis: RedisClientConfiguration, _ harness: LoopHarness, acks: Int, received: Received
    ) -> RedisRoomLog {
        harness.onLoop {
            var configuration = ClusterConfiguration(redis: redis, nodeID: "A")
            configuration.keyPrefix = "t"
            configuration.replicaAcks = acks
            configuration.replicaAckTimeoutMilliseconds = 300
            let rules = SharedRoomRules(
                roomCapacity: 100, reservedSeats: 0, reconnectGraceMilliseconds: 15_000, history: HistoryRetention())
            let log = RedisRoomLog(configuration: configuration, rules: rules, loop: harness.loop)
            log.follower.delegate = received
            log.start()
            return log
        }
    }

    private static func note(_ room: String, _ text: String) -> LogProposal {
        LogProposal(room: room, events: [ProposedEvent(.metadataChanged(changes: ["n": text]), actor: nil)])
    }

    /// Appends and waits for the answer.
    private static func append(
        _ proposal: LogProposal, through log: RedisRoomLog, _ harness: LoopHarness
    ) throws -> Result<UInt64, LogAppendFailure> {
        let box = ResultBox<Result<UInt64, LogAppendFailure>>()
        harness.onLoop { log.append(proposal) { box.put($0) } }
        return try #require(box.wait(seconds: 15))
    }

    @Test func anAppendIsAcknowledgedOnceTheReplicaHasItAndRefusedButKeptWhenNoReplicaConfirms() throws {
        try Self.withReplicatedRedis { primary, replica, redis, harness in
            let received = Received()
            let log = Self.node(redis, harness, acks: 1, received: received)
            defer { harness.onLoop { log.stop() } }
            #expect(waitUntil(seconds: 10) { harness.onLoop { log.isAvailable } })
            harness.onLoop { log.follow("r") }
            #expect(waitUntil(seconds: 5) { harness.onLoop { received.entries["r"] != nil } })

            let first = try Self.append(Self.note("r", "one"), through: log, harness)
            #expect((try? first.get()) == 1)
            #expect(harness.onLoop { log.statistics.replicaAckFailures } == 0)

            replica.stop()
            #expect(waitUntil(seconds: 10) { Self.info(port: primary.port, harness).contains("connected_slaves:0") })
            let second = try Self.append(Self.note("r", "two"), through: log, harness)
            guard case .failure(.refused(let error)) = second else {
                Issue.record("expected a refusal, got \(second)")
                return
            }
            #expect(error.code == .unavailable)
            #expect(error.message.contains("0 of 1 replicas confirmed it within 300 ms"))
            #expect(harness.onLoop { log.statistics.replicaAckFailures } == 1)
            // WAIT undoes nothing: the entry is in the log on the primary, and this node applied it.
            #expect(harness.onLoop { received.entries["r"]?.map(\.sequence) } == [1, 2])
            let box = ResultBox<RESPValue>()
            harness.onLoop {
                log.commands.send(["GET", "t:room:{r}:seq"]) { if case .success(let value) = $0 { box.put(value) } }
            }
            #expect(box.wait(seconds: 5) == .bulkString(Array("2".utf8)))
        }
    }

    @Test func inARedisClusterEachAppendWaitsForTheReplicaOfItsRoomsPrimary() throws {
        let cluster = try RedisClusterProcess(primaries: 3, replicasPerPrimary: 1)
        defer { cluster.shutDown() }
        let replicas = Array(cluster.servers[cluster.primaryCount...])
        for replica in replicas {
            #expect(
                waitUntil(seconds: 20) {
                    cluster.cli(port: replica.port, ["INFO", "replication"])?.contains("master_link_status:up") == true
                })
        }
        let harness = try LoopHarness()
        defer { harness.shutDown() }
        var redis = RedisClientConfiguration()
        redis.commandTimeoutMilliseconds = 5_000
        let log = harness.onLoop { () -> RedisRoomLog in
            var configuration = ClusterConfiguration(deployment: cluster.deployment(redis), nodeID: "A")
            configuration.keyPrefix = "t"
            configuration.replicaAcks = 1
            configuration.replicaAckTimeoutMilliseconds = 300
            let rules = SharedRoomRules(
                roomCapacity: 100, reservedSeats: 0, reconnectGraceMilliseconds: 15_000, history: HistoryRetention())
            let log = RedisRoomLog(configuration: configuration, rules: rules, loop: harness.loop)
            log.start()
            return log
        }
        defer { harness.onLoop { log.stop() } }
        #expect(waitUntil(seconds: 15) { harness.onLoop { log.isAvailable } })
        // A room on each primary.
        let map = try #require(harness.onLoop { log.commands.slotMap })
        var rooms: [Int: String] = [:]
        for index in 0..<1_000 where rooms.count < 3 {
            let room = "room-\(index)"
            if let primary = map.primary(of: RedisKeySlot.slot(of: "t:room:{\(room)}")), rooms[primary.port] == nil {
                rooms[primary.port] = room
            }
        }
        #expect(rooms.count == 3)
        for room in rooms.values {
            #expect((try? Self.append(Self.note(room, "one"), through: log, harness).get()) == 1)
        }

        // One primary loses its replica: only its rooms' appends go unconfirmed.
        let info = cluster.cli(port: replicas[0].port, ["INFO", "replication"]) ?? ""
        let line = info.split(whereSeparator: \.isNewline).first { $0.hasPrefix("master_port:") }
        let orphaned = try #require(line.flatMap { Int($0.dropFirst("master_port:".count)) })
        replicas[0].stop()
        #expect(
            waitUntil(seconds: 10) {
                cluster.cli(port: orphaned, ["INFO", "replication"])?.contains("connected_slaves:0") == true
            })
        for (port, room) in rooms.sorted(by: { $0.key < $1.key }) {
            let result = try Self.append(Self.note(room, "two"), through: log, harness)
            if port == orphaned {
                guard case .failure(.refused(let error)) = result else {
                    Issue.record("room \(room) on the primary without its replica: \(result)")
                    continue
                }
                #expect(error.message.contains("0 of 1 replicas confirmed it"))
            } else {
                #expect((try? result.get()) == 2, "room \(room) on \(port)")
            }
        }
        #expect(harness.onLoop { log.statistics.replicaAckFailures } == 1)
    }

    @Test func withoutReplicaAcksTheSameAppendIsAcknowledgedByThePrimaryAlone() throws {
        try Self.withReplicatedRedis { primary, replica, redis, harness in
            let received = Received()
            let log = Self.node(redis, harness, acks: 0, received: received)
            defer { harness.onLoop { log.stop() } }
            #expect(waitUntil(seconds: 10) { harness.onLoop { log.isAvailable } })
            #expect(harness.onLoop { log.replicated == nil })
            replica.stop()
            #expect(waitUntil(seconds: 10) { Self.info(port: primary.port, harness).contains("connected_slaves:0") })
            let result = try Self.append(Self.note("r", "one"), through: log, harness)
            #expect((try? result.get()) == 1)
            #expect(harness.onLoop { log.statistics.replicaAckFailures } == 0)
        }
    }
}
