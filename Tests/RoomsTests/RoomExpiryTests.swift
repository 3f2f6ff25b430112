import JSONCoding
import Rooms
import RoomsTesting
import Testing

@Suite struct RoomExpiryTests {
    @Test func aRoomNobodyIsInIsForgottenOnceItsHistoryAgesOut() throws {
        let harness = try RoomsNodeHarness {
            $0.history = HistoryRetention(maximumEntries: 100, maximumAgeMilliseconds: 60_000)
        }
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

    @Test func housekeepingWalksTheRoomsOncePerIntervalNotEveryTick() throws {
        let harness = try RoomsNodeHarness {
            $0.history = HistoryRetention(maximumEntries: 100, maximumAgeMilliseconds: 1_000)
            $0.housekeepingIntervalMilliseconds = 5_000
        }
        let alice = try harness.connect("u-alice", rooms: ["r": .participant])
        harness.advance(milliseconds: 1)
        try harness.join(alice, "r")
        harness.send(alice, ["type": "leave", "room": "r"])
        // Old enough to be forgotten after 1 s, but the next round of housekeeping is 5 s after the last one.
        harness.advance(milliseconds: 1_500)
        harness.advance(milliseconds: 1_500)
        #expect(harness.gateway.roomIDs == ["r"])
        harness.advance(milliseconds: 2_000)
        #expect(harness.gateway.roomIDs.isEmpty)
    }

    @Test func aLostDeviceLeavesAtTheEndOfItsGraceBetweenRoundsOfHousekeeping() throws {
        let harness = try RoomsNodeHarness {
            $0.reconnectGraceMilliseconds = 3_000
            $0.housekeepingIntervalMilliseconds = 60_000
        }
        let watcher = try harness.connect("u-watcher", rooms: ["r": .viewer])
        try harness.join(watcher, "r", as: "observer")
        let alice = try harness.connect("u-alice", rooms: ["r": .participant])
        try harness.join(alice, "r")
        harness.advance(milliseconds: 10)
        harness.close(alice, cleanly: false)
        harness.advance(milliseconds: 2_999)
        #expect(harness.participant("u-alice", in: "r")?.isJoined == true)
        harness.advance(milliseconds: 1)
        #expect(harness.participant("u-alice", in: "r")?.isJoined == false)
    }

    @Test func aRoomWithABanIsKept() throws {
        let harness = try RoomsNodeHarness {
            $0.history = HistoryRetention(maximumEntries: 100, maximumAgeMilliseconds: 1_000)
        }
        let alice = try harness.connect("u-alice", rooms: ["r": .moderator])
        try harness.join(alice, "r")
        harness.send(alice, ["type": "action", "room": "r", "action": "ban", "target": "u-mallory"])
        harness.send(alice, ["type": "leave", "room": "r"])
        harness.advance(milliseconds: 5_000)
        #expect(harness.gateway.roomIDs == ["r"])
        #expect(harness.gateway.roomState("r")?.banned == ["u-mallory"])
    }
}
