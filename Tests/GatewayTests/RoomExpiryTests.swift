import Gateway
import GatewayTesting
import JSONCoding
import Testing

@Suite struct RoomExpiryTests {
    @Test func aRoomNobodyIsInIsForgottenOnceItsHistoryAgesOut() throws {
        let harness = try GatewayHarness { $0.history = HistoryRetention(maximumEntries: 100, maximumAgeMilliseconds: 60_000) }
        let alice = try harness.connect("u-alice", rooms: ["r": .participant, "busy": .participant])
        try harness.join(alice, "r")
        try harness.join(alice, "busy")
        harness.send(alice, ["type": "leave", "room": "r"])
        harness.advance(milliseconds: 59_000)
        #expect(harness.gateway.roomIDs == ["busy", "r"])
        harness.advance(milliseconds: 2_000)
        // "busy" still has Alice in it; "r" is empty and old.
        #expect(harness.gateway.roomIDs == ["busy"])
        #expect(harness.gateway.statistics.roomsExpired == 1)
        // Coming back starts the room afresh.
        let answer = try harness.join(alice, "r")
        #expect(answer.first?["seq"] == 1)
    }

    @Test func aRoomWithABanIsKept() throws {
        let harness = try GatewayHarness { $0.history = HistoryRetention(maximumEntries: 100, maximumAgeMilliseconds: 1_000) }
        let alice = try harness.connect("u-alice", rooms: ["r": .moderator])
        try harness.join(alice, "r")
        harness.send(alice, ["type": "action", "room": "r", "action": "ban", "target": "u-mallory"])
        harness.send(alice, ["type": "leave", "room": "r"])
        harness.advance(milliseconds: 5_000)
        #expect(harness.gateway.roomIDs == ["r"])
        #expect(harness.gateway.roomState("r")?.banned == ["u-mallory"])
    }
}
