import JSONCoding
import RollcallClient
import RoomsTesting
import Testing

@testable import Rooms

/// The forms in which a cluster stores log entries and checkpoints, and the exact resumes they allow.
struct SharedLogFormTests {
    static let everyEvent: [RoomEvent] = [
        .participantJoined(
            uid: "u-a", deviceID: "web", name: "Alice", avatar: "https://a.example/a.png",
            role: .moderator, callType: "audio"),
        .participantJoined(uid: "u-b", deviceID: "phone", name: "Bob", avatar: nil, role: .viewer, callType: nil),
        .participantLeft(uid: "u-a", deviceID: "web", reason: .connectionClosed),
        .participantLeft(uid: "u-b", deviceID: "phone", reason: .banned),
        .connectionLost(uid: "u-a", deviceID: "web"),
        .participantConnectionClosed(uid: "u-a", deviceID: "web"),
        .connectionRestored(uid: "u-a", deviceID: "web"),
        .flagChanged(uid: "u-a", flag: .handRaised, value: true),
        .flagChanged(uid: "u-a", flag: .audioMuted, value: false),
        .mediaIDChanged(uid: "u-a", mid: "m-17"),
        .activeSpeakerChanged(uid: "u-a"),
        .activeSpeakerChanged(uid: nil),
        .activeSpeakerShown(uid: "u-b"),
        .activeSpeakerShown(uid: nil),
        .recordingChanged(isRecording: true),
        .audioModeChanged(uid: "u-a", mode: "bluetooth"),
        .speakerStopped(uid: "u-a"),
        .cameraFacingChanged(uid: "u-a", facing: "back"),
        .operatorChanged(uid: "u-b", isOperator: true),
        .roleChanged(uid: "u-b", role: .moderator),
        .participantLeft(uid: "u-a", deviceID: "web", reason: .accessRevoked),
        .participantLeft(uid: "u-a", deviceID: "web", reason: .sessionEnded),
        .banChanged(uid: "u-c", isBanned: true),
        .mutedByModerator(uid: "u-a"),
        .meetingMessage(
            MeetingMessage(
                sessionID: "s-1", callType: "video", sender: "u-a", text: "hi \"all\"",
                isActive: true)),
        .meetingMessage(MeetingMessage(sessionID: "s-1", callType: "audio", sender: "u-a", text: nil, isActive: false)),
        .sessionEnded,
    ]

    @Test(arguments: Self.everyEvent)
    func everyEventReadsBackEqualFromItsWireForm(event: RoomEvent) throws {
        let entry = RoomLogEntry(sequence: 42, time: 1_700_000_000_123, actor: "u-a", reason: "because", event: event)
        let bytes = JSONWriter.bytes(entry.wireValue)
        #expect(try RoomLogEntry(wireValue: try JSONParser.parse(bytes)) == entry)
    }

