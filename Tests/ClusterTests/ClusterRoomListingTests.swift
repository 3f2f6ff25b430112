import ClusterCore
import ClusterTesting
import EventIO
import JSONCoding
import Redis
import Rooms
import RoomsTesting
import Testing
import TokenAuth

@testable import Cluster

/// `GET /v1/api/rooms` in cluster mode against a real Redis: any node lists every room of the cluster, paged by id
/// as in a single process.
@Suite(.serialized) struct ClusterRoomListingTests {
    /// A node: a gateway with its shared log on the harness's loop, under `prefix`.
    static func node(
        _ id: String, prefix: String, _ harness: LoopHarness, redis: RedisClientConfiguration
    ) throws -> (RoomsNode, RedisRoomLog) {
        try Self.node(id, prefix: prefix, harness, deployment: RedisDeployment(configuration: redis))
    }

    /// A node over a deployment: one Redis server or a Redis Cluster.
    static func node(
        _ id: String, prefix: String, _ harness: LoopHarness, deployment: RedisDeployment
    ) throws -> (RoomsNode, RedisRoomLog) {
        let verifier = try TokenVerifier(keys: [try TokenKey(secret: "cluster-listing-test-secret-0123456789")])
        return harness.onLoop {
            let gateway = RoomsNode(
                configuration: RoomsConfiguration(), verifier: verifier, transport: InMemoryTransport(),
                clock: { 1_764_460_800_000 })
            var configuration = ClusterConfiguration(deployment: deployment, nodeID: id)
            configuration.keyPrefix = prefix
            configuration.listingScanCount = 2
            let log = RedisRoomLog(
                configuration: configuration, rules: SharedRoomRules(gateway.configuration), loop: harness.loop)
            gateway.sharedLog = log
            log.start()
            return (gateway, log)
        }
    }

    /// Appends one entry to each room through `log` and waits for Redis to take them.
    static func touch(_ rooms: [String], through log: RedisRoomLog, _ harness: LoopHarness) {
        let done = ResultBox<Bool>()
        harness.onLoop {
            var answered = 0
            for room in rooms {
                let proposal = LogProposal(
                    room: room, events: [ProposedEvent(.recordingChanged(isRecording: true), actor: nil)])
                log.append(proposal) { _ in
                    answered += 1
                    if answered == rooms.count { done.put(true) }
                }
            }
        }
        #expect(done.wait(seconds: 10) == true)
    }

    /// A page of the listing as `(ids, seqs, next)`.
    static func page(
        _ gateway: RoomsNode, after: String?, limit: Int, _ harness: LoopHarness
    ) throws -> ([String], [Int64], String?) {
        let box = ResultBox<Result<RoomListingPage, GatewayError>>()
        harness.onLoop { gateway.apiRooms(after: after, limit: limit) { box.put($0) } }
        let page = try #require(box.wait(seconds: 10)).get()
        return (page.entries.map(\.room), page.entries.map { Int64($0.sequence) }, page.next)
    }

    @Test func anyNodeListsEveryRoomOfTheClusterPagedById() throws {
        let server = try RedisServerProcess()
        defer { server.shutDown() }
        let harness = try LoopHarness()
        defer { harness.shutDown() }
        var redis = RedisClientConfiguration()
        redis.port = server.port
        redis.commandTimeoutMilliseconds = 5_000
        // A prefix with glob characters: only this deployment's keys match, not those of prefix "t1".
        let (first, firstLog) = try Self.node("A", prefix: "t[1]", harness, redis: redis)
        let (_, secondLog) = try Self.node("B", prefix: "t[1]", harness, redis: redis)
        let (_, otherLog) = try Self.node("C", prefix: "t1", harness, redis: redis)
        defer { harness.onLoop { for log in [firstLog, secondLog, otherLog] { log.stop() } } }
        #expect(
            waitUntil(seconds: 10) {
                harness.onLoop { firstLog.isAvailable && secondLog.isAvailable && otherLog.isAvailable }
            })
        Self.touch(["b-1", "b-2", "b-3", "b-2"], through: secondLog, harness)
        Self.touch(["a-1"], through: firstLog, harness)
        Self.touch(["decoy"], through: otherLog, harness)

        let (ids, seqs, next) = try Self.page(first, after: nil, limit: 10, harness)
        #expect(ids == ["a-1", "b-1", "b-2", "b-3"])
        #expect(seqs == [1, 1, 2, 1])
        #expect(next == nil)
        let (one, _, oneNext) = try Self.page(first, after: nil, limit: 2, harness)
        #expect(one == ["a-1", "b-1"] && oneNext == "b-1")
        let (two, _, twoNext) = try Self.page(first, after: "b-1", limit: 2, harness)
        #expect(two == ["b-2", "b-3"] && twoNext == "b-3")
        let (three, _, threeNext) = try Self.page(first, after: "b-3", limit: 2, harness)
        #expect(three.isEmpty && threeNext == nil)
    }
}
