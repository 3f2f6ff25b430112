import JSONCoding
import RoomsTesting
import Testing
import TokenAuth

@testable import Rooms

/// A hidden participant (a bot whose token has `hidden`, or anyone a moderator hid) is in the room but in no view,
/// count, list or event that others receive.
@Suite struct HiddenParticipantTests {
    /// Ann in the call, an observer taking every event, and a hidden recorder bot in the call.
    struct Call {
        let harness: GatewayHarness
        let ann: SessionID
        let watcher: SessionID
        let recorder: SessionID

        init(configure: (inout GatewayConfiguration) -> Void = { _ in }) throws {
            self.harness = try GatewayHarness(configure: configure)
            self.ann = try self.harness.connect("u-ann", rooms: ["r": .participant])
            try self.harness.join(self.ann, "r")
            self.watcher = try self.harness.connect("u-watch", rooms: ["r": .viewer])
            try self.harness.join(self.watcher, "r", as: "observer")
            self.recorder = try self.harness.connect(
                "b-rec", rooms: ["r": .bot], caps: ["hidden", "record", "speaker"])
            try self.harness.join(self.recorder, "r")
        }

        /// Whether a message names the recorder anywhere (uid, actor, an entry, a list).
        static func namesRecorder(_ message: JSONValue) -> Bool {
            JSONWriter.string(message).contains("b-rec")
        }
    }

    @Test func aHiddenBotsJoinAndStateChangesReachNoOtherSubscriber() throws {
        let call = try Call()
        let harness = call.harness
        for change: JSONValue in [
            ["type": "state", "room": "r", "audioMuted": true, "handRaised": true, "presenting": true],
            ["type": "state", "room": "r", "mid": "m-1", "cameraFacing": "back"],
            ["type": "attributes", "room": "r", "attributes": ["title": "Recorder"]],
            ["type": "media", "room": "r", "audioMode": "headphones"],
        ] {
            #expect(harness.request(call.recorder, change).first(type: "ack")?["changed"] == true)
        }
        harness.advance(milliseconds: 100)
        for session in [call.ann, call.watcher] {
            let seen = harness.drainWithPatches(session)
            #expect(!seen.contains(where: Call.namesRecorder), "\(seen.filter(Call.namesRecorder))")
        }
        // The recorder itself hears of its own changes.
        harness.send(call.recorder, ["type": "state", "room": "r", "videoPaused": true])
        #expect(harness.drain(call.recorder).eventNames == ["participant.video_paused"])
        // The queries that list participants leave it out.
        for query in ["members", "operators", "muted"] {
            let answer = harness.request(call.watcher, ["type": "query", "query": .string(query), "room": "r"])
            #expect(!answer.contains(where: Call.namesRecorder), "\(query): \(answer)")
        }
        let rooms = harness.request(call.watcher, ["type": "query", "query": "rooms"])
        #expect(rooms.first?["rooms"]?.arrayValue?.first?["participants"] == 1)
    }

    @Test func aHiddenBotReportingItselfSpeakingIsNeverTheShownSpeaker() throws {
        for rule in SpeakerRuleKind.allCases {
            let call = try Call { $0.speakerRuleKind = rule }
            let harness = call.harness
            harness.send(call.recorder, ["type": "speaker", "room": "r", "uid": "b-rec"])
            harness.advance(milliseconds: 1_000)
            let seen = harness.drainWithPatches(call.watcher)
            #expect(!seen.contains(where: Call.namesRecorder), "\(rule): \(seen)")
            #expect(harness.gateway.renderedView(room: "r", spec: .all)?["room"]?["activeSpeaker"] == nil)
            let late = try harness.connect("u-late", rooms: ["r": .viewer])
            let snapshot = try #require(try harness.join(late, "r", as: "observer").first(type: "snapshot"))
            #expect(!Call.namesRecorder(snapshot), "\(rule): \(snapshot)")
            // Ann speaking is shown, whatever the hidden bot reports after her.
            harness.send(call.ann, ["type": "speaker", "room": "r", "uid": "u-ann"])
            harness.send(call.recorder, ["type": "speaker", "room": "r", "uid": "b-rec"])
            harness.advance(milliseconds: 1_000)
            #expect(harness.gateway.renderedView(room: "r", spec: .all)?["room"]?["activeSpeaker"] == "u-ann")
            #expect(!harness.drainWithPatches(call.watcher).contains(where: Call.namesRecorder))
        }
    }

