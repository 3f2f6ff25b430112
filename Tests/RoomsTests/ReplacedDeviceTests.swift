import JSONCoding
import RoomsTesting
import Testing
import TokenAuth

@testable import Rooms

/// The same user and device joining again from another connection replaces the old one, which is told so.
@Suite struct ReplacedDeviceTests {
    @Test func theReplacedConnectionIsToldItWasReplacedAndLeftOutOfTheRoom() throws {
        let harness = try RoomsNodeHarness()
        let first = try harness.connect("u-alice", rooms: ["r": .participant, "other": .participant])
        try harness.join(first, "r", device: "web")
        try harness.join(first, "other", device: "web")
        let second = try harness.connect("u-alice", rooms: ["r": .participant])
        try harness.join(second, "r", device: "web")

        let told = harness.drain(first)
        #expect(told == [["type": "unsubscribed", "room": "r", "reason": "replaced"]])
        #expect(harness.closeCode(first) == nil)
        let refused = harness.request(first, ["type": "state", "id": 1, "room": "r", "handRaised": true])
        #expect(refused.errorCodes == ["ERR_NOT_IN_ROOM"])
        // The connection's other rooms are untouched, and the new connection holds the device.
        let other = harness.request(first, ["type": "state", "id": 2, "room": "other", "handRaised": true])
        #expect(other.first(type: "ack")?["changed"] == true)
        #expect(harness.request(second, ["type": "state", "room": "r", "handRaised": true]).first(type: "ack") != nil)
        #expect(harness.participant("u-alice", in: "r")?.devices.map(\.deviceID) == ["web"])
    }

    @Test func anotherDeviceOfTheSameUserIsNotReplaced() throws {
        let harness = try RoomsNodeHarness()
        let laptop = try harness.connect("u-alice", rooms: ["r": .participant])
        try harness.join(laptop, "r", device: "laptop")
        let phone = try harness.connect("u-alice", rooms: ["r": .participant])
        try harness.join(phone, "r", device: "phone")
        #expect(harness.drain(laptop).first(type: "unsubscribed") == nil)
        #expect(harness.request(laptop, ["type": "state", "room": "r", "handRaised": true]).first(type: "ack") != nil)
    }

    @Test func aDeviceTakenOverThroughAnotherNodeTellsTheConnectionItLeft() throws {
        let cluster = try ClusterHarness()
        let onA = try cluster.a.connect("u-alice", rooms: ["r": .participant])
        try cluster.a.join(onA, "r", device: "web")
        let onB = try cluster.b.connect("u-alice", rooms: ["r": .participant])
        try cluster.b.join(onB, "r", device: "web")
        cluster.run()

        #expect(
            cluster.a.harness.drain(onA).first(type: "unsubscribed") == [
                "type": "unsubscribed", "room": "r", "reason": "replaced",
            ])
        let refused = cluster.a.request(onA, ["type": "state", "id": 1, "room": "r", "handRaised": true])
        #expect(refused.errorCodes == ["ERR_NOT_IN_ROOM"])
        #expect(cluster.store.owner(of: "u-alice", device: "web", in: "r") == "b")
        // The old connection closing later takes nothing from the new one.
        cluster.a.harness.close(onA, cleanly: false)
        cluster.advance(milliseconds: 100)
        let device = cluster.b.state("r")?.participants["u-alice"]?.devices.first
        #expect(device?.isConnected == true)
        #expect(cluster.a.state("r") == cluster.b.state("r"))
    }
}
