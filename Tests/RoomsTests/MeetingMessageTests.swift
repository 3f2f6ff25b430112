import JSONCoding
import RoomsTesting
import Testing
import TokenAuth

@testable import Rooms

@Suite struct MeetingMessageTests {
    @Test func aMeetingMessageIsLoggedAndReachesEveryConnectedMemberOfTheGroup() throws {
        let harness = try RoomsNodeHarness()
        let alice = try harness.connect("u-alice", groups: ["team"])
        let inRoom = try harness.connect("u-bob", groups: ["team"])
        let lobby = try harness.connect("u-carol", groups: ["team"])
        let stranger = try harness.connect("u-eve", groups: ["other"])
        try harness.join(inRoom, "team")
        let before = harness.sequence("team")
        let answer = harness.request(
            alice,
            [
                "type": "meeting", "id": 7, "group": "team", "sessionId": "call-8812",
                "callType": "video", "text": "Daily standup",
            ])
        #expect(answer.first(type: "ack")?["seq"] == .int(before + 1))
        #expect(answer.first(type: "ack")?["id"] == 7)
        let delivered = harness.drain(lobby)
        #expect(delivered.eventNames == ["meeting.message"])
        let event = try #require(delivered.first)
        #expect(event["room"] == "team")
        #expect(event["seq"] == .int(before + 1))
        #expect(event["actor"] == "u-alice")
        #expect(
            event["data"] == [
                "sessionId": "call-8812", "callType": "video", "sender": "u-alice", "active": true,
                "text": "Daily standup",
            ])
        #expect(harness.drain(inRoom).events == [event])
        #expect(answer.events == [event])
        #expect(harness.drain(stranger).isEmpty)
        #expect(harness.gateway.roomState("team")?.activeMeeting?.sessionID == "call-8812")
    }

    @Test func activeMeetingAnswersTheCurrentMeetingUntilOneEndsIt() throws {
        let harness = try RoomsNodeHarness()
        let alice = try harness.connect("u-alice", groups: ["team"])
        let carol = try harness.connect("u-carol", groups: ["team"])
        let query: JSONValue = ["type": "query", "id": 10, "query": "active_meeting", "group": "team"]
        #expect(harness.request(carol, query).first?["meeting"] == .null)
        harness.send(alice, ["type": "meeting", "group": "team", "sessionId": "call-1", "callType": "audio"])
        let answer = harness.request(carol, query)
        #expect(answer.first?["type"] == "result")
        #expect(answer.first?["id"] == 10)
        #expect(answer.first?["group"] == "team")
        #expect(
            answer.first?["meeting"] == [
                "sessionId": "call-1", "callType": "audio", "sender": "u-alice",
                "active": true, "text": nil,
            ])
        let rooms = harness.request(carol, ["type": "query", "query": "rooms"])
        #expect(rooms.first?["rooms"]?[0]?["activeMeeting"]?["sessionId"] == "call-1")
        harness.send(alice, ["type": "meeting", "group": "team", "sessionId": "call-1", "active": false])
        #expect(harness.drain(carol).events.last?["data"]?["active"] == false)
        #expect(harness.request(carol, query).first?["meeting"] == .null)
        #expect(harness.gateway.roomState("team")?.activeMeeting == nil)
    }

    @Test func theHistoryHoldsTheMeetingMessage() throws {
        let harness = try RoomsNodeHarness()
        let alice = try harness.connect("u-alice", groups: ["team"])
        let bob = try harness.connect("u-bob", groups: ["team"])
        try harness.join(bob, "team")
        harness.send(alice, ["type": "meeting", "group": "team", "sessionId": "call-2", "text": "Retro"])
        let live = harness.drain(bob).events
        let history = harness.request(
            alice,
            [
                "type": "query", "id": 15, "query": "history", "room": "team",
                "after": 0, "limit": 100,
            ])
        #expect(history.first?["firstRetained"] == 1)
        let events = history.first?["events"]?.arrayValue ?? []
        #expect(events.map { $0["event"] } == ["participant.joined", "meeting.message"])
        #expect(events.last == live.last)
        let later = harness.request(alice, ["type": "query", "query": "history", "room": "team", "after": 1])
        #expect(later.first?["events"]?.arrayValue?.count == 1)
    }
}
