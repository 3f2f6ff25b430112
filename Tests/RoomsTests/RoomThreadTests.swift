import JSONCoding
import RoomsTesting
import Testing
import TokenAuth

@testable import Rooms

@Suite struct RoomThreadTests {
    @Test("A room's rooms thread is a stable hash of its id, and many rooms spread over every rooms thread")
    func roomsSpreadByAStableHash() {
        let placement = RoomThreadPlacement(count: 2)
        #expect(placement.roomThread(ofRoom: "standup") == RoomThreadPlacement(count: 2).roomThread(ofRoom: "standup"))
        #expect(RoomThreadPlacement(count: 1).roomThread(ofRoom: "standup") == 0)
        let owners = (0..<200).map { placement.roomThread(ofRoom: "room-\($0)") }
        #expect(owners.filter { $0 == 0 }.count > 70)
        #expect(owners.filter { $0 == 1 }.count > 70)
        #expect(placement.home(of: SessionID(7)) == 1)
    }

    @Test("A session in rooms of two rooms threads gets one welcome and each room's events from the room's owner only")
    func aSessionInRoomsOfTwoRoomThreads() throws {
        let roomThreads = try RoomThreadHarness()
        let first = roomThreads.room(on: 0)
        let second = roomThreads.room(on: 1)
        let alice = try roomThreads.connect("u-alice", groups: [first, second])
        let bob = try roomThreads.connect("u-bob", groups: [first, second])
        try roomThreads.join(alice, first)
        try roomThreads.join(alice, second)
        try roomThreads.join(bob, first)
        #expect(roomThreads.drain(alice).eventNames == ["participant.joined"])
        try roomThreads.join(bob, second)
        let joined = roomThreads.drain(alice).events
        #expect(joined.map { $0["room"] } == [.string(second)])
        #expect(roomThreads.gateways[0].roomIDs == [first])
        #expect(roomThreads.gateways[1].roomIDs == [second])
        let answer = roomThreads.request(bob, ["type": "state", "id": 1, "room": .string(second), "handRaised": true])
        #expect(answer.first(type: "ack")?["room"] == .string(second))
        #expect(roomThreads.drain(alice).eventNames == ["participant.hand_raised"])
        #expect(roomThreads.gateways.allSatisfy { $0.sessionCount == 2 })
    }

    @Test(
        "A group's meeting messages reach its members on every rooms thread in the order the group's owner logged them")
    func meetingMessagesStayOrderedEverywhere() throws {
        let roomThreads = try RoomThreadHarness()
        let group = roomThreads.room(on: 0, "team")
        let elsewhere = roomThreads.room(on: 1)
        let alice = try roomThreads.connect("u-alice", groups: [group, elsewhere])
        let bob = try roomThreads.connect("u-bob", groups: [group, elsewhere])
        let inRoom = try roomThreads.connect("u-carol", groups: [group])
        let lobby = try roomThreads.connect("u-dave", groups: [group])
        try roomThreads.join(inRoom, group)
        try roomThreads.join(alice, elsewhere)
        try roomThreads.join(bob, elsewhere)
        _ = roomThreads.drain(alice)
        for (index, sender) in [alice, bob, alice, bob, alice].enumerated() {
            roomThreads.send(
                sender, ["type": "meeting", "group": .string(group), "sessionId": .string("call-\(index)")])
            // Each state change in the other rooms thread's room lands between the meeting messages.
            roomThreads.send(bob, ["type": "state", "room": .string(elsewhere), "handRaised": .bool(index % 2 == 0)])
        }
        roomThreads.runAll(order: [1, 0])
        let expected = (0..<5).map { JSONValue.string("call-\($0)") }
        for member in [alice, bob, inRoom, lobby] {
            let meetings = roomThreads.drain(member).events(named: "meeting.message")
            #expect(meetings.map { $0["data"]?["sessionId"] } == expected)
            let sequences = meetings.compactMap { $0["seq"]?.intValue }
            #expect(sequences == sequences.sorted() && Set(sequences).count == 5)
        }
        #expect(roomThreads.owner(of: group).roomState(group)?.activeMeeting?.sessionID == "call-4")
        #expect(roomThreads.gateways[1].roomState(group) == nil)
    }

    @Test("The per-user connection limit holds exactly when the rooms threads see two opens in opposite orders")
    func theConnectionLimitHoldsAcrossRoomThreads() throws {
        let roomThreads = try RoomThreadHarness { $0.maximumConnectionsPerUser = 1 }
        let first = roomThreads.newSession()
        let second = roomThreads.newSession()
        let firstToken = try roomThreads.token("u-alice")
        let secondToken = try roomThreads.token("u-alice")
        roomThreads.enqueue(0) { $0.sessionOpened(first, token: firstToken) }
        roomThreads.enqueue(0) { $0.sessionOpened(second, token: secondToken) }
        roomThreads.enqueue(1) { $0.sessionOpened(second, token: secondToken) }
        roomThreads.enqueue(1) { $0.sessionOpened(first, token: firstToken) }
        roomThreads.runAll(order: [1, 0])
        // Rooms thread 1 came first and took the second session; both rooms threads agree, and each session hears once.
        #expect(roomThreads.drain(second).map { $0["type"] } == ["welcome"])
        #expect(roomThreads.drain(first).errorCodes == ["ERR_TOO_MANY_CONNECTIONS"])
        #expect(roomThreads.transport.closes[first]?.code == GatewayCloseCode.tooManyConnections.rawValue)
        #expect(roomThreads.transport.closes[second] == nil)
        #expect(roomThreads.gateways.allSatisfy { $0.sessions[first] == nil && $0.sessions[second]?.claims != nil })
        #expect(roomThreads.authority.connections(of: "u-alice") == 1)
        roomThreads.close(first, cleanly: false)
        roomThreads.close(second)
        roomThreads.runAll()
        #expect(roomThreads.authority.connections(of: "u-alice") == 0)
        _ = try roomThreads.connect("u-alice")
    }

