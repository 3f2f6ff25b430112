import JSONCoding
import RoomsTesting
import Testing
import TokenAuth

@testable import Rooms

@Suite struct RoomShardTests {
    @Test("A room's shard is a stable hash of its id, and many rooms spread over every shard")
    func roomsSpreadByAStableHash() {
        let placement = ShardPlacement(count: 2)
        #expect(placement.shard(ofRoom: "standup") == ShardPlacement(count: 2).shard(ofRoom: "standup"))
        #expect(ShardPlacement(count: 1).shard(ofRoom: "standup") == 0)
        let owners = (0..<200).map { placement.shard(ofRoom: "room-\($0)") }
        #expect(owners.filter { $0 == 0 }.count > 70)
        #expect(owners.filter { $0 == 1 }.count > 70)
        #expect(placement.home(of: SessionID(7)) == 1)
    }

    @Test("A session in rooms of two shards gets one welcome and each room's events from the room's owner only")
    func aSessionInRoomsOfTwoShards() throws {
        let shards = try ShardHarness()
        let first = shards.room(on: 0)
        let second = shards.room(on: 1)
        let alice = try shards.connect("u-alice", groups: [first, second])
        let bob = try shards.connect("u-bob", groups: [first, second])
        try shards.join(alice, first)
        try shards.join(alice, second)
        try shards.join(bob, first)
        #expect(shards.drain(alice).eventNames == ["participant.joined"])
        try shards.join(bob, second)
        let joined = shards.drain(alice).events
        #expect(joined.map { $0["room"] } == [.string(second)])
        #expect(shards.gateways[0].roomIDs == [first])
        #expect(shards.gateways[1].roomIDs == [second])
        let answer = shards.request(bob, ["type": "state", "id": 1, "room": .string(second), "handRaised": true])
        #expect(answer.first(type: "ack")?["room"] == .string(second))
        #expect(shards.drain(alice).eventNames == ["participant.hand_raised"])
        #expect(shards.gateways.allSatisfy { $0.sessionCount == 2 })
    }

    @Test("A group's meeting messages reach its members on every shard in the order the group's owner logged them")
    func meetingMessagesStayOrderedEverywhere() throws {
        let shards = try ShardHarness()
        let group = shards.room(on: 0, "team")
        let elsewhere = shards.room(on: 1)
        let alice = try shards.connect("u-alice", groups: [group, elsewhere])
        let bob = try shards.connect("u-bob", groups: [group, elsewhere])
        let inRoom = try shards.connect("u-carol", groups: [group])
        let lobby = try shards.connect("u-dave", groups: [group])
        try shards.join(inRoom, group)
        try shards.join(alice, elsewhere)
        try shards.join(bob, elsewhere)
        _ = shards.drain(alice)
        for (index, sender) in [alice, bob, alice, bob, alice].enumerated() {
            shards.send(
                sender, ["type": "meeting", "group": .string(group), "sessionId": .string("call-\(index)")])
            // Each state change in the other shard's room lands between the meeting messages.
            shards.send(bob, ["type": "state", "room": .string(elsewhere), "handRaised": .bool(index % 2 == 0)])
        }
        shards.runAll(order: [1, 0])
        let expected = (0..<5).map { JSONValue.string("call-\($0)") }
        for member in [alice, bob, inRoom, lobby] {
            let meetings = shards.drain(member).events(named: "meeting.message")
            #expect(meetings.map { $0["data"]?["sessionId"] } == expected)
            let sequences = meetings.compactMap { $0["seq"]?.intValue }
            #expect(sequences == sequences.sorted() && Set(sequences).count == 5)
        }
        #expect(shards.owner(of: group).roomState(group)?.activeMeeting?.sessionID == "call-4")
        #expect(shards.gateways[1].roomState(group) == nil)
    }

    @Test("The per-user connection limit holds exactly when the shards see two opens in opposite orders")
    func theConnectionLimitHoldsAcrossShards() throws {
        let shards = try ShardHarness { $0.maximumConnectionsPerUser = 1 }
        let first = shards.newSession()
        let second = shards.newSession()
        let firstToken = try shards.token("u-alice")
        let secondToken = try shards.token("u-alice")
        shards.enqueue(0) { $0.sessionOpened(first, token: firstToken) }
        shards.enqueue(0) { $0.sessionOpened(second, token: secondToken) }
        shards.enqueue(1) { $0.sessionOpened(second, token: secondToken) }
        shards.enqueue(1) { $0.sessionOpened(first, token: firstToken) }
        shards.runAll(order: [1, 0])
        // Shard 1 came first and took the second session; both shards agree, and each session hears once.
        #expect(shards.drain(second).map { $0["type"] } == ["welcome"])
        #expect(shards.drain(first).errorCodes == ["ERR_TOO_MANY_CONNECTIONS"])
        #expect(shards.transport.closes[first]?.code == GatewayCloseCode.tooManyConnections.rawValue)
        #expect(shards.transport.closes[second] == nil)
        #expect(shards.gateways.allSatisfy { $0.sessions[first] == nil && $0.sessions[second]?.claims != nil })
        #expect(shards.authority.connections(of: "u-alice") == 1)
        shards.close(first, cleanly: false)
        shards.close(second)
        shards.runAll()
        #expect(shards.authority.connections(of: "u-alice") == 0)
        _ = try shards.connect("u-alice")
    }