    @Test func entriesWithoutASeqOrWithAnUnknownTypeAreRefused() throws {
        #expect(throws: RoomLogWireError.self) {
            try RoomLogEntry(wireValue: ["time": 1, "event": ["t": "session_ended"]])
        }
        #expect(throws: RoomLogWireError.self) {
            try RoomLogEntry(wireValue: ["seq": 1, "time": 1, "event": ["t": "teleported"]])
        }
        #expect(throws: RoomLogWireError.self) {
            try RoomLogEntry(wireValue: [
                "seq": 1, "time": 1, "event": ["t": "flag", "uid": "u", "flag": "x", "value": true],
            ])
        }
    }

    /// Plays a call with every kind of change and returns the harness.
    private func playedCall() throws -> RoomsNodeHarness {
        let harness = try RoomsNodeHarness()
        let alice = try harness.connect("u-alice", name: "Alice", rooms: ["r": .moderator])
        let bob = try harness.connect("u-bob", rooms: ["r": .participant])
        try harness.join(alice, "r", device: "web")
        try harness.join(bob, "r", device: "phone")
        harness.send(
            bob, ["type": "state", "room": "r", "audioMuted": true, "handRaised": true, "cameraFacing": "back"])
        harness.send(alice, ["type": "speaker", "room": "r", "uid": "u-bob"])
        harness.advance(milliseconds: 100)
        harness.send(alice, ["type": "speaker", "room": "r", "uid": "u-alice"])
        harness.send(alice, ["type": "media", "room": "r", "recording": true, "audioMode": "speaker"])
        harness.send(alice, ["type": "action", "room": "r", "action": "promote", "target": "u-bob"])
        harness.send(alice, ["type": "action", "room": "r", "action": "ban", "target": "u-carol"])
        harness.close(bob, cleanly: false)
        harness.advance(milliseconds: 100)
        return harness
    }

    @Test func aCheckpointReadsBackAsTheSameReplica() throws {
        let harness = try self.playedCall()
        let sequence = UInt64(harness.sequence("r"))
        for point in [1, sequence / 2, sequence] {
            let replica = try #require(harness.gateway.replica(of: "r", at: point))
            #expect(replica.state.sequence == point)
            let bytes = JSONWriter.bytes(replica.checkpoint)
            #expect(try RoomReplica(checkpoint: try JSONParser.parse(bytes)) == replica)
        }
        #expect(harness.gateway.replica(of: "r", at: sequence)?.state == harness.gateway.roomState("r"))
    }

    @Test func replayingTheLogFromACheckpointGivesTheSameRoom() throws {
        let harness = try self.playedCall()
        let log = try #require(harness.gateway.roomLog("r"))
        let middle = UInt64(harness.sequence("r") / 2)
        var replica = try #require(harness.gateway.replica(of: "r", at: middle))
        for entry in log.entries where entry.sequence > middle {
            replica.apply(entry, speakerRule: harness.gateway.speakerRule)
        }
        #expect(replica == harness.gateway.replica(of: "r", at: UInt64(harness.sequence("r"))))
    }

    @Test func aResumeFromASeqNoSentPatchCoversIsServedWithOnePatchRebuiltFromTheLog() throws {
        let harness = try RoomsNodeHarness()
        let alice = try harness.connect("u-alice", rooms: ["r": .participant])
        let bob = try harness.connect("u-bob", rooms: ["r": .participant])
        try harness.join(alice, "r")
        try harness.join(bob, "r")
        harness.send(alice, ["type": "state", "room": "r", "audioMuted": true])
        harness.advance(milliseconds: 100)
        let inside = UInt64(harness.sequence("r"))
        harness.send(bob, ["type": "state", "room": "r", "audioMuted": true])
        harness.send(alice, ["type": "state", "room": "r", "audioMuted": false])
        harness.advance(milliseconds: 100)
        // Nobody here watches the muted view, so no patch of it was ever sent: a client that held it at `inside`
        // (as another node of a cluster may have sent it) still resumes exactly.
        let viewer = try harness.connect("u-viewer", rooms: ["r": .viewer])
        harness.send(
            viewer,
            [
                "type": "join", "id": 1, "room": "r", "as": "observer", "view": ["filter": "muted"],
                "resume": .int(Int64(inside)),
            ])
        let answer = harness.drainWithPatches(viewer)
        #expect(answer.last?["type"] == "resumed")
        #expect(answer.last?["recovered"] == true)
        let patches = answer.filter { $0["type"] == "patch" }
        try #require(patches.count == 1)
        #expect(patches[0]["from"] == .int(Int64(inside)))
        #expect(patches[0]["patch"]?["participants"]?["u-alice"] == .null)
        #expect(patches[0]["patch"]?["participants"]?["u-bob"]?["audioMuted"] == true)
        // Applied to the view as it was at that seq, the patch gives today's view, checksum and all.
        let spec = RosterViewSpec(filter: .muted)
        let past = try #require(harness.gateway.replica(of: "r", at: inside))
        let oldView = RosterView.render(
            past.state, spec: spec, speaker: past.heldSpeaker,
            capacity: harness.gateway.configuration.roomCapacity)
        var store = try RosterStore(snapshot: [
            "type": "snapshot", "room": "r", "seq": .int(Int64(inside)), "roster": oldView.json,
            "checksum": .string(RosterChecksum.hex(oldView.checksum)),
        ])
        try store.apply(patch: patches[0])
        #expect(store.sequence == UInt64(harness.sequence("r")))
        #expect(store.participants.map(\.id) == ["u-bob"])
    }

    @Test func aMeetingWithoutTextLeavesNoNullInTheRosterSoPatchesCarryIt() throws {
        let harness = try RoomsNodeHarness()
        let alice = try harness.connect("u-alice", groups: ["g"])
        try harness.join(alice, "g")
        let mirror = try RosterMirror(harness, room: "g")
        harness.send(alice, ["type": "meeting", "group": "g", "sessionId": "s-1", "callType": "audio"])
        harness.advance(milliseconds: 100)
        try mirror.sync()
        #expect(mirror.store.roomState["activeMeeting"]?["sessionId"] == "s-1")
        #expect(mirror.matchesServer())
    }
}
