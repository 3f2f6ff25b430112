import JSONCoding
import RoomsTesting
import Testing
import TokenAuth

@testable import Rooms

/// What docs/PROTOCOL.md specifies for the cases a client author asks about.
@Suite struct ProtocolSpecificsTests {
    @Test func aResumeFromASequenceNumberTheRoomHasNotReachedGetsAFreshSnapshotNotARecovery() throws {
        let room = try TwoInARoom()
        room.harness.advance(milliseconds: 100)
        let watcher = try room.harness.connect("o-w", rooms: ["r": .viewer])
        let future = Int64(room.harness.sequence("r") + 50)
        let answer = room.harness.request(
            watcher, ["type": "join", "id": 1, "room": "r", "as": "observer", "resume": .int(future)])
        #expect(answer.first?["type"] == "ack")
        let snapshot = try #require(answer.first(type: "snapshot"))
        #expect(snapshot["recovered"] == false)
        #expect(snapshot["seq"] == .int(room.harness.sequence("r")))
        #expect(answer.first(type: "resumed") == nil)
    }

    @Test func anObserverTakesNoSeat() throws {
        let harness = try RoomsNodeHarness {
            $0.roomCapacity = 1
            $0.reservedSeats = 0
        }
        for index in 0..<3 {
            let observer = try harness.connect("o-\(index)", rooms: ["r": .viewer])
            try harness.join(observer, "r", as: "observer")
        }
        let ann = try harness.connect("u-ann", rooms: ["r": .participant])
        #expect(try harness.join(ann, "r").first?["type"] == "ack")
        let bob = try harness.connect("u-bob", rooms: ["r": .participant])
        #expect(harness.request(bob, ["type": "join", "id": 2, "room": "r"]).first?["code"] == "ERR_CALL_FULL")
    }

    @Test func aRemovedUserMayRejoinAtOnceButABannedOneMayNot() throws {
        let room = try TwoInARoom()
        room.harness.send(room.alice, ["type": "action", "room": "r", "action": "remove", "target": "u-bob"])
        #expect(room.harness.closeCode(room.bob) == GatewayCloseCode.removed.rawValue)
        let back = try room.harness.connect("u-bob", rooms: ["r": .participant])
        #expect(try room.harness.join(back, "r", device: "phone").first?["type"] == "ack")
        room.harness.send(room.alice, ["type": "action", "room": "r", "action": "ban", "target": "u-bob"])
        let again = try room.harness.connect("u-bob", rooms: ["r": .participant])
        #expect(room.harness.request(again, ["type": "join", "id": 3, "room": "r"]).first?["code"] == "ERR_BANNED")
    }

    @Test func aMessageTheGatewayCannotReadIsAnsweredWithoutItsIDAndEveryOtherWithIt() throws {
        let room = try TwoInARoom()
        // Deeper than 16 levels: not read, so not answered with its id.
        let deep =
            #"{"type":"ping","id":7,"x":"# + String(repeating: "[", count: 20) + String(repeating: "]", count: 20) + "}"
        room.harness.sendText(room.bob, deep)
        let tooDeep = try #require(room.harness.drain(room.bob).first)
        #expect(tooDeep["code"] == "ERR_BAD_REQUEST" && tooDeep["id"] == nil)
        // Read, but refused: the answer repeats the id.
        let unknown = room.harness.request(room.bob, ["type": "nonsense", "id": "q-1"])
        #expect(unknown.first?["code"] == "ERR_BAD_REQUEST" && unknown.first?["id"] == "q-1")
        let badField = room.harness.request(room.bob, ["type": "state", "id": 8, "room": "r", "audioMuted": "yes"])
        #expect(badField.first?["id"] == 8)
    }

    @Test func aLostConnectionEndsInTimedOutAndAClosedOneInLeftWithConnectionClosed() throws {
        let lost = try TwoInARoom { $0.reconnectGraceMilliseconds = 1_000 }
        lost.harness.close(lost.bob, cleanly: false)
        lost.harness.advance(milliseconds: 1_100)
        let afterDrop = lost.harness.drain(lost.alice).eventNames
        #expect(afterDrop == ["session.connection_lost", "session.timed_out"])
        let closed = try TwoInARoom { $0.reconnectGraceMilliseconds = 1_000 }
        closed.harness.close(closed.bob, cleanly: true)
        closed.harness.advance(milliseconds: 1_100)
        let events = closed.harness.drain(closed.alice).events
        #expect(events.eventNames == ["session.connection_closed", "participant.left"])
        #expect(events.last?["data"]?["reason"] == "connection_closed")
    }
}
