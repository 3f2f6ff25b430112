import ClusterCore
import ClusterTesting
import EventIO
import Foundation
import Redis
import Rooms
import Testing

@testable import Cluster

/// What a node's shared log delivered, recorded on its loop.
private final class DeliveryRecorder: SharedRoomLogDelegate {
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

/// The append path against a real Redis: appends of one room batched into one script call, the rooms' expiry
/// refreshed lazily, and the room index and each node's rooms kept outside the append script.
@Suite(.serialized) struct ClusterAppendTests {
    /// A node's shared log on `harness`'s loop, without a gateway: `recorder` gets what it delivers.
    private static func node(
        _ id: String, _ harness: LoopHarness, redis: RedisClientConfiguration, recorder: DeliveryRecorder? = nil,
        capacity: Int = 100, grace: Int64 = 15_000, lease: Int64 = 5_000, expiry: Int64 = 86_400_000
    ) -> RedisRoomLog {
        harness.onLoop {
            var configuration = ClusterConfiguration(redis: redis, nodeID: id)
            configuration.keyPrefix = "t"
            configuration.leaseMilliseconds = lease
            configuration.roomExpiryMilliseconds = expiry
            let rules = SharedRoomRules(
                roomCapacity: capacity, reservedSeats: 0, reconnectGraceMilliseconds: grace,
                history: HistoryRetention())
            let log = RedisRoomLog(configuration: configuration, rules: rules, loop: harness.loop)
            log.follower.delegate = recorder
            log.start()
            return log
        }
    }

    /// Runs `body` with a fresh Redis server and a loop; stops them afterwards.
    private static func withRedis(_ body: (RedisClientConfiguration, LoopHarness) throws -> Void) throws {
        let server = try RedisServerProcess()
        defer { server.shutDown() }
        let harness = try LoopHarness()
        defer { harness.shutDown() }
        var redis = RedisClientConfiguration()
        redis.port = server.port
        redis.commandTimeoutMilliseconds = 5_000
        try body(redis, harness)
    }

    /// Sends a command through the node's command connection and waits for the reply.
    private static func command(
        _ arguments: [String], through log: RedisRoomLog, _ harness: LoopHarness
    ) throws
        -> RESPValue
    {
        let box = ResultBox<RESPValue>()
        harness.onLoop {
            log.commands.send(arguments) { result in
                if case .success(let value) = result { box.put(value) }
            }
        }
        return try #require(box.wait(seconds: 5))
    }

    /// The members of a set or of a sorted set's range, sorted.
    private static func members(
        _ arguments: [String], through log: RedisRoomLog, _ harness: LoopHarness
    ) throws
        -> [String]
    {
        guard case .array(let items?) = try Self.command(arguments, through: log, harness) else { return [] }
        return items.compactMap { RedisRoomLog.text($0) }.sorted()
    }

    private static func integer(
        _ arguments: [String], through log: RedisRoomLog, _ harness: LoopHarness
    ) throws
        -> Int64?
    {
        guard case .integer(let value) = try Self.command(arguments, through: log, harness) else { return nil }
        return value
    }

    /// Appends the proposals in one loop turn (so that those of one room share script calls) and waits for every
    /// answer, in the order of the proposals.
    private static func append(
        _ proposals: [LogProposal], through log: RedisRoomLog, _ harness: LoopHarness
    ) throws -> [Result<UInt64, LogAppendFailure>] {
        try #require(Self.startAppending(proposals, through: log, harness).wait(seconds: 20))
    }

