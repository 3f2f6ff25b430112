import JSONCoding
import RoomsTesting
import Testing
import TokenAuth

@testable import Rooms

/// Per-user limits: one token cannot open unbounded connections or fill a room with its own subscriptions.
@Suite struct PerUserLimitsTests {
    @Test func aUserPastItsConnectionLimitIsRefusedAndClosedWith4010() throws {
        let harness = try RoomsNodeHarness { $0.maximumConnectionsPerUser = 3 }
        var sessions = try (0..<3).map { _ in try harness.connect("u-ann", rooms: ["r": .participant]) }
        let fourth = harness.open(token: try harness.token("u-ann", rooms: ["r": .participant]))
        #expect(harness.drain(fourth).first?["code"] == "ERR_TOO_MANY_CONNECTIONS")
        #expect(harness.closeCode(fourth) == GatewayCloseCode.tooManyConnections.rawValue)
        // Another user is not affected, and a closed connection frees its place.
        _ = try harness.connect("u-bob", rooms: ["r": .participant])
        harness.close(sessions.removeLast(), cleanly: true)
        sessions.append(try harness.connect("u-ann", rooms: ["r": .participant]))
        #expect(harness.gateway.connectionsByUser["u-ann"] == 3)
    }

    @Test func aTokenRefreshIsNotANewConnection() throws {
        let harness = try RoomsNodeHarness { $0.maximumConnectionsPerUser = 1 }
        let ann = try harness.connect("u-ann", rooms: ["r": .participant])
        let refreshed = harness.request(
            ann, ["type": "auth", "id": 1, "token": .string(try harness.token("u-ann", rooms: ["r": .participant]))])
        #expect(refreshed.first?["type"] == "welcome")
        #expect(harness.gateway.connectionsByUser["u-ann"] == 1)
    }

    @Test func oneUserCannotFillARoomWithItsOwnSubscriptions() throws {
        let harness = try RoomsNodeHarness { $0.maximumSubscriptionsPerUserPerRoom = 2 }
        for _ in 0..<2 {
            let observer = try harness.connect("u-greedy", rooms: ["r": .viewer])
            try harness.join(observer, "r", as: "observer")
        }
        let third = try harness.connect("u-greedy", rooms: ["r": .viewer])
        let refused = harness.request(third, ["type": "join", "id": 1, "room": "r", "as": "observer"])
        #expect(refused.first?["code"] == "ERR_TOO_MANY_SUBSCRIPTIONS")
        #expect(harness.gateway.rooms["r"]?.subscribers.count == 2)
        // Others still get in.
        let other = try harness.connect("u-ann", rooms: ["r": .viewer])
        try harness.join(other, "r", as: "observer")
    }

    @Test func theSameDeviceRejoiningReplacesItsStaleSessionInsteadOfBeingRefused() throws {
        let harness = try RoomsNodeHarness { $0.maximumSubscriptionsPerUserPerRoom = 1 }
        let first = try harness.connect("u-ann", rooms: ["r": .participant])
        try harness.join(first, "r", device: "phone")
        // The phone reconnects before the gateway noticed the old socket is gone.
        let second = try harness.connect("u-ann", rooms: ["r": .participant])
        let answer = try harness.join(second, "r", device: "phone")
        #expect(answer.first?["type"] == "ack")
        #expect(harness.gateway.rooms["r"]?.subscriptionsByUser["u-ann"] == 1)
        // A second device is past the limit.
        let laptop = try harness.connect("u-ann", rooms: ["r": .participant])
        let refused = harness.request(laptop, ["type": "join", "id": 2, "room": "r", "device": "laptop"])
        #expect(refused.first?["code"] == "ERR_TOO_MANY_SUBSCRIPTIONS")
    }
}
