import JSONCoding
import RoomsTesting
import Testing

@testable import Rooms

/// Snapshots are encoded once for everyone who joins while nothing changes.
struct SnapshotReuseTests {
    @Test func observersJoiningTogetherGetTheSameSnapshotUntilTheRoomChanges() throws {
        let harness = try RoomsNodeHarness()
        let alice = try harness.connect("u-alice", rooms: ["r": .participant])
        try harness.join(alice, "r")
        harness.advance(milliseconds: 100)
        let first = try harness.connect("u-one", rooms: ["r": .viewer])
        let second = try harness.connect("u-two", rooms: ["r": .viewer])
        let one = try harness.join(first, "r", as: "observer")
        let two = try harness.join(second, "r", as: "observer")
        #expect(one.last?["type"] == "snapshot")
        #expect(one.last == two.last)
        harness.send(alice, ["type": "state", "room": "r", "handRaised": true])
        harness.advance(milliseconds: 100)
        let third = try harness.connect("u-three", rooms: ["r": .viewer])
        let three = try harness.join(third, "r", as: "observer")
        #expect(three.last?["roster"]?["participants"]?["u-alice"]?["handRaised"] == true)
        #expect(three.last?["seq"] != one.last?["seq"])
    }

    @Test func aSnapshotTakenAfterAMinuteTotalTicksOverShowsTheNewTotal() throws {
        let harness = try RoomsNodeHarness()
        let alice = try harness.connect("u-alice", rooms: ["r": .participant])
        try harness.join(alice, "r")
        harness.advance(milliseconds: 59_990)
        let early = try harness.join(try harness.connect("u-early", rooms: ["r": .viewer]), "r", as: "observer")
        #expect(early.last?["participants"]?[0]?["totalDurationInMinutes"] == 0)
        harness.advance(milliseconds: 20)
        let late = try harness.join(try harness.connect("u-late", rooms: ["r": .viewer]), "r", as: "observer")
        #expect(late.last?["participants"]?[0]?["totalDurationInMinutes"] == 1)
        #expect(late.last?["participants"]?[0]?["totalAudioMinutes"] == 1)
    }
}
