import ClusterCore
import ClusterTesting
import EventIO
import Foundation
import HTTPClient
import JSONCoding
import Redis
import Rooms
import RoomsTesting
import Testing
import TokenAuth
import Webhooks

@testable import Cluster

/// Webhooks in cluster mode against a real Redis: the entries come from the rooms' streams, the cursor and the lease
/// are kept in Redis, and a second node continues from the cursor when the delivering node dies.
@Suite(.serialized) struct ClusterWebhookTests {
    /// Runs `body` with a fresh Redis server, a loop, a node's shared log connected to the server (available), and a
    /// webhook receiver that answers 200; stops them all afterwards.
    static func withSharedLog(
        roomExpiryMilliseconds: Int64 = 86_400_000,
        _ body: (RedisClientConfiguration, LoopHarness, RedisRoomLog, WebhookReceiver) throws -> Void
    ) throws {
        let server = try RedisServerProcess()
        defer { server.shutDown() }
        let harness = try LoopHarness()
        defer { harness.shutDown() }
        var redis = RedisClientConfiguration()
        redis.port = server.port
        redis.commandTimeoutMilliseconds = 5_000
        let receiver = try WebhookReceiver { _ in .answer(200) }
        defer { receiver.close() }
        let log = try Self.sharedLog(harness, redis: redis, roomExpiryMilliseconds: roomExpiryMilliseconds)
        defer { harness.onLoop { log.stop() } }
        #expect(waitUntil(seconds: 10) { harness.onLoop { log.isAvailable } })
        try body(redis, harness, log, receiver)
    }

    /// A gateway node's shared log on the harness's loop, to append entries as nodes do.
    static func sharedLog(
        _ harness: LoopHarness, redis: RedisClientConfiguration, roomExpiryMilliseconds: Int64 = 86_400_000
    ) throws -> RedisRoomLog {
        let verifier = try TokenVerifier(keys: [try TokenKey(secret: "cluster-webhook-test-secret-0123456789")])
        return harness.onLoop {
            let gateway = RoomsNode(
                configuration: RoomsConfiguration(), verifier: verifier, transport: InMemoryTransport(),
                clock: { 1_764_460_800_000 })
            var configuration = ClusterConfiguration(redis: redis, nodeID: "gateway")
            configuration.roomExpiryMilliseconds = roomExpiryMilliseconds
            let log = RedisRoomLog(
                configuration: configuration,
                rules: SharedRoomRules(gateway.configuration), loop: harness.loop)
            gateway.sharedLog = log
            log.start()
            return log
        }
    }

    /// Appends `count` entries, alternating between `rooms`, and waits until Redis has taken them all.
    static func append(_ count: Int, rooms: [String], to log: RedisRoomLog, _ harness: LoopHarness, from start: Int) {
        let done = ResultBox<Int>()
        harness.onLoop {
            var answered = 0
            for index in 0..<count {
                let event = RoomEvent.recordingChanged(isRecording: (start + index) % 2 == 0)
                let proposal = LogProposal(
                    room: rooms[index % rooms.count], events: [ProposedEvent(event, actor: "test")])
                log.append(proposal) { _ in
                    answered += 1
                    if answered == count { done.put(answered) }
                }
            }
        }
        #expect(done.wait(seconds: 10) == count)
    }

    /// A webhook dispatcher of node `node` for endpoint `crm` at the receiver.
    static func dispatcher(
        node: String, redis: RedisClientConfiguration, receiver: WebhookReceiver, leaseMilliseconds: Int64 = 600,
        maximumRooms: Int = 10_000
    ) throws -> WebhookDispatcher {
        var cluster = ClusterConfiguration(redis: redis, nodeID: node)
        cluster.leaseMilliseconds = leaseMilliseconds
        let endpoint = WebhookEndpoint(
            name: "crm", url: try HTTPURL("http://127.0.0.1:\(receiver.port)/hooks"),
            secret: Array("0123456789abcdef".utf8))
        let configuration = WebhookConfiguration(
            endpoints: [endpoint], maximumBatch: 4, timeoutMilliseconds: 2_000, retryBaseMilliseconds: 20,
            retryMaximumMilliseconds: 100)
        return try WebhookDispatcher(configuration: configuration) { loop in
            RedisWebhookFeed(configuration: cluster, loop: loop, idleWaitMilliseconds: 10, maximumRooms: maximumRooms)
        }
    }

