import JSONCoding
import RoomsTesting
import Testing
import TokenAuth

@testable import Rooms

/// Per-participant permissions, the hard mute and the request to unmute.
@Suite struct PermissionsTests {
    /// A host (moderator) and Ann and Bob (participants), every roster change sent at once.
    struct Call {
        let harness: RoomsNodeHarness
        let host: SessionID
        let ann: SessionID
        let bob: SessionID

        init() throws {
            self.harness = try RoomsNodeHarness { $0.patchWindowMilliseconds = 0 }
            self.host = try self.harness.joinQuietly("u-host", role: .moderator)
            self.ann = try self.harness.joinQuietly("u-ann")
            self.bob = try self.harness.joinQuietly("u-bob")
        }

        func request(_ session: SessionID, _ message: JSONValue) -> JSONValue? {
            self.harness.request(session, message).first { $0["type"] == "ack" || $0["type"] == "error" }
        }

        func annEntry() -> Participant? { self.harness.participant("u-ann", in: "r") }
    }

    @Test func aHardMutedParticipantCannotUnmuteItselfUntilAModeratorAsks() throws {
        let call = try Call()
        let mute = call.request(
            call.host, ["type": "action", "id": 1, "room": "r", "action": "mute", "target": "u-ann", "hard": true])
        #expect(mute?["changed"] == true)
        #expect(call.annEntry()?.audioMuted == true && call.annEntry()?.permissions.mayUnmute == false)
        let unmute = call.request(call.ann, ["type": "state", "id": 2, "room": "r", "audioMuted": false])
        #expect(unmute?["code"] == "ERR_FORBIDDEN")
        #expect(call.annEntry()?.audioMuted == true)
        // Other changes still go through.
        #expect(
            call.request(call.ann, ["type": "state", "id": 3, "room": "r", "handRaised": true])?["changed"] == true)
        let ask = call.request(
            call.host, ["type": "action", "id": 4, "room": "r", "action": "ask_unmute", "target": "u-ann"])
        #expect(ask?["changed"] == true)
        let asked = call.harness.drain(call.ann).events(named: "moderation.unmute_requested")
        #expect(asked.first?["data"]?["uid"] == "u-ann")
        #expect(
            call.request(call.ann, ["type": "state", "id": 5, "room": "r", "audioMuted": false])?["changed"] == true)
        #expect(call.annEntry()?.audioMuted == false)
    }

    @Test func aTimedHardMuteLiftsItselfThroughTheLog() throws {
        let call = try Call()
        let mirror = try RosterMirror(call.harness)
        _ = call.request(
            call.host,
            [
                "type": "action", "id": 1, "room": "r", "action": "mute", "target": "u-ann", "hard": true,
                "durationMs": 60_000,
            ])
        try mirror.sync()
        #expect(mirror.participants["u-ann"]?["permissions"]?["unmute"] == false)
        call.harness.advance(milliseconds: 59_000)
        #expect(call.annEntry()?.permissions.mayUnmute == false)
        call.harness.advance(milliseconds: 1_100)
        #expect(call.annEntry()?.permissions.mayUnmute == true)
        #expect(call.annEntry()?.audioMuted == true)
        try mirror.sync()
        #expect(mirror.participants["u-ann"]?["permissions"] == nil)
        #expect(mirror.received.events(named: "moderation.permissions_changed").last?["actor"] == .null)
        #expect(mirror.matchesServer())
    }

    @Test func permissionsAreSetByModeratorsPermissionBotsAndTheServerAPIOnly() throws {
        let call = try Call()
        let byPeer = call.request(
            call.ann, ["type": "permissions", "id": 1, "room": "r", "uid": "u-bob", "permissions": ["share": false]])
        #expect(byPeer?["code"] == "ERR_FORBIDDEN")
        let byHost = call.request(
            call.host,
            [
                "type": "permissions", "id": 2, "room": "r", "uid": "u-bob",
                "permissions": ["share": false, "meetings": false],
            ])
        #expect(byHost?["changed"] == true)
        let share = call.request(call.bob, ["type": "state", "id": 3, "room": "r", "presenting": true])
        #expect(share?["code"] == "ERR_FORBIDDEN")
        let bot = try call.harness.connect("b-policy", rooms: ["r": .bot], caps: ["permissions"])
        try call.harness.join(bot, "r", as: "observer")
        let byBot = call.request(
            bot, ["type": "permissions", "id": 4, "room": "r", "uid": "u-bob", "permissions": ["share": true]])
        #expect(byBot?["changed"] == true)
        #expect(
            call.request(call.bob, ["type": "state", "id": 5, "room": "r", "presenting": true])?["changed"] == true)
    }

    @Test func aParticipantWithoutTheMeetingsPermissionCannotAnnounceOne() throws {
        let harness = try RoomsNodeHarness()
        let host = try harness.connect("u-host", rooms: ["team": .moderator])
        let ann = try harness.connect("u-ann", groups: ["team"])
        try harness.join(host, "team")
        try harness.join(ann, "team")
        _ = harness.request(
            host, ["type": "permissions", "id": 1, "room": "team", "uid": "u-ann", "permissions": ["meetings": false]])
        let meeting = harness.request(ann, ["type": "meeting", "id": 2, "group": "team", "sessionId": "s-1"])
        #expect(meeting.first?["code"] == "ERR_FORBIDDEN")
        #expect(harness.gateway.roomState("team")?.activeMeeting == nil)
    }

    @Test func aHiddenParticipantIsInTheRoomButInNoListOrCount() throws {
        let harness = try RoomsNodeHarness { $0.patchWindowMilliseconds = 0 }
        try harness.joinQuietly("u-ann")
        let recorder = try harness.connect("b-rec", rooms: ["r": .bot], caps: ["hidden", "record"])
        try harness.join(recorder, "r")
        #expect(harness.gateway.roomState("r")?.participants["b-rec"]?.isJoined == true)
        let mirror = try RosterMirror(harness)
        #expect(Set(mirror.participants.keys) == ["u-ann"])
        #expect(mirror.store.roomState["participantCount"] == 1)
        let members = harness.request(mirror.session, ["type": "query", "id": 1, "query": "members", "room": "r"])
        #expect(members.first?["uids"] == ["u-ann"])
        // A moderator can show it.
        let host = try harness.joinQuietly("u-host", role: .moderator)
        _ = harness.request(
            host, ["type": "permissions", "id": 2, "room": "r", "uid": "b-rec", "permissions": ["hidden": false]])
        try mirror.sync()
        #expect(mirror.participants["b-rec"] != nil)
        #expect(mirror.matchesServer())
    }

    @Test func onlyAnAdminRestrictsOrHardMutesAnAdmin() throws {
        let harness = try RoomsNodeHarness()
        let host = try harness.joinQuietly("u-host", role: .moderator)
        try harness.joinQuietly("u-boss", role: .admin)
        let mute = harness.request(
            host, ["type": "action", "id": 1, "room": "r", "action": "mute", "target": "u-boss", "hard": true])
        #expect(mute.first?["code"] == "ERR_FORBIDDEN")
        let restrict = harness.request(
            host, ["type": "permissions", "id": 2, "room": "r", "uid": "u-boss", "permissions": ["unmute": false]])
        #expect(restrict.first?["code"] == "ERR_FORBIDDEN")
        // A soft mute of an admin is still allowed, as before.
        let soft = harness.request(
            host, ["type": "action", "id": 3, "room": "r", "action": "mute", "target": "u-boss"])
        #expect(soft.first(type: "ack")?["changed"] == true)
    }

    @Test func permissionsAndHardMutesSurviveTheLogFormAndACheckpoint() throws {
        var permissions = ParticipantPermissions()
        permissions.mayShare = false
        permissions.hidden = true
        let events: [RoomEvent] = [
            .participantJoined(
                uid: "u-a", deviceID: "d", name: "A", avatar: nil, role: .bot, callType: nil, hidden: true),
            .hardMuted(uid: "u-a", durationMilliseconds: 30_000),
            .permissionsChanged(uid: "u-a", permissions: permissions),
            .unmuteRequested(uid: "u-a"),
        ]
        var state = RoomState(id: "r")
        for (index, event) in events.enumerated() {
            let entry = RoomLogEntry(sequence: UInt64(index + 1), time: 1_000, actor: nil, reason: nil, event: event)
            #expect(try RoomLogEntry(wireValue: entry.wireValue) == entry)
            state.apply(entry)
        }
        let replica = RoomReplica(state: state)
        #expect(try RoomReplica(checkpoint: replica.checkpoint) == replica)
    }
}
