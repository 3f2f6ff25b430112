import JSONCoding
import RoomsTesting
import Testing
import TokenAuth

@testable import Rooms

/// `end_session`: every participant leaves (`participant.left` with reason `session_ended`), then `session.ended`;
/// participants' connections close with 4005, observers stay subscribed for the room's next call.
@Suite struct SessionEndTests {
    @Test func endingTheSessionLeavesEveryParticipantWithTheReasonSessionEnded() throws {
        let room = try TwoInARoom()
        let harness = room.harness
        let watcher = try harness.connect("u-watch", rooms: ["r": .viewer])
        try harness.join(watcher, "r", as: "observer")
        _ = harness.drain(watcher)
        let answer = harness.request(room.alice, ["type": "action", "id": 1, "room": "r", "action": "end_session"])
        #expect(answer.first(type: "ack")?["changed"] == true)
        let seen = harness.drain(watcher).events
        #expect(seen.eventNames == ["participant.left", "participant.left", "session.ended"])
        #expect(seen.prefix(2).compactMap { $0["data"]?["uid"]?.stringValue } == ["u-alice", "u-bob"])
        #expect(seen.prefix(2).allSatisfy { $0["data"]?["reason"] == "session_ended" })
        #expect(harness.closeCode(room.bob) == GatewayCloseCode.sessionEnded.rawValue)
        #expect(harness.closeCode(watcher) == nil)
        // The observer still watches: the next call reaches it.
        let carol = try harness.connect("u-carol", rooms: ["r": .participant])
        try harness.join(carol, "r")
        #expect(harness.drain(watcher).eventNames == ["participant.joined"])
    }
}
