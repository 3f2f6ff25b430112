import JSONCoding
import Rooms
import Testing
import TokenAuth

@testable import RollcallServer

@Suite("Rooms spread over two rooms threads", .serialized)
struct RoomThreadsTests {
    /// Two rooms, one owned by each rooms thread.
    static func roomsOnBothThreads() -> (String, String) {
        let placement = RoomThreadPlacement(count: 2)
        let rooms = (0...).lazy.map { "room-\($0)" }
        return (
            rooms.first { placement.roomThread(ofRoom: $0) == 0 }!,
            rooms.first { placement.roomThread(ofRoom: $0) == 1 }!
        )
    }

    @Test("Clients on two connection loops use rooms of both threads, each room held by its own thread only")
    func roomsLiveOnTheirOwnThreads() throws {
        let (first, second) = Self.roomsOnBothThreads()
        try LiveRooms.with(server: { $0.eventLoopCount = 2 }, threads: 2) { live in
            var clients: [RoomsClient] = []
            for index in 0..<4 {
                let client = try live.client(live.token("user-\(index)", groups: [first, second]))
                #expect(try client.join(first)["type"]?.stringValue == "ack")
                #expect(try client.join(second)["type"]?.stringValue == "ack")
                clients.append(client)
            }
            #expect(live.runtime.inspect(roomThread: 0) { $0.roomIDs } == [first])
            #expect(live.runtime.inspect(roomThread: 1) { $0.roomIDs } == [second])
            #expect(live.runtime.inspect(roomThread: 1) { $0.sessionCount } == 4)
            let answer = try clients[0].request([("type", "query"), ("query", "rooms")])
            let listed = answer["rooms"]?.arrayValue?.compactMap { $0["room"]?.stringValue }
            #expect(listed == [first, second].sorted())
            #expect(clients.allSatisfy { $0.ping() })
        }
    }

    @Test("A group's meeting messages from several senders reach every member in one order")
    func meetingMessagesStayOrdered() throws {
        let (group, elsewhere) = Self.roomsOnBothThreads()
        try LiveRooms.with(server: { $0.eventLoopCount = 2 }, threads: 2) { live in
            var members: [RoomsClient] = []
            for index in 0..<3 {
                let member = try live.client(live.token("member-\(index)", groups: [group, elsewhere]))
                #expect(try member.join(index == 0 ? group : elsewhere)["type"]?.stringValue == "ack")
                members.append(member)
            }
            for round in 0..<10 {
                for (index, member) in members.enumerated() {
                    try member.send(
                        .object(
                            JSONObject(uniqueKeysWithValues: [
                                ("type", "meeting"), ("group", .string(group)),
                                ("sessionId", .string("call-\(index)-\(round)")),
                            ])))
                }
            }
            var orders: [[String]] = []
            for member in members {
                var seen: [(Int64, String)] = []
                while seen.count < 30 {
                    let message = try member.next()
                    guard message["event"]?.stringValue == "meeting.message",
                        let sequence = message["seq"]?.intValue,
                        let call = message["data"]?["sessionId"]?.stringValue
                    else { continue }
                    seen.append((sequence, call))
                }
                #expect(seen.map(\.0) == seen.map(\.0).sorted())
                orders.append(seen.map(\.1))
            }
            #expect(orders.allSatisfy { $0 == orders[0] })
        }
    }

    @Test("Messages a connection loop reads in one iteration reach each rooms thread as one batch, in order")
    func oneBatchPerRoomsThreadAndIteration() throws {
        let (first, second) = Self.roomsOnBothThreads()
        try LiveRooms.with(threads: 2) { live in
            let client = try live.client(live.token("alice", groups: [first, second]))
            #expect(try client.join(first)["type"]?.stringValue == "ack")
            #expect(try client.join(second)["type"]?.stringValue == "ack")
            let before = live.runtime.connectionHandOvers.load(ordering: .relaxed)
            // Ten requests in one write: the loop reads them in one go.
            var bytes: [UInt8] = []
            for index in 0..<10 {
                let request: JSONValue = .object(
                    JSONObject(uniqueKeysWithValues: [
                        ("type", "state"), ("id", .int(Int64(100 + index))),
                        ("room", .string(index % 2 == 0 ? first : second)), ("handRaised", .bool(index % 4 < 2)),
                    ]))
                bytes += client.client.frame(.text, JSONWriter.bytes(request))
            }
            try client.client.send(bytes)
            var acknowledged: [String: [Int64]] = [:]
            while acknowledged.values.reduce(0, { $0 + $1.count }) < 10 {
                let message = try client.next()
                guard message["type"]?.stringValue == "ack", let id = message["id"]?.intValue,
                    let room = message["room"]?.stringValue
                else { continue }
                acknowledged[room, default: []].append(id)
            }
            #expect(acknowledged[first] == [100, 102, 104, 106, 108])
            #expect(acknowledged[second] == [101, 103, 105, 107, 109])
            #expect(live.runtime.connectionHandOvers.load(ordering: .relaxed) == before + 2)
        }
    }

    @Test("The per-user connection limit holds over both threads")
    func theConnectionLimitHolds() throws {
        try LiveRooms.with(server: { $0.eventLoopCount = 2 }, rooms: { $0.maximumConnectionsPerUser = 2 }, threads: 2) {
            live in
            let first = try live.client(live.token("alice"))
            let second = try live.client(live.token("alice"))
            #expect(throws: (any Error).self) { try live.client(live.token("alice")) }
            #expect(first.ping() && second.ping())
        }
    }

    @Test("Several rooms threads refuse a cluster: rooms stay in this process, in memory")
    func severalThreadsRefuseAStore() throws {
        let verifier = try TokenVerifier(keys: [TokenKey(secret: LiveRooms.secret)])
        #expect(throws: RoomThreadsError.self) {
            _ = try GatewayRuntime(
                configuration: RoomsConfiguration(), verifier: verifier,
                sharedLog: { _ in fatalError("not made") }, threads: 2)
        }
    }
}