    /// Appends the proposals in one loop turn; the box gets every answer, in the order of the proposals.
    private static func startAppending(
        _ proposals: [LogProposal], through log: RedisRoomLog, _ harness: LoopHarness
    ) -> ResultBox<[Result<UInt64, LogAppendFailure>]> {
        let box = ResultBox<[Result<UInt64, LogAppendFailure>]>()
        harness.onLoop {
            var results: [Result<UInt64, LogAppendFailure>?] = Array(repeating: nil, count: proposals.count)
            var answered = 0
            for (index, proposal) in proposals.enumerated() {
                log.append(proposal) { result in
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

    private static func note(_ room: String, _ text: String, expected: UInt64? = nil) -> LogProposal {
        LogProposal(
            room: room, events: [ProposedEvent(.metadataChanged(changes: ["n": text]), actor: nil)],
            expectedSequence: expected)
    }

    private static func waitAvailable(_ logs: [RedisRoomLog], _ harness: LoopHarness) {
        #expect(waitUntil(seconds: 10) { harness.onLoop { logs.allSatisfy(\.isAvailable) } })
    }

    private static func roomKeys(_ room: String) -> [String] {
        ["seq", "epoch", "log", "devices", "seats:p", "own"].map { "t:room:{\(room)}:\($0)" }
    }

    @Test func aRoomIdlePastItsExpiryDisappearsWhileAnActiveOneKeepsAllItsRecords() throws {
        try Self.withRedis { redis, harness in
            let log = Self.node("A", harness, redis: redis, expiry: 1_200)
            defer { harness.onLoop { log.stop() } }
            Self.waitAvailable([log], harness)
            _ = try Self.append(
                [Self.join("idle", "u-1", "d-1"), Self.join("active", "u-1", "d-1")], through: log, harness)
            for step in 0..<25 {
                let results = try Self.append([Self.note("active", "\(step)")], through: log, harness)
                #expect((try? results[0].get()) == UInt64(step + 2))
                Thread.sleep(forTimeInterval: 0.1)
            }
            // Two expiry periods later: every key of the idle room is gone, none of the active room's (the devices
            // and seats too, written only by the join at the start).
            for key in Self.roomKeys("idle") {
                #expect(try Self.integer(["EXISTS", key], through: log, harness) == 0, "\(key)")
            }
            for key in Self.roomKeys("active") {
                let left = try #require(try Self.integer(["PTTL", key], through: log, harness))
                #expect(left > 0 && left <= 1_200, "\(key): \(left)")
            }
        }
    }

    @Test func expiryIsRefreshedOnlyWhenAQuarterOfItHasPassed() throws {
        try Self.withRedis { redis, harness in
            let log = Self.node("A", harness, redis: redis, expiry: 600_000)
            defer { harness.onLoop { log.stop() } }
            Self.waitAvailable([log], harness)
            _ = try Self.append([Self.note("lazy", "first")], through: log, harness)
            let first = try #require(try Self.integer(["PTTL", "t:room:{lazy}:seq"], through: log, harness))
            Thread.sleep(forTimeInterval: 0.05)
            _ = try Self.append([Self.note("lazy", "second")], through: log, harness)
            let second = try #require(try Self.integer(["PTTL", "t:room:{lazy}:seq"], through: log, harness))
            #expect(second < first)
            // Below three quarters of the expiry, the next append renews it.
            #expect(try Self.integer(["PEXPIRE", "t:room:{lazy}:seq", "400000"], through: log, harness) == 1)
            _ = try Self.append([Self.note("lazy", "third")], through: log, harness)
            let third = try #require(try Self.integer(["PTTL", "t:room:{lazy}:seq"], through: log, harness))
            #expect(third > 500_000)
        }
    }

    @Test func theRoomIndexAndTheNodesRoomsCoverEveryRoomAndTheReaperEveryDevice() throws {
        try Self.withRedis { redis, harness in
            let doomed = Self.node("A", harness, redis: redis, grace: 300, lease: 300)
            let survivor = Self.node("B", harness, redis: redis, grace: 300, lease: 300)
            defer { harness.onLoop { survivor.stop() } }
            Self.waitAvailable([doomed, survivor], harness)
            let rooms = (0..<12).map { "r-\($0)" }
            var proposals = rooms.map { Self.join($0, "u-1", "d-1") }
            proposals += rooms.prefix(4).map { Self.join($0, "u-2", "d-2") }
            proposals += [Self.join("early", "u-1", "d-1")]
            for result in try Self.append(proposals, through: doomed, harness) { #expect((try? result.get()) != nil) }
            let leave = LogProposal(
                room: "early",
                events: [ProposedEvent(.participantLeft(uid: "u-1", deviceID: "d-1", reason: .left), actor: "u-1")])
            _ = try Self.append([leave], through: doomed, harness)
            #expect(
                try Self.members(["SMEMBERS", "t:{nodes}:A:rooms"], through: doomed, harness)
                    == (rooms + ["early"]).sorted())
            #expect(
                waitUntil(seconds: 5) {
                    (try? Self.members(["ZRANGE", "t:rooms", "0", "-1"], through: doomed, harness))
                        == (rooms + ["early"]).sorted()
                })
            // The lease renewal drops the room where the node holds no device any more.
            #expect(
                waitUntil(seconds: 5) {
                    (try? Self.integer(["SISMEMBER", "t:{nodes}:A:rooms", "early"], through: doomed, harness)) == 0
                })

            // The node dies: the other's lease renewals find each of its devices, lost and then left.
            harness.onLoop { doomed.stop() }
            #expect(
                waitUntil(seconds: 10) {
                    rooms.allSatisfy { room in
                        (try? Self.integer(["HLEN", "t:room:{\(room)}:own"], through: survivor, harness)) == 0
                    }
                })
            for (index, room) in rooms.enumerated() {
                let joins: Int64 = index < 4 ? 2 : 1
                // Each device: joined, lost, left.
                #expect(try Self.integer(["XLEN", "t:room:{\(room)}:log"], through: survivor, harness) == joins * 3)
                #expect(try Self.integer(["HLEN", "t:room:{\(room)}:seats:p"], through: survivor, harness) == 0)
            }
            // Once every room is reaped, the dead node's set goes.
            #expect(
                waitUntil(seconds: 5) {
                    (try? Self.integer(["EXISTS", "t:{nodes}:A:rooms"], through: survivor, harness)) == 0
                })
        }
    }