    /// Every room's `seq`s 1...last arrived, in order: a repeat may only go back to what came before.
    static func inOrderWithoutGaps(_ events: [String], rooms: [String: Int]) -> Bool {
        rooms.allSatisfy { room, last in
            var next = 1
            for event in events where event.hasPrefix("\(room)#") {
                guard let sequence = Int(event.dropFirst(room.count + 1)), sequence <= next else { return false }
                if sequence == next { next += 1 }
            }
            return next == last + 1
        }
    }

    @Test func anotherNodeContinuesFromTheCursorInRedisWhenTheDeliveringNodeDies() throws {
        try Self.withSharedLog { redis, harness, log, receiver throws in
            let rooms = ["north", "south"]
            Self.append(10, rooms: rooms, to: log, harness, from: 0)

            let first = try Self.dispatcher(node: "A", redis: redis, receiver: receiver)
            try first.start()
            #expect(
                waitUntil(seconds: 10) { Self.inOrderWithoutGaps(receiver.events, rooms: ["north": 5, "south": 5]) })
            let second = try Self.dispatcher(node: "B", redis: redis, receiver: receiver)
            try second.start()
            defer { second.stop() }
            // B tries to take the endpoint every 200 ms, and is refused while A holds it.
            Thread.sleep(forTimeInterval: 0.5)
            Self.append(6, rooms: rooms, to: log, harness, from: 10)
            #expect(
                waitUntil(seconds: 10) { Self.inOrderWithoutGaps(receiver.events, rooms: ["north": 8, "south": 8]) })
            Thread.sleep(forTimeInterval: 0.3)
            #expect(second.statistics[0].delivered.load(ordering: .relaxed) == 0)
            #expect(try Self.get("rollcall:hook:{crm}:lease", through: log, harness) == "A")

