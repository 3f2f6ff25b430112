import JSONCoding
import Rooms
import Testing
import TokenAuth

@testable import GatewayWebSocket

@Suite("Rooms spread over two rooms threads", .serialized)
struct RoomThreadsTests {
    /// Two rooms, one owned by each rooms thread.
    static func roomsOnBothThreads() -> (String, String) {
        let placement = ShardPlacement(count: 2)
        let rooms = (0...).lazy.map { "room-\($0)" }
        return (rooms.first { placement.shard(ofRoom: $0) == 0 }!, rooms.first { placement.shard(ofRoom: $0) == 1 }!)
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
            #expect(live.runtime.inspect(shard: 0) { $0.roomIDs } == [first])
            #expect(live.runtime.inspect(shard: 1) { $0.roomIDs } == [second])
            #expect(live.runtime.inspect(shard: 1) { $0.sessionCount } == 4)
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
                configuration: GatewayConfiguration(), verifier: verifier,
                sharedLog: { _ in fatalError("not made") }, threads: 2)
        }
    }
}