    @Test("The limit of rooms per connection counts the rooms of every shard")
    func theRoomLimitCountsEveryShard() throws {
        let shards = try ShardHarness { $0.maximumRoomsPerSession = 2 }
        let rooms = [shards.room(on: 0), shards.room(on: 1), shards.room(on: 0, "other")]
        let alice = try shards.connect("u-alice", groups: rooms)
        try shards.join(alice, rooms[0])
        try shards.join(alice, rooms[1])
        let refused = shards.request(alice, ["type": "join", "id": 3, "room": .string(rooms[2])])
        #expect(refused.errorCodes == ["ERR_TOO_MANY_ROOMS"])
        #expect(shards.request(alice, ["type": "leave", "room": .string(rooms[1])]).first?["type"] == "ack")
        try shards.join(alice, rooms[2])
    }

    @Test("A connection's end reaches its rooms on every shard and leaves nothing behind")
    func aClosedConnectionIsCleanedUpEverywhere() throws {
        let shards = try ShardHarness()
        let first = shards.room(on: 0)
        let second = shards.room(on: 1)
        let alice = try shards.connect("u-alice", groups: [first, second])
        let watcher = try shards.connect("u-bob", groups: [first, second])
        for room in [first, second] {
            try shards.join(alice, room)
            try shards.join(watcher, room)
        }
        _ = shards.drain(watcher)
        shards.close(alice, cleanly: false)
        shards.runAll()
        let lost = shards.drain(watcher).events
        #expect(lost.eventNames == ["session.connection_lost", "session.connection_lost"])
        #expect(Set(lost.compactMap { $0["room"]?.stringValue }) == [first, second])
        #expect(shards.gateways.allSatisfy { $0.sessionCount == 1 && $0.subscriberCount == 1 })
        #expect(shards.authority.connections(of: "u-alice") == 0)
        shards.close(watcher)
        shards.runAll()
        #expect(shards.authority.sessionsKept == 0)
    }

    @Test("The rooms query answers once with the rooms of every shard")
    func theRoomsQueryGathersEveryShard() throws {
        let shards = try ShardHarness()
        let first = shards.room(on: 0)
        let second = shards.room(on: 1)
        let alice = try shards.connect("u-alice", groups: [first, second])
        try shards.join(alice, second)
        let answer = shards.request(alice, ["type": "query", "id": 4, "query": "rooms"])
        #expect(answer.count == 1)
        #expect(answer.first?["id"] == 4)
        let rooms = answer.first?["rooms"]?.arrayValue ?? []
        #expect(rooms.map { $0["room"] } == [first, second].sorted().map { .string($0) })
        #expect(rooms.first { $0["room"] == .string(second) }?["active"] == true)
        let stranger = shards.open(token: nil)
        shards.runAll()
        #expect(
            shards.request(stranger, ["type": "query", "id": 5, "query": "rooms"]).errorCodes == ["ERR_UNAUTHORIZED"])
    }

    @Test("An authentication timeout is decided once: a late token is refused on every shard")
    func anAuthenticationTimeoutIsDecidedOnce() throws {
        let shards = try ShardHarness()
        let late = shards.open(token: nil)
        shards.runAll()
        shards.advance(milliseconds: GatewayConfiguration().authenticationTimeoutMilliseconds + 1)
        let home = shards.placement.home(of: late)
        #expect(shards.transport.closes[late]?.code == GatewayCloseCode.unauthorized.rawValue)
        #expect(shards.gateways[home].sessions[late] == nil)
        shards.send(late, ["type": "auth", "token": .string(try shards.token("u-alice"))])
        shards.runAll()
        #expect(shards.drain(late).map { $0["type"] } == [])
        #expect(shards.gateways.allSatisfy { $0.sessions[late] == nil })
        #expect(shards.authority.connections(of: "u-alice") == 0)
    }

    @Test("Pings and unreadable messages are answered once, by the session's home")
    func sessionMessagesAreAnsweredOnce() throws {
        let shards = try ShardHarness()
        let alice = try shards.connect("u-alice")
        #expect(shards.request(alice, ["type": "ping", "id": 1]).map { $0["type"] } == ["pong"])
        #expect(shards.request(alice, ["type": "nonsense"]).errorCodes == ["ERR_BAD_REQUEST"])
    }
}
