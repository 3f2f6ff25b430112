import JSONCoding
import Rooms
import RoomsTesting
import Testing

@Suite struct ModerationOrderingTests {
    @Test func endSessionAcknowledgesTheModeratorBeforeClosingTheirConnection() throws {
        let harness = try RoomsNodeHarness()
        let alice = try harness.connect("u-alice", rooms: ["r": .moderator])
        let bob = try harness.connect("u-bob", rooms: ["r": .participant])
        try harness.join(alice, "r")
        try harness.join(bob, "r")
        harness.send(alice, ["type": "action", "id": 7, "room": "r", "action": "end_session"])
        let timeline = harness.transport.timeline[alice] ?? []
        let ackIndex = timeline.firstIndex {
            if case .message(let value) = $0 { return value["type"] == "ack" && value["id"] == 7 }
            return false
        }
        let closeIndex = timeline.firstIndex {
            if case .close(let close) = $0 { return close.code == GatewayCloseCode.sessionEnded.rawValue }
            return false
        }
        #expect(ackIndex != nil)
        #expect(closeIndex != nil)
        #expect((ackIndex ?? .max) < (closeIndex ?? .min))
        #expect(harness.closeCode(bob) == GatewayCloseCode.sessionEnded.rawValue)
    }

    @Test func aBanAlsoClosesTheBannedUsersObserverConnections() throws {
        let harness = try RoomsNodeHarness()
        let alice = try harness.connect("u-alice", rooms: ["r": .moderator])
        let bob = try harness.connect("u-bob", rooms: ["r": .participant])
        let bobWatching = try harness.connect("u-bob", rooms: ["r": .participant])
        let carol = try harness.connect("u-carol", rooms: ["r": .participant])
        try harness.join(alice, "r")
        try harness.join(bob, "r")
        try harness.join(bobWatching, "r", as: "observer")
        try harness.join(carol, "r", as: "observer")
        harness.send(alice, ["type": "action", "room": "r", "action": "ban", "target": "u-bob"])
        #expect(harness.closeCode(bob) == GatewayCloseCode.banned.rawValue)
        #expect(harness.closeCode(bobWatching) == GatewayCloseCode.banned.rawValue)
        #expect(harness.closeCode(carol) == nil)
    }

    @Test func aRejoinAfterTheGraceBeforeTheTickIsALeaveAndAFreshJoin() throws {
        let harness = try RoomsNodeHarness { $0.reconnectGraceMilliseconds = 1_000 }
        let alice = try harness.connect("u-alice", rooms: ["r": .moderator])
        let bob = try harness.connect("u-bob", rooms: ["r": .participant])
        try harness.join(alice, "r")
        try harness.join(bob, "r", device: "phone")
        harness.close(bob, cleanly: false)
        _ = harness.drain(alice)
        // Time passes beyond the grace period without a tick.
        harness.clock.advance(milliseconds: 1_500)
        let again = try harness.connect("u-bob", rooms: ["r": .participant])
        try harness.join(again, "r", device: "phone")
        #expect(harness.drain(alice).eventNames == ["session.timed_out", "participant.joined"])
    }
}