            // The delivering node dies: its loop stops, and its lease lapses in Redis.
            first.stop()
            let before = receiver.events.count
            Self.append(6, rooms: rooms, to: log, harness, from: 16)
            #expect(
                waitUntil(seconds: 10) { Self.inOrderWithoutGaps(receiver.events, rooms: ["north": 11, "south": 11]) })
            // A batch counts as delivered once its cursor has moved in Redis, which is after the receiver answered.
            #expect(waitUntil(seconds: 10) { second.statistics[0].delivered.load(ordering: .relaxed) >= 6 })
            #expect(receiver.events.count >= before + 6)
            // Each event as the rooms' subscribers got it.
            let body = try #require(receiver.requests.last?.body)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])
            let event = try #require((object["events"] as? [[String: Any]])?.first)
            #expect(event["type"] as? String == "event")
            #expect(["media.recording_started", "media.recording_stopped"].contains(event["event"] as? String ?? ""))
            #expect(event["actor"] as? String == "test")
            // The cursor is in Redis, and the lease is B's.
            #expect(
                try Self.get("rollcall:hook:{crm}:cursor", field: "north", through: log, harness)?.hasPrefix("11/")
                    == true)
            #expect(try Self.get("rollcall:hook:{crm}:lease", through: log, harness) == "B")
        }
    }

    /// A string key's value, or a hash field's, read through the node's command connection.
    static func get(
        _ key: String, field: String? = nil, through log: RedisRoomLog, _ harness: LoopHarness
    ) throws -> String? {
        let box = harness.onLoop { () -> ResultBox<RESPValue> in
            let box = ResultBox<RESPValue>()
            log.commands.send(field.map { ["HGET", key, $0] } ?? ["GET", key]) { result in
                if case .success(let value) = result { box.put(value) }
            }
            return box
        }
        return RedisRoomLog.text(try #require(box.wait(seconds: 5)))
    }

    @Test func theCursorForgetsRoomsWhoseRecordsExpired() throws {
        try Self.withSharedLog(roomExpiryMilliseconds: 300) { redis, harness, log, receiver throws in
            Self.append(2, rooms: ["gone"], to: log, harness, from: 0)
            let first = try Self.dispatcher(node: "A", redis: redis, receiver: receiver)
            try first.start()
            #expect(
                waitUntil(seconds: 10) {
                    (try? Self.get("rollcall:hook:{crm}:cursor", field: "gone", through: log, harness)) != nil
                })
            first.stop()
            // The room's records expire; the next node to take the endpoint finds it and drops it from the cursor with
            // its first move.
            #expect(
                waitUntil(seconds: 10) { (try? Self.get("rollcall:room:{gone}:epoch", through: log, harness)) == nil })
            let second = try Self.dispatcher(node: "A", redis: redis, receiver: receiver)
            try second.start()
            defer { second.stop() }
            Self.append(1, rooms: ["alive"], to: log, harness, from: 0)
            #expect(
                waitUntil(seconds: 10) {
                    (try? Self.get("rollcall:hook:{crm}:cursor", field: "alive", through: log, harness)) != nil
                })
            #expect(try Self.get("rollcall:hook:{crm}:cursor", field: "gone", through: log, harness) == nil)
        }
    }

    @Test func theCursorScriptMovesARoomOnlyForwardWithinItsEpochAndOnlyForTheHolder() throws {
        try Self.withSharedLog { _, harness, log, _ throws in
            func run(_ arguments: [String]) throws -> String? {
                let box = harness.onLoop { () -> ResultBox<RESPValue> in
                    let box = ResultBox<RESPValue>()
                    log.commands.send(["EVAL", WebhookScript.source, "1", arguments[1]] + arguments) { result in
                        if case .success(let value) = result { box.put(value) }
                    }
                    return box
                }
                guard case .integer(let answer)? = box.wait(seconds: 5) else { return nil }
                return String(answer)
            }
            let lease = "rollcall:hook:{crm}:lease"
            let cursor = "rollcall:hook:{crm}:cursor"
            func move(_ node: String, _ value: String) throws -> String? {
                try run(["advance", lease, node, "60000", cursor, "rollcall:hook:{crm}:dead", "10", "1", "r", value])
            }
            #expect(try run(["claim", lease, "A", "60000"]) == "1")
            #expect(try run(["claim", lease, "B", "60000"]) == "0")
            #expect(try move("A", "5/e1") == "1")
            #expect(try move("A", "3/e1") == "1")
            #expect(try Self.get(cursor, field: "r", through: log, harness) == "5/e1")
            #expect(try move("A", "7/e1") == "1")
            #expect(try move("B", "9/e1") == "0")
            #expect(try Self.get(cursor, field: "r", through: log, harness) == "7/e1")
            // The room's records started afresh: its cursor starts again.
            #expect(try move("A", "2/e2") == "1")
            #expect(try Self.get(cursor, field: "r", through: log, harness) == "2/e2")
        }
    }

    @Test func aStartingNodeClaimsAsSoonAsItIsConnectedNotARetryPeriodLater() throws {
        try Self.withSharedLog { redis, harness, log, receiver throws in
            Self.append(3, rooms: ["r"], to: log, harness, from: 0)
            // A lease of 9 s: a claim refused for want of a connection would be tried again 3 s later.
            let dispatcher = try Self.dispatcher(node: "A", redis: redis, receiver: receiver, leaseMilliseconds: 9_000)
            let started = Date()
            try dispatcher.start()
            defer { dispatcher.stop() }
            #expect(waitUntil(seconds: 10) { receiver.events.count == 3 })
            #expect(Date().timeIntervalSince(started) < 2)
        }
    }

    @Test func theDeliveryHeaderSplitsIntoTheEndpointAndTheFirstAndLastRoomAndSeqWhateverTheRoomIDsHold() throws {
        try Self.withSharedLog { redis, harness, log, receiver throws in
            let rooms = ["team-a:1", "x-y:z-2"]
            Self.append(6, rooms: rooms, to: log, harness, from: 0)
            let dispatcher = try Self.dispatcher(node: "A", redis: redis, receiver: receiver)
            try dispatcher.start()
            defer { dispatcher.stop() }
            #expect(waitUntil(seconds: 10) { receiver.events.count >= 6 })
            for request in receiver.requests {
                let value = try #require(
                    request.head.split(separator: "\r\n").first { $0.hasPrefix("Rollcall-Delivery: ") }?
                        .dropFirst("Rollcall-Delivery: ".count))
                let parts = value.split(separator: "/", omittingEmptySubsequences: false).map {
                    String($0).removingPercentEncoding ?? "(not percent-encoded)"
                }
                try #require(parts.count == 3, "\(value)")
                #expect(parts[0] == "crm")
                // In a cluster a position is ROOM:SEQ, split at its last colon: the first event sent and the last
                // read (no filters here, so the last sent).
                let events = try #require(
                    (try JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any])?["events"]
                        as? [[String: Any]])
                let sent = events.map { "\($0["room"] as? String ?? ""):\($0["seq"] as? Int ?? 0)" }
                #expect(parts[1] == sent.first)
                #expect(parts[2] == sent.last)
                for part in parts[1...] {
                    let colon = try #require(part.lastIndex(of: ":"))
                    #expect(rooms.contains(String(part[..<colon])))
                    #expect(Int(part[part.index(after: colon)...]) != nil)
                }
            }
        }
    }

    @Test func roomsDroppedFromMemoryAreLoadedAgainAndStillDeliveredInOrder() throws {
        try Self.withSharedLog { redis, harness, log, receiver throws in
            let rooms = ["r1", "r2", "r3"]
            Self.append(9, rooms: rooms, to: log, harness, from: 0)
            // One room's state at a time: the others are loaded again from Redis whenever they have new entries.
            let dispatcher = try Self.dispatcher(node: "A", redis: redis, receiver: receiver, maximumRooms: 1)
            try dispatcher.start()
            defer { dispatcher.stop() }
            #expect(
                waitUntil(seconds: 10) { Self.inOrderWithoutGaps(receiver.events, rooms: ["r1": 3, "r2": 3, "r3": 3]) })
            Self.append(9, rooms: rooms, to: log, harness, from: 9)
            #expect(
                waitUntil(seconds: 10) { Self.inOrderWithoutGaps(receiver.events, rooms: ["r1": 6, "r2": 6, "r3": 6]) })
            #expect(Set(receiver.events).count == receiver.events.count)
        }
    }
}

