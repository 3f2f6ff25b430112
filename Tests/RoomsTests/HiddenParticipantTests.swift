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
        let harness: RoomsNodeHarness
        let ann: SessionID
        let watcher: SessionID
        let recorder: SessionID

        init(configure: (inout RoomsConfiguration) -> Void = { _ in }) throws {
            self.harness = try RoomsNodeHarness(configure: configure)
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
        func apiParticipants() throws -> Int? {
            try harness.gateway.apiRooms(after: nil, limit: 10).entries.first?.participants
        }
        #expect(try apiParticipants() == 1)
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
        let harness = try RoomsNodeHarness()
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

    /// The moderation of a hidden participant reaches only that participant, so once the history dropped it, a
    /// `notable` observer that was away since before it resumes all the same (nothing it takes is missing), while
    /// the hidden participant itself, resuming the same way, gets a fresh snapshot: its own mute is gone from memory.
    @Test func onlyTheHiddenParticipantsOwnResumeNeedsItsModerationTheHistoryDropped() throws {
        let harness = try RoomsNodeHarness { $0.history = HistoryRetention(maximumEntries: 12) }
        let alice = try harness.connect("u-alice", rooms: ["r": .moderator])
        try harness.join(alice, "r")
        let quiet: [(String, JSONValue)] = [
            ("type", "join"), ("id", "j"), ("room", "r"), ("events", "notable"), ("view", ["filter": "banned"]),
        ]
        func join(_ session: SessionID, _ fields: [(String, JSONValue)]) -> [JSONValue] {
            harness.send(session, .object(JSONObject(uniqueKeysWithValues: quiet + fields)))
            return harness.drainWithPatches(session)
        }
        let recorder = try harness.connect("b-rec", rooms: ["r": .bot], caps: ["hidden"])
        let recorderSnapshot = join(recorder, [("device", "rec")]).first(type: "snapshot")
        let watcher = try harness.connect("o-watch", rooms: ["r": .viewer])
        let watcherSnapshot = join(watcher, [("as", "observer")]).first(type: "snapshot")
        let recorderAt = try #require(recorderSnapshot?["seq"]?.intValue)
        let watcherAt = try #require(watcherSnapshot?["seq"]?.intValue)
        harness.close(watcher, cleanly: false)
        harness.close(recorder, cleanly: false)
        harness.send(alice, ["type": "action", "room": "r", "action": "mute", "target": "b-rec", "hard": true])
        let mute = try #require(harness.gateway.roomLog("r")?.entries.last)
        #expect(mute.event == .hardMuted(uid: "b-rec", durationMilliseconds: nil))
        for index in 0..<20 {
            harness.send(alice, ["type": "state", "room": "r", "handRaised": .bool(index % 2 == 0)])
        }
        harness.advance(milliseconds: 100)
        #expect((harness.gateway.roomLog("r")?.firstSequence ?? 0) > mute.sequence, "the mute is out of memory")

        let back = try harness.connect("o-watch", rooms: ["r": .viewer])
        let resumed = join(back, [("as", "observer"), ("resume", .int(watcherAt))])
        #expect(resumed.first(type: "resumed")?["recovered"] == true, "\(resumed)")
        #expect(resumed.events.isEmpty && !resumed.contains(where: Call.namesRecorder), "\(resumed)")

        let recorderBack = try harness.connect("b-rec", rooms: ["r": .bot], caps: ["hidden"])
        let own = join(recorderBack, [("device", "rec"), ("resume", .int(recorderAt))])
        #expect(own.first(type: "resumed") == nil, "\(own)")
        #expect(own.first(type: "snapshot")?["recovered"] == false, "\(own)")
    }
}