    @Test func interleavedAppendsOfTwoNodesToManyRoomsArriveEverywhereInOrderExactlyOnce() throws {
        try Self.withRedis { redis, harness in
            let other = try LoopHarness()
            defer { other.shutDown() }
            let recorders = [DeliveryRecorder(), DeliveryRecorder()]
            let logs = [
                Self.node("A", harness, redis: redis, recorder: recorders[0]),
                Self.node("B", other, redis: redis, recorder: recorders[1]),
            ]
            let harnesses = [harness, other]
            defer { for (log, loop) in zip(logs, harnesses) { loop.onLoop { log.stop() } } }
            Self.waitAvailable([logs[0]], harness)
            Self.waitAvailable([logs[1]], other)
            let rooms = (0..<8).map { "m-\($0)" }
            for (log, loop) in zip(logs, harnesses) { loop.onLoop { for room in rooms { log.follow(room) } } }
            for (recorder, loop) in zip(recorders, harnesses) {
                #expect(waitUntil(seconds: 10) { loop.onLoop { recorder.loaded.count == rooms.count } })
            }
            let rounds = 40
            let calls = harness.onLoop { logs[0].appendCalls }
            // Both nodes at once, each its appends to every room interleaved, all in one loop turn.
            let answers = zip(logs, harnesses).enumerated().map { node, pair in
                let name = node == 0 ? "A" : "B"
                var proposals: [LogProposal] = []
                for round in 0..<rounds {
                    for room in rooms { proposals.append(Self.note(room, "\(name)-\(round)")) }
                }
                return Self.startAppending(proposals, through: pair.0, pair.1)
            }
            for answer in answers {
                let results = try #require(answer.wait(seconds: 30))
                #expect(results.count == rounds * rooms.count)
                #expect(results.allSatisfy { (try? $0.get()) != nil })
            }
            // Fewer script calls than appends: those of one room went together.
            #expect(harness.onLoop { logs[0].appendCalls } - calls < rounds * rooms.count)

            let total = 2 * rounds
            for (recorder, loop) in zip(recorders, harnesses) {
                #expect(
                    waitUntil(seconds: 10) {
                        loop.onLoop { rooms.allSatisfy { recorder.entries[$0]?.count ?? 0 >= total } }
                    })
            }
            let delivered = zip(recorders, harnesses).map { recorder, loop in loop.onLoop { recorder.entries } }
            for room in rooms {
                let first = delivered[0][room] ?? []
                #expect(first.map(\.sequence) == (1...UInt64(total)).map { $0 })
                #expect(first == delivered[1][room])
                // Each node's appends in the order it made them.
                let texts = first.compactMap { entry -> String? in
                    guard case .metadataChanged(let changes) = entry.event else { return nil }
                    return changes["n"] ?? nil
                }
                for name in ["A", "B"] {
                    #expect(texts.filter { $0.hasPrefix(name) } == (0..<rounds).map { "\(name)-\($0)" })
                }
            }
        }
    }

    @Test func conditionsInsideABatchAreCheckedAgainstTheRoomAsTheProposalsBeforeLeftIt() throws {
        try Self.withRedis { redis, harness in
            let mine = Self.node("A", harness, redis: redis, capacity: 2)
            let theirs = Self.node("B", harness, redis: redis, capacity: 2)
            defer { harness.onLoop { for log in [mine, theirs] { log.stop() } } }
            Self.waitAvailable([mine, theirs], harness)
            _ = try Self.append([Self.join("c", "u-1", "d-1")], through: mine, harness)
            _ = try Self.append([Self.join("c", "u-2", "d-2")], through: theirs, harness)
            func owned(_ uid: String, _ device: String) -> LogProposal {
                LogProposal(
                    room: "c",
                    events: [
                        ProposedEvent(
                            .connectionLost(uid: uid, deviceID: device), actor: nil,
                            requiresDeviceOwnership: true)
                    ])
            }
            let calls = harness.onLoop { mine.appendCalls }
            let results = try Self.append(
                [
                    Self.note("c", "plain"),
                    Self.note("c", "expected", expected: 3),
                    Self.note("c", "stale", expected: 3),
                    owned("u-2", "d-2"),
                    owned("u-1", "d-1"),
                    Self.join("c", "u-3", "d-3"),
                    Self.note("c", "last"),
                ], through: mine, harness)
            #expect(harness.onLoop { mine.appendCalls } - calls == 1)
            #expect((try? results[0].get()) == 3)
            #expect((try? results[1].get()) == 4)
            #expect(results[2] == .failure(.conditionFailed))
            #expect(results[3] == .failure(.conditionFailed))
            #expect((try? results[4].get()) == 5)
            #expect(results[5] == .failure(.refused(.callFull)))
            #expect((try? results[6].get()) == 6)
            #expect(try Self.integer(["XLEN", "t:room:{c}:log"], through: mine, harness) == 6)
            #expect(try Self.integer(["HLEN", "t:room:{c}:seats:p"], through: mine, harness) == 2)
        }
    }
}