    @Test func aRecordingAHiddenRecorderStartsIsSeenWithoutItsActor() throws {
        let call = try Call()
        let harness = call.harness
        _ = harness.drain(call.watcher)
        harness.send(call.recorder, ["type": "media", "room": "r", "recording": true])
        let seen = harness.drain(call.watcher).events
        #expect(seen.eventNames == ["media.recording_started"])
        #expect(seen.first?["actor"] == .null)
        #expect(harness.gateway.roomState("r")?.isRecording == true)
    }

    @Test func theServerAPIsRoomListCountsNoHiddenParticipant() throws {
        let call = try Call()
        let harness = call.harness
        func apiParticipants() throws -> JSONValue? {
            try harness.gateway.apiRooms(after: nil, limit: 10)["rooms"]?.arrayValue?.first?["participants"]
        }
        #expect(try apiParticipants() == 1)
        #expect(harness.gateway.apiRooms()["rooms"]?.arrayValue?.first?["participants"] == 1)
        // Hidden by a moderator, Ann leaves every count and event too.
        let host = try harness.connect("u-host", rooms: ["r": .moderator])
        try harness.join(host, "r", as: "observer")
        _ = harness.drain(call.watcher)
        let hide = harness.request(
            host, ["type": "permissions", "id": 1, "room": "r", "uid": "u-ann", "permissions": ["hidden": true]])
        #expect(hide.first(type: "ack")?["changed"] == true)
        #expect(try apiParticipants() == 0)
        #expect(harness.gateway.renderedView(room: "r", spec: .all)?["room"]?["participantCount"] == 0)
        // The roster drops her entry (a null in the patch); from then on nothing about her reaches the watcher.
        harness.advance(milliseconds: 100)
        _ = harness.drainWithPatches(call.watcher)
        harness.send(call.ann, ["type": "state", "room": "r", "handRaised": true])
        harness.advance(milliseconds: 100)
        let seen = harness.drainWithPatches(call.watcher)
        #expect(seen.events.isEmpty, "\(seen.events)")
        #expect(seen.allSatisfy { JSONWriter.string($0["patch"]?["participants"] ?? .null).contains("u-ann") == false })
    }

    @Test func aResumeAndTheHistoryReplayNothingAboutAHiddenParticipant() throws {
        let harness = try GatewayHarness()
        let ann = try harness.connect("u-ann", rooms: ["r": .participant])
        try harness.join(ann, "r")
        let watcher = try harness.connect("u-watch", rooms: ["r": .viewer])
        try harness.join(watcher, "r", as: "observer")
        _ = harness.drain(watcher)
        let lastSeen = harness.sequence("r")
        harness.close(watcher, cleanly: false)
        let recorder = try harness.connect("b-rec", rooms: ["r": .bot], caps: ["hidden"])
        try harness.join(recorder, "r")
        harness.send(recorder, ["type": "state", "room": "r", "audioMuted": true])
        harness.send(ann, ["type": "state", "room": "r", "handRaised": true])
        let again = try harness.connect("u-watch", rooms: ["r": .viewer])
        let answer = try harness.join(again, "r", as: "observer", resume: lastSeen)
        #expect(answer.first(type: "resumed")?["recovered"] == true)
        #expect(answer.events.eventNames == ["participant.hand_raised"])
        let history = harness.request(again, ["type": "query", "query": "history", "room": "r", "after": 0])
        let names = history.first?["events"]?.arrayValue?.compactMap { $0["event"]?.stringValue }
        #expect(names == ["participant.joined", "participant.hand_raised"])
        #expect(!history.contains(where: Call.namesRecorder))
        // The recorder's own history has its events.
        let own = harness.request(recorder, ["type": "query", "query": "history", "room": "r", "after": 0])
        #expect(own.first?["events"]?.arrayValue?.count == 4)
    }
}
