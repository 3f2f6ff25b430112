import JSONCoding
import RoomsTesting
import Testing
import TokenAuth

@testable import Rooms

/// Two people in room `r`: Alice (moderator) and Bob (participant), with the joins drained.
struct TwoInARoom {
    let harness: RoomsNodeHarness
    let alice: SessionID
    let bob: SessionID

    init(configure: (inout RoomsConfiguration) -> Void = { _ in }) throws {
        self.harness = try RoomsNodeHarness(configure: configure)
        self.alice = try self.harness.connect("u-alice", name: "Alice", rooms: ["r": .moderator])
        self.bob = try self.harness.connect("u-bob", name: "Bob", rooms: ["r": .participant])
        try self.harness.join(self.alice, "r", device: "web")
        try self.harness.join(self.bob, "r", device: "phone")
        _ = self.harness.drain(self.alice)
    }

    /// Sends from `session` and returns the events Alice saw and the sender's answer (its messages but events).
    func change(_ session: SessionID, _ message: JSONValue) -> (seen: [JSONValue], answer: [JSONValue]) {
        _ = self.harness.drain(self.alice)
        _ = self.harness.drain(session)
        self.harness.send(session, message)
        let received = self.harness.drain(session)
        let seen = session == self.alice ? received.events : self.harness.drain(self.alice).events
        return (seen, received.filter { $0["type"] != "event" })
    }
}

@Suite struct ParticipantEventTests {
    @Test func joinedCarriesTheDeviceAndTheParticipantEntry() throws {
        let harness = try RoomsNodeHarness()
        let alice = try harness.connect("u-alice", rooms: ["r": .moderator])
        try harness.join(alice, "r", device: "web")
        let bob = try harness.connect("u-bob", name: "Bob", rooms: ["r": .participant])
        try harness.join(bob, "r", device: "phone")
        let joined = harness.drain(alice).events(named: "participant.joined")
        #expect(joined.count == 1)
        #expect(joined.first?["seq"] == 2)
        #expect(joined.first?["actor"] == "u-bob")
        #expect(joined.first?["data"]?["uid"] == "u-bob")
        #expect(joined.first?["data"]?["deviceID"] == "phone")
        #expect(joined.first?["data"]?["participant"]?["name"] == "Bob")
        #expect(joined.first?["data"]?["participant"]?["isJoined"] == true)
    }

    @Test func leavingIsParticipantLeftWithReasonLeft() throws {
        let room = try TwoInARoom()
        let (seen, answer) = room.change(room.bob, ["type": "leave", "id": 4, "room": "r"])
        #expect(answer.first?["type"] == "ack")
        #expect(answer.first?["seq"] == .int(room.harness.sequence("r")))
        #expect(seen.eventNames == ["participant.left"])
        #expect(seen.first?["data"]?["reason"] == "left")
        #expect(seen.first?["data"]?["participant"]?["state"] == "left")
        #expect(room.harness.participant("u-bob", in: "r")?.leftAt == room.harness.clock.now)
        // Bob no longer receives the room's events.
        room.harness.send(room.alice, ["type": "state", "room": "r", "handRaised": true])
        #expect(room.harness.drain(room.bob).isEmpty)
    }

    static let flagCases: [(field: String, on: String, off: String)] = [
        ("audioMuted", "participant.audio_muted", "participant.audio_unmuted"),
        ("videoPaused", "participant.video_paused", "participant.video_resumed"),
        ("handRaised", "participant.hand_raised", "participant.hand_lowered"),
        ("presenting", "participant.screen_share_started", "participant.screen_share_stopped"),
    ]

    @Test(arguments: 0..<4)
    func eachStateFlagHasAnEventOnAndOffAndRepeatingChangesNothing(_ index: Int) throws {
        let (field, on, off) = Self.flagCases[index]
        let room = try TwoInARoom()
        let first = room.change(room.bob, ["type": "state", "id": 5, "room": "r", field: true])
        #expect(first.seen.eventNames == [on])
        #expect(first.seen.first?["actor"] == "u-bob")
        #expect(first.seen.first?["data"]?["participant"]?[field] == true)
        #expect(first.answer.first?["changed"] == true)
        let again = room.change(room.bob, ["type": "state", "id": 6, "room": "r", field: true])
        #expect(again.seen.isEmpty)
        #expect(again.answer.first?["changed"] == false)
        #expect(again.answer.first?["seq"] == first.seen.first?["seq"])
        let back = room.change(room.bob, ["type": "state", "room": "r", field: false])
        #expect(back.seen.eventNames == [off])
        #expect(back.seen.first?["data"]?["participant"]?[field] == false)
    }