    @Test("The limit of rooms per connection counts the rooms of every rooms thread")
    func theRoomLimitCountsEveryRoomThread() throws {
        let roomThreads = try RoomThreadHarness { $0.maximumRoomsPerSession = 2 }
        let rooms = [roomThreads.room(on: 0), roomThreads.room(on: 1), roomThreads.room(on: 0, "other")]
        let alice = try roomThreads.connect("u-alice", groups: rooms)
        try roomThreads.join(alice, rooms[0])
        try roomThreads.join(alice, rooms[1])
        let refused = roomThreads.request(alice, ["type": "join", "id": 3, "room": .string(rooms[2])])
        #expect(refused.errorCodes == ["ERR_TOO_MANY_ROOMS"])
        #expect(roomThreads.request(alice, ["type": "leave", "room": .string(rooms[1])]).first?["type"] == "ack")
        try roomThreads.join(alice, rooms[2])
    }

    @Test("A connection's end reaches its rooms on every rooms thread and leaves nothing behind")
    func aClosedConnectionIsCleanedUpEverywhere() throws {
        let roomThreads = try RoomThreadHarness()
        let first = roomThreads.room(on: 0)
        let second = roomThreads.room(on: 1)
        let alice = try roomThreads.connect("u-alice", groups: [first, second])
        let watcher = try roomThreads.connect("u-bob", groups: [first, second])
        for room in [first, second] {
            try roomThreads.join(alice, room)
            try roomThreads.join(watcher, room)
        }
        _ = roomThreads.drain(watcher)
        roomThreads.close(alice, cleanly: false)
        roomThreads.runAll()
        let lost = roomThreads.drain(watcher).events
        #expect(lost.eventNames == ["session.connection_lost", "session.connection_lost"])
        #expect(Set(lost.compactMap { $0["room"]?.stringValue }) == [first, second])
        #expect(roomThreads.gateways.allSatisfy { $0.sessionCount == 1 && $0.subscriberCount == 1 })
        #expect(roomThreads.authority.connections(of: "u-alice") == 0)
        roomThreads.close(watcher)
        roomThreads.runAll()
        #expect(roomThreads.authority.sessionsKept == 0)
    }

    @Test("The rooms query answers once with the rooms of every rooms thread")
    func theRoomsQueryGathersEveryRoomThread() throws {
        let roomThreads = try RoomThreadHarness()
        let first = roomThreads.room(on: 0)
        let second = roomThreads.room(on: 1)
        let alice = try roomThreads.connect("u-alice", groups: [first, second])
        try roomThreads.join(alice, second)
        let answer = roomThreads.request(alice, ["type": "query", "id": 4, "query": "rooms"])
        #expect(answer.count == 1)
        #expect(answer.first?["id"] == 4)
        let rooms = answer.first?["rooms"]?.arrayValue ?? []
        #expect(rooms.map { $0["room"] } == [first, second].sorted().map { .string($0) })
        #expect(rooms.first { $0["room"] == .string(second) }?["active"] == true)
        let stranger = roomThreads.open(token: nil)
        roomThreads.runAll()
        #expect(
            roomThreads.request(stranger, ["type": "query", "id": 5, "query": "rooms"]).errorCodes == [
                "ERR_UNAUTHORIZED"
            ])
    }

    @Test("An authentication timeout is decided once: a late token is refused on every rooms thread")
    func anAuthenticationTimeoutIsDecidedOnce() throws {
        let roomThreads = try RoomThreadHarness()
        let late = roomThreads.open(token: nil)
        roomThreads.runAll()
        roomThreads.advance(milliseconds: RoomsConfiguration().authenticationTimeoutMilliseconds + 1)
        let home = roomThreads.placement.home(of: late)
        #expect(roomThreads.transport.closes[late]?.code == GatewayCloseCode.unauthorized.rawValue)
        #expect(roomThreads.gateways[home].sessions[late] == nil)
        roomThreads.send(late, ["type": "auth", "token": .string(try roomThreads.token("u-alice"))])
        roomThreads.runAll()
        #expect(roomThreads.drain(late).map { $0["type"] } == [])
        #expect(roomThreads.gateways.allSatisfy { $0.sessions[late] == nil })
        #expect(roomThreads.authority.connections(of: "u-alice") == 0)
    }

    @Test("Pings and unreadable messages are answered once, by the session's home")
    func sessionMessagesAreAnsweredOnce() throws {
        let roomThreads = try RoomThreadHarness()
        let alice = try roomThreads.connect("u-alice")
        #expect(roomThreads.request(alice, ["type": "ping", "id": 1]).map { $0["type"] } == ["pong"])
        #expect(roomThreads.request(alice, ["type": "nonsense"]).errorCodes == ["ERR_BAD_REQUEST"])
    }
}
