import ClusterCore
import ClusterTesting
import EventIO
import Foundation
import Redis
import Rooms
import Testing

@testable import Cluster

/// What a node's shared log delivered, recorded on its loop.
private final class Deliveries: SharedRoomLogDelegate {
    var loaded: Set<String> = []
    var entries: [String: [RoomLogEntry]] = [:]

    func sharedLogLoaded(room: String, checkpoint: RoomReplica?, entries: [RoomLogEntry]) {
        self.loaded.insert(room)
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

/// The shared log of two nodes over a three-primary Redis Cluster on loopback: each room's keys in one slot, rooms on
/// every primary, entries delivered through sharded pub/sub, seats atomic, the reaper and the listing across slots.
@Suite(.serialized) struct RedisClusterSharedLogTests {
    private struct Node {
        let harness: LoopHarness
        let log: RedisRoomLog
        let deliveries: Deliveries
    }

    /// Runs `body` with a fresh cluster and two nodes (`A`, `B`), each on its own loop.
    private static func withTwoNodes(
        capacity: Int = 100, lease: Int64 = 5_000, grace: Int64 = 15_000,
        _ body: (RedisClusterProcess, [Node]) throws -> Void
    ) throws {
        let cluster = try RedisClusterProcess(primaries: 3)
        defer { cluster.shutDown() }
        var redis = RedisClientConfiguration()
        redis.commandTimeoutMilliseconds = 5_000
        redis.reconnectInitialDelayMilliseconds = 20
        redis.reconnectMaximumDelayMilliseconds = 200
        var nodes: [Node] = []
        defer {
            for node in nodes {
                node.harness.onLoop { node.log.stop() }
                node.harness.shutDown()
            }
        }
        for id in ["A", "B"] {
            let harness = try LoopHarness()
            let deliveries = Deliveries()
            let log = harness.onLoop { () -> RedisRoomLog in
                var configuration = ClusterConfiguration(deployment: cluster.deployment(redis), nodeID: id)
                configuration.keyPrefix = "t"
                configuration.leaseMilliseconds = lease
                let rules = SharedRoomRules(
                    roomCapacity: capacity, reservedSeats: 0, reconnectGraceMilliseconds: grace,
                    history: HistoryRetention())
                let log = RedisRoomLog(configuration: configuration, rules: rules, loop: harness.loop)
                log.follower.delegate = deliveries
                log.start()
                return log
            }
            nodes.append(Node(harness: harness, log: log, deliveries: deliveries))
        }
        for node in nodes {
            #expect(waitUntil(seconds: 15) { node.harness.onLoop { node.log.isAvailable } })
        }
        try body(cluster, nodes)
    }

    /// Appends the proposals through `node` in one loop turn; the box gets every answer, in order.
    private static func startAppending(
        _ proposals: [LogProposal], through node: Node
    ) -> ResultBox<[Result<UInt64, LogAppendFailure>]> {
        let box = ResultBox<[Result<UInt64, LogAppendFailure>]>()
        node.harness.onLoop {
            var results: [Result<UInt64, LogAppendFailure>?] = Array(repeating: nil, count: proposals.count)
            var answered = 0
            for (index, proposal) in proposals.enumerated() {
                node.log.append(proposal) { result in
                    results[index] = result
                    answered += 1
                    if answered == proposals.count { box.put(results.compactMap { $0 }) }
                }
            }
        }
        return box
    }

    private static func join(_ room: String, _ uid: String, _ device: String) -> LogProposal {
        LogProposal(
            room: room,
            events: [
                ProposedEvent(
                    .participantJoined(
                        uid: uid, deviceID: device, name: uid, avatar: nil, role: .participant, callType: nil),
                    actor: uid)
            ])
    }

    private static func note(_ room: String, _ text: String) -> LogProposal {
        LogProposal(room: room, events: [ProposedEvent(.metadataChanged(changes: ["n": text]), actor: nil)])
    }

    /// The integer a command answers, through `node`'s command client (routed by its key).
    private static func integer(_ arguments: [String], through node: Node) -> Int64? {
        let box = ResultBox<RESPValue>()
        node.harness.onLoop {
            node.log.commands.send(arguments) { result in
                if case .success(let value) = result { box.put(value) }
            }
        }
        guard case .integer(let value)? = box.wait(seconds: 5) else { return nil }
        return value
    }

    /// Twelve rooms whose slots are served by all three primaries.
    private static func spreadRooms(_ cluster: RedisClusterProcess, through node: Node) -> [String] {
        let rooms = (0..<12).map { "room-\($0)" }
        let homes = Set(
            rooms.compactMap { room in
                node.harness.onLoop {
                    node.log.commands.slotMap?.primary(of: RedisKeySlot.slot(of: "t:room:{\(room)}:seq"))
                }
            })
        #expect(homes.count == 3, "the rooms' slots are on \(homes.count) primaries")
        return rooms
    }

    @Test func interleavedAppendsOfTwoNodesToRoomsOnEveryPrimaryArriveEverywhereInOrderExactlyOnce() throws {
        try Self.withTwoNodes { cluster, nodes in
            let rooms = Self.spreadRooms(cluster, through: nodes[0])
            for node in nodes { node.harness.onLoop { for room in rooms { node.log.follow(room) } } }
            for node in nodes {
                #expect(waitUntil(seconds: 10) { node.harness.onLoop { node.deliveries.loaded.count == rooms.count } })
            }
            let rounds = 20
            let answers = nodes.enumerated().map { index, node in
                let name = index == 0 ? "A" : "B"
                var proposals: [LogProposal] = []
                for round in 0..<rounds {
                    for room in rooms { proposals.append(Self.note(room, "\(name)-\(round)")) }
                }
                return Self.startAppending(proposals, through: node)
            }
            for answer in answers {
                let results = try #require(answer.wait(seconds: 30))
                #expect(results.allSatisfy { (try? $0.get()) != nil })
            }
            let total = 2 * rounds
            for node in nodes {
                #expect(
                    waitUntil(seconds: 10) {
                        node.harness.onLoop { rooms.allSatisfy { node.deliveries.entries[$0]?.count ?? 0 >= total } }
                    })
            }
            let delivered = nodes.map { node in node.harness.onLoop { node.deliveries.entries } }
            for room in rooms {
                #expect(delivered[0][room]?.map(\.sequence) == (1...UInt64(total)).map { $0 }, "\(room)")
                #expect(delivered[0][room] == delivered[1][room], "\(room)")
            }
            // Each room's log is on the primary serving its slot, whole.
            for room in rooms {
                #expect(Self.integer(["XLEN", "t:room:{\(room)}:log"], through: nodes[1]) == Int64(total))
            }
        }
    }

    @Test func theLastSeatOfARoomGoesToExactlyOneOfTwoNodesJoiningAtOnce() throws {
        try Self.withTwoNodes(capacity: 1) { cluster, nodes in
            let rooms = Self.spreadRooms(cluster, through: nodes[0])
            let answers = nodes.enumerated().map { index, node in
                Self.startAppending(rooms.map { Self.join($0, "u-\(index)", "d-\(index)") }, through: node)
            }
            let results = try answers.map { try #require($0.wait(seconds: 20)) }
            for (index, room) in rooms.enumerated() {
                let outcomes = [results[0][index], results[1][index]]
                #expect(outcomes.filter { (try? $0.get()) != nil }.count == 1, "\(room): \(outcomes)")
                #expect(outcomes.filter { $0 == .failure(.refused(.callFull)) }.count == 1, "\(room)")
                #expect(Self.integer(["HLEN", "t:room:{\(room)}:seats:p"], through: nodes[0]) == 1)
            }
        }
    }

    @Test func theDevicesOfADeadNodeInRoomsOnEveryPrimaryAreReaped() throws {
        try Self.withTwoNodes(lease: 300, grace: 300) { cluster, nodes in
            let rooms = Self.spreadRooms(cluster, through: nodes[0])
            let joined = try #require(
                Self.startAppending(rooms.map { Self.join($0, "u-1", "d-1") }, through: nodes[0]).wait(seconds: 20))
            #expect(joined.allSatisfy { (try? $0.get()) != nil })
            nodes[0].harness.onLoop { nodes[0].log.stop() }
            #expect(
                waitUntil(seconds: 15) {
                    rooms.allSatisfy { Self.integer(["HLEN", "t:room:{\($0)}:own"], through: nodes[1]) == 0 }
                })
            for room in rooms {
                // Joined, lost, left.
                #expect(Self.integer(["XLEN", "t:room:{\(room)}:log"], through: nodes[1]) == 3, "\(room)")
            }
            #expect(
                waitUntil(seconds: 5) { Self.integer(["EXISTS", "t:{nodes}:A:rooms"], through: nodes[1]) == 0 })
        }
    }

    @Test func anyNodeListsTheRoomsOfEveryPrimary() throws {
        let cluster = try RedisClusterProcess(primaries: 3)
        defer { cluster.shutDown() }
        let harness = try LoopHarness()
        defer { harness.shutDown() }
        var redis = RedisClientConfiguration()
        redis.commandTimeoutMilliseconds = 5_000
        let (first, firstLog) = try ClusterRoomListingTests.node(
            "A", prefix: "t", harness, deployment: cluster.deployment(redis))
        let (_, secondLog) = try ClusterRoomListingTests.node(
            "B", prefix: "t", harness, deployment: cluster.deployment(redis))
        defer { harness.onLoop { for log in [firstLog, secondLog] { log.stop() } } }
        #expect(waitUntil(seconds: 15) { harness.onLoop { firstLog.isAvailable && secondLog.isAvailable } })
        let rooms = (0..<12).map { "room-\($0)" }
        ClusterRoomListingTests.touch(Array(rooms.prefix(6)), through: firstLog, harness)
        ClusterRoomListingTests.touch(Array(rooms.suffix(6)), through: secondLog, harness)
        let (ids, seqs, next) = try ClusterRoomListingTests.page(first, after: nil, limit: 100, harness)
        #expect(ids == rooms.sorted())
        #expect(seqs == Array(repeating: 1, count: rooms.count))
        #expect(next == nil)
        let (page, _, pageNext) = try ClusterRoomListingTests.page(first, after: "room-3", limit: 3, harness)
        #expect(page == ["room-4", "room-5", "room-6"] && pageNext == "room-6")
    }
}