/// The attendance report in cluster webhooks: rendered from the shared log as the single process stores it.
@Suite struct SharedRoomRendererAttendanceTests {
    @Test func theEndOfASessionCarriesTheAttendanceReportAsTheSingleProcessStoresIt() throws {
        let events: [(Int64, RoomEvent)] = [
            (1_000, Self.joined("u-a", role: .moderator)),
            (2_000, Self.joined("u-b", role: .participant)),
            (61_000, .participantLeft(uid: "u-a", deviceID: "d", reason: .sessionEnded)),
            (61_000, .participantLeft(uid: "u-b", deviceID: "d", reason: .sessionEnded)),
            (61_000, .sessionEnded),
        ]
        let entries = events.enumerated().map { index, event in
            SharedLogEntry(
                RoomLogEntry(sequence: UInt64(index + 1), time: event.0, actor: nil, reason: nil, event: event.1),
                epoch: "e")
        }
        var renderer = SharedRoomRenderer(room: "r", epoch: "e", checkpoint: nil, entries: entries, before: 1)
        var single = RoomReplica(state: RoomState(id: "r"))
        for shared in entries {
            let item = renderer.render(shared)
            single.apply(shared.entry, speakerRule: RoomsConfiguration().speakerRule)
            let (_, message) = single.state.eventMessage(for: shared.entry)
            #expect(item.message == (single.webhookMessage(for: shared.entry, message: message) ?? message))
        }
        let last = try #require(entries.last.map { renderer.render($0) })
        let report = try JSONParser.parse(last.message)
        #expect(report["attendance"]?.arrayValue?.compactMap { $0["inCallMs"]?.intValue } == [60_000, 59_000])
        #expect(try JSONParser.parse(renderer.state.eventMessage(for: entries[3].entry).1)["attendance"] == nil)
    }

    private static func joined(_ uid: String, role: ParticipantRole) -> RoomEvent {
        .participantJoined(uid: uid, deviceID: "d", name: uid, avatar: nil, role: role, callType: nil)
    }
}