    @Test func severalChangesInOneStateMessageAreSeveralEventsInOrder() throws {
        let room = try TwoInARoom()
        let (seen, answer) = room.change(
            room.bob,
            [
                "type": "state", "id": 5, "room": "r", "audioMuted": true,
                "handRaised": true, "mid": "mid-7", "cameraFacing": "back",
            ])
        #expect(
            seen.eventNames == [
                "participant.audio_muted", "participant.hand_raised",
                "participant.media_id_changed", "media.camera_facing_changed",
            ])
        #expect(seen.events(named: "participant.media_id_changed").first?["data"]?["mid"] == "mid-7")
        #expect(seen.events(named: "media.camera_facing_changed").first?["data"]?["cameraFacing"] == "back")
        #expect(answer.first?["seq"] == seen.last?["seq"])
        let participant = room.harness.participant("u-bob", in: "r")
        #expect(participant?.mid == "mid-7")
        #expect(participant?.cameraFacing == "back")
    }

    @Test func pinnedAndUnpinnedComeFromSpotlight() throws {
        let room = try TwoInARoom()
        let pin = room.change(room.alice, ["type": "action", "room": "r", "action": "spotlight", "target": "u-bob"])
        #expect(pin.seen.eventNames == ["participant.pinned"])
        #expect(pin.seen.first?["actor"] == "u-alice")
        #expect(pin.seen.first?["data"]?["participant"]?["pinned"] == true)
        let unpin = room.change(
            room.alice, ["type": "action", "room": "r", "action": "unspotlight", "target": "u-bob"])
        #expect(unpin.seen.eventNames == ["participant.unpinned"])
        #expect(room.harness.participant("u-bob", in: "r")?.pinned == false)
    }

    @Test func aParticipantReportsItsOwnSpeakingAndTheLatestSpeakerStillSpeakingIsTheActiveOne() throws {
        let room = try TwoInARoom()
        let state = { room.harness.gateway.roomState("r") }
        let bob = room.change(room.bob, ["type": "speaker", "id": 1, "room": "r", "uid": "u-bob"])
        #expect(bob.answer.first?["changed"] == true)
        #expect(state()?.activeSpeaker == "u-bob")
        _ = room.change(room.alice, ["type": "speaker", "room": "r", "uid": "u-alice"])
        #expect(state()?.speakers == ["u-bob", "u-alice"])
        // Alice stops: Bob, still speaking, is the active speaker again.
        let stop = room.change(room.alice, ["type": "speaker", "id": 2, "room": "r", "uid": nil])
        #expect(stop.answer.first?["changed"] == true)
        #expect(state()?.activeSpeaker == "u-bob")
        // Stopping twice changes nothing.
        #expect(
            room.change(room.alice, ["type": "speaker", "id": 3, "room": "r", "uid": nil]).answer.first?["changed"]
                == false)
        let history = room.harness.request(room.alice, ["type": "query", "id": 4, "query": "history", "room": "r"])
        let names = history.first?["events"]?.arrayValue?.compactMap { $0["event"]?.stringValue } ?? []
        #expect(
            names.suffix(3) == [
                "participant.active_speaker_changed", "participant.active_speaker_changed",
                "participant.speaker_stopped",
            ])
    }

    @Test func aParticipantMayNotReportAnotherAsSpeakingOrSilenceEveryone() throws {
        let room = try TwoInARoom()
        _ = room.change(room.bob, ["type": "speaker", "room": "r", "uid": "u-bob"])
        let before = room.harness.sequence("r")
        let forged = room.change(room.alice, ["type": "speaker", "id": 1, "room": "r", "uid": "u-bob"])
        #expect(forged.answer.errorCodes == ["ERR_FORBIDDEN"])
        let stranger = room.change(room.alice, ["type": "speaker", "id": 2, "room": "r", "uid": "u-nobody"])
        #expect(stranger.answer.errorCodes == ["ERR_FORBIDDEN"])
        // Alice's "stopped" concerns Alice only: Bob is still the active speaker.
        _ = room.change(room.alice, ["type": "speaker", "room": "r", "uid": nil])
        #expect(room.harness.sequence("r") == before)
        #expect(room.harness.gateway.roomState("r")?.activeSpeaker == "u-bob")
    }

    @Test func aBotWithTheSpeakerCapabilityReportsAnyoneAndNobody() throws {
        let room = try TwoInARoom()
        let bot = try room.harness.connect("b-vad", rooms: ["r": .bot], caps: ["speaker"])
        try room.harness.join(bot, "r", as: "observer")
        let alice = room.change(bot, ["type": "speaker", "id": 1, "room": "r", "uid": "u-alice"])
        #expect(alice.answer.first?["changed"] == true)
        #expect(room.harness.gateway.roomState("r")?.activeSpeaker == "u-alice")
        let ghost = room.change(bot, ["type": "speaker", "id": 2, "room": "r", "uid": "u-ghost"])
        #expect(ghost.answer.errorCodes == ["ERR_NOT_FOUND"])
        _ = room.change(bot, ["type": "speaker", "room": "r", "uid": nil])
        #expect(room.harness.gateway.roomState("r")?.activeSpeaker == nil)
        let plainBot = try room.harness.connect("b-plain", rooms: ["r": .bot], caps: ["mute"])
        try room.harness.join(plainBot, "r", as: "observer")
        let refused = room.change(plainBot, ["type": "speaker", "id": 3, "room": "r", "uid": "u-bob"])
        #expect(refused.answer.errorCodes == ["ERR_FORBIDDEN"])
    }

    @Test func recordingIsForModeratorsOnly() throws {
        let room = try TwoInARoom()
        let before = room.harness.sequence("r")
        let denied = room.change(room.bob, ["type": "media", "id": 6, "room": "r", "recording": true])
        #expect(denied.answer.errorCodes == ["ERR_FORBIDDEN"])
        #expect(denied.seen.isEmpty)
        #expect(room.harness.sequence("r") == before)
        let started = room.change(room.alice, ["type": "media", "id": 6, "room": "r", "recording": true])
        #expect(started.seen.eventNames == ["media.recording_started"])
        #expect(started.seen.first?["actor"] == "u-alice")
        #expect(room.harness.gateway.roomState("r")?.isRecording == true)
        let stopped = room.change(room.alice, ["type": "media", "room": "r", "recording": false])
        #expect(stopped.seen.eventNames == ["media.recording_stopped"])
    }

    @Test func aParticipantTokenWithARecordCapabilityIsNotABot() throws {
        let harness = try RoomsNodeHarness()
        let carol = try harness.connect("u-carol", rooms: ["r": .participant], caps: ["record"])
        try harness.join(carol, "r")
        let refused = harness.request(carol, ["type": "media", "room": "r", "recording": true])
        #expect(refused.errorCodes == ["ERR_FORBIDDEN"])
        let bot = try harness.connect("bot-rec", rooms: ["r": .bot], caps: ["record"])
        try harness.join(bot, "r")
        let allowed = harness.request(bot, ["type": "media", "room": "r", "recording": true])
        #expect(allowed.first(type: "ack")?["changed"] == true)
        #expect(harness.gateway.roomState("r")?.isRecording == true)
    }

    @Test func aParticipantReportsItsOwnAudioModeAndNobodyElsesChanges() throws {
        let room = try TwoInARoom()
        room.harness.advance(milliseconds: 100)
        _ = room.harness.drainWithPatches(room.alice)
        let (seen, answer) = room.change(room.bob, ["type": "media", "id": 1, "room": "r", "audioMode": "earpiece"])
        #expect(seen.eventNames == ["media.audio_mode_changed"])
        #expect(seen.first?["data"]?["audioMode"] == "earpiece")
        #expect(seen.first?["data"]?["uid"] == "u-bob")
        #expect(answer.first?["changed"] == true)
        #expect(room.harness.participant("u-bob", in: "r")?.audioMode == "earpiece")
        #expect(room.harness.participant("u-alice", in: "r")?.audioMode == nil)
        room.harness.advance(milliseconds: 100)
        let patch = room.harness.drainWithPatches(room.alice).first { $0["type"] == "patch" }
        #expect(patch?["patch"] == ["participants": ["u-bob": ["audioMode": "earpiece"]]])
    }

    @Test func anAudioModeForSomeoneElseOrOutsideTheKnownOutputsIsRefused() throws {
        let room = try TwoInARoom()
        let other = room.change(
            room.bob, ["type": "media", "id": 1, "room": "r", "audioMode": "speaker", "uid": "u-alice"])
        #expect(other.answer.first?["code"] == "ERR_FORBIDDEN")
        let unknown = room.change(room.bob, ["type": "media", "id": 2, "room": "r", "audioMode": "loud"])
        #expect(unknown.answer.first?["code"] == "ERR_BAD_REQUEST")
        #expect(other.seen.isEmpty && unknown.seen.isEmpty)
        #expect(room.harness.participant("u-alice", in: "r")?.audioMode == nil)
    }

    @Test func aCleanCloseWithoutLeaveIsAConnectionClosedThenALeaveAfterTheGrace() throws {
        let room = try TwoInARoom { $0.reconnectGraceMilliseconds = 15_000 }
        room.harness.close(room.bob, cleanly: true)
        let closed = room.harness.drain(room.alice)
        #expect(closed.eventNames == ["session.connection_closed"])
        #expect(closed.first?["data"]?["participant"]?["state"] == "reconnecting")
        #expect(room.harness.participant("u-bob", in: "r")?.isJoined == true)
        room.harness.advance(milliseconds: 15_000)
        let left = room.harness.drain(room.alice)
        #expect(left.eventNames == ["participant.left"])
        #expect(left.first?["data"]?["reason"] == "connection_closed")
        #expect(room.harness.participant("u-bob", in: "r")?.isJoined == false)
    }

    @Test func aLeaveMessageLeavesAtOnce() throws {
        let room = try TwoInARoom()
        room.harness.send(room.bob, ["type": "leave", "id": 9, "room": "r"])
        let seen = room.harness.drain(room.alice)
        #expect(seen.eventNames == ["participant.left"])
        #expect(seen.first?["data"]?["reason"] == "left")
        #expect(room.harness.participant("u-bob", in: "r")?.isJoined == false)
    }

    @Test func aDroppedSocketThatComesBackInTimeIsRestoredWithoutALeaveOrJoin() throws {
        let room = try TwoInARoom { $0.reconnectGraceMilliseconds = 15_000 }
        room.harness.close(room.bob, cleanly: false)
        let lost = room.harness.drain(room.alice)
        #expect(lost.eventNames == ["session.connection_lost"])
        #expect(lost.first?["actor"] == .null)
        #expect(lost.first?["data"]?["participant"]?["state"] == "reconnecting")
        #expect(lost.first?["data"]?["participant"]?["devices"]?[0]?["connected"] == false)
        room.harness.advance(milliseconds: 14_000)
        #expect(room.harness.drain(room.alice).isEmpty)
        let again = try room.harness.connect("u-bob", rooms: ["r": .participant])
        let answer = try room.harness.join(again, "r", device: "phone")
        #expect(answer[1]["type"] == "snapshot")
        #expect(answer[1].snapshotParticipant("u-bob")?["state"] == "joined")
        room.harness.advance(milliseconds: 10_000)
        let seen = room.harness.drain(room.alice)
        #expect(seen.eventNames == ["session.connection_restored"])
        #expect(seen.first?["data"]?["participant"]?["state"] == "joined")
        #expect(room.harness.participant("u-bob", in: "r")?.devices.count == 1)
    }

    @Test func aDroppedSocketThatDoesNotComeBackTimesOut() throws {
        let room = try TwoInARoom { $0.reconnectGraceMilliseconds = 15_000 }
        room.harness.close(room.bob, cleanly: false)
        _ = room.harness.drain(room.alice)
        room.harness.advance(milliseconds: 14_999)
        #expect(room.harness.participant("u-bob", in: "r")?.state == "reconnecting")
        room.harness.advance(milliseconds: 1)
        let seen = room.harness.drain(room.alice)
        #expect(seen.eventNames == ["session.timed_out"])
        #expect(seen.first?["actor"] == .null)
        #expect(seen.first?["data"]?["reason"] == "timed_out")
        #expect(room.harness.participant("u-bob", in: "r")?.state == "left")
        // A later join is a fresh join.
        let again = try room.harness.connect("u-bob", rooms: ["r": .participant])
        try room.harness.join(again, "r", device: "phone")
        #expect(room.harness.drain(room.alice).eventNames == ["participant.joined"])
    }

    @Test func aLateJoinerSeesTheWholeRoomInItsSnapshot() throws {
        let room = try TwoInARoom()
        let harness = room.harness
        harness.send(room.bob, ["type": "state", "room": "r", "audioMuted": true, "handRaised": true])
        harness.send(room.alice, ["type": "state", "room": "r", "presenting": true, "mid": "m-alice"])
        harness.send(room.alice, ["type": "media", "room": "r", "recording": true])
        harness.send(room.alice, ["type": "speaker", "room": "r", "uid": "u-alice"])
        let dave = try harness.connect("u-dave", rooms: ["r": .participant])
        try harness.join(dave, "r", device: "tablet")
        harness.send(dave, ["type": "leave", "room": "r"])
        // Past the coalescing window of the joins above, so Carol's join sends everything pending at once.
        harness.advance(milliseconds: 50)
        let carol = try harness.connect("u-carol", rooms: ["r": .participant])
        let answer = try harness.join(carol, "r")
        let snapshot = try #require(answer.first(type: "snapshot"))
        #expect(snapshot["seq"] == .int(harness.sequence("r")))
        #expect(snapshot["state"]?["recording"] == true)
        #expect(snapshot["state"]?["activeSpeaker"] == "u-alice")
        #expect(snapshot["state"]?["initiator"] == "u-alice")
        let uids = snapshot["participants"]?.arrayValue?.compactMap { $0["uid"]?.stringValue }
        #expect(uids == ["u-alice", "u-bob", "u-dave", "u-carol"])
        #expect(snapshot.snapshotParticipant("u-bob")?["audioMuted"] == true)
        #expect(snapshot.snapshotParticipant("u-bob")?["handRaised"] == true)
        #expect(snapshot.snapshotParticipant("u-alice")?["presenting"] == true)
        #expect(snapshot.snapshotParticipant("u-alice")?["mid"] == "m-alice")
        #expect(snapshot.snapshotParticipant("u-alice")?["audioMuted"] == false)
        #expect(snapshot.snapshotParticipant("u-dave")?["isJoined"] == false)
        #expect(snapshot.snapshotParticipant("u-dave")?["leftAt"] != .null)
        #expect(snapshot.snapshotParticipant("u-carol")?["state"] == "joined")
    }

    @Test func aNewCallListsOnlyThoseWhoJoinedIt() throws {
        let room = try TwoInARoom()
        let harness = room.harness
        harness.send(room.bob, ["type": "state", "room": "r", "audioMuted": true])
        harness.send(room.bob, ["type": "leave", "room": "r"])
        harness.send(room.alice, ["type": "leave", "room": "r"])
        #expect(harness.gateway.roomState("r")?.startedAt == nil)
        harness.advance(milliseconds: 60_000)
        let carol = try harness.connect("u-carol", rooms: ["r": .participant])
        let answer = try harness.join(carol, "r")
        let uids = answer.last?["participants"]?.arrayValue?.compactMap { $0["uid"]?.stringValue }
        #expect(uids == ["u-carol"])
        #expect(answer.last?["state"]?["initiator"] == "u-carol")
        // Bob comes back to the new call with fresh state.
        try harness.join(harness.connect("u-bob", rooms: ["r": .participant]), "r")
        #expect(harness.participant("u-bob", in: "r")?.audioMuted == false)
        #expect(harness.participant("u-bob", in: "r")?.joinedAt == harness.clock.now)
        #expect(harness.gateway.roomState("r")?.joinOrder == ["u-carol", "u-bob"])
    }

    @Test func oneUserOnTwoDevicesIsOneRosterEntryUntilTheLastDeviceLeaves() throws {
        let room = try TwoInARoom()
        let harness = room.harness
        let laptop = try harness.connect("u-carol", rooms: ["r": .participant])
        let phone = try harness.connect("u-carol", rooms: ["r": .participant])
        try harness.join(laptop, "r", device: "laptop")
        let answer = try harness.join(phone, "r", device: "phone")
        let entries = answer[1]["participants"]?.arrayValue?.filter { $0["uid"] == "u-carol" }
        #expect(entries?.count == 1)
        #expect(entries?.first?["deviceID"] == "laptop")
        let devices = entries?.first?["devices"]?.arrayValue?.compactMap { $0["deviceID"]?.stringValue }
        #expect(devices == ["laptop", "phone"])
        // Media state is per user: the last change from any device wins.
        harness.send(phone, ["type": "state", "room": "r", "audioMuted": true])
        #expect(harness.participant("u-carol", in: "r")?.audioMuted == true)
        _ = harness.drain(room.alice)
        harness.send(laptop, ["type": "leave", "room": "r"])
        let left = harness.drain(room.alice).events(named: "participant.left")
        #expect(left.first?["data"]?["deviceID"] == "laptop")
        #expect(left.first?["data"]?["participant"]?["isJoined"] == true)
        #expect(harness.participant("u-carol", in: "r")?.devices.map(\.deviceID) == ["phone"])
        let members = harness.request(room.alice, ["type": "query", "query": "members", "room": "r"])
        #expect(members.first?["uids"] == ["u-alice", "u-bob", "u-carol"])
        harness.send(phone, ["type": "leave", "room": "r"])
        #expect(harness.participant("u-carol", in: "r")?.isJoined == false)
    }
}
