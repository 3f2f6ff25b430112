import JSONCoding
import RoomsTesting
import Testing
import TokenAuth

@testable import Rooms

/// What docs/PROTOCOL.md says where users had to guess, each checked against the gateway.
@Suite struct DocumentedBehaviourTests {
    @Test func raisedAtIsTheLogTimeInMillisecondsAndAHandLoweredAndRaisedAgainGoesToTheBack() throws {
        let harness = try RoomsNodeHarness { $0.patchWindowMilliseconds = 0 }
        let ann = try harness.joinQuietly("u-ann")
        let bob = try harness.joinQuietly("u-bob")
        let annRaised = harness.clock.now
        harness.send(ann, ["type": "state", "room": "r", "handRaised": true])
        harness.advance(milliseconds: 1_000)
        harness.send(bob, ["type": "state", "room": "r", "handRaised": true])
        let queue = try RosterMirror(harness, view: ["filter": "raised_hands"])
        #expect(queue.participants["u-ann"]?["raisedAt"] == .int(annRaised))
        #expect(
            queue.harness.gateway.roomState("r").map {
                RosterView.members($0, spec: RosterViewSpec(filter: .raisedHands), speaker: nil)
            } == ["u-ann", "u-bob"])
        harness.advance(milliseconds: 1_000)
        harness.send(ann, ["type": "state", "room": "r", "handRaised": false])
        harness.send(ann, ["type": "state", "room": "r", "handRaised": true])
        try queue.sync()
        #expect(queue.participants["u-ann"]?["raisedAt"] == .int(annRaised + 2_000))
        #expect(
            queue.harness.gateway.roomState("r").map {
                RosterView.members($0, spec: RosterViewSpec(filter: .raisedHands), speaker: nil)
            } == ["u-bob", "u-ann"])
    }

    @Test func aMuteAndAHandRaisedInOneWindowAreOnePatchWithTheHandsRaisedAt() throws {
        let harness = try RoomsNodeHarness()
        let bob = try harness.joinQuietly("u-bob")
        harness.advance(milliseconds: 100)
        let mirror = try RosterMirror(harness, events: "none")
        harness.send(bob, ["type": "state", "room": "r", "audioMuted": true])
        harness.send(bob, ["type": "state", "room": "r", "handRaised": true])
        harness.advance(milliseconds: 50)
        let patches = RosterMirror.patches(try mirror.sync())
        #expect(patches.count == 1)
        let raisedAt = JSONValue.int(harness.clock.now - 50)
        #expect(
            patches.first?["patch"] == [
                "room": ["counts": ["muted": 1, "handsRaised": 1]],
                "participants": ["u-bob": ["audioMuted": true, "handRaised": true, "raisedAt": raisedAt]],
            ])
    }

    @Test func aParticipantsSpeakerNullMeansItStoppedAndHandsTheSpotlightBack() throws {
        let harness = try RoomsNodeHarness { $0.speakerRuleKind = .hold }
        let alice = try harness.joinQuietly("u-alice")
        let bob = try harness.joinQuietly("u-bob")
        harness.send(alice, ["type": "speaker", "room": "r", "uid": "u-alice"])
        harness.send(bob, ["type": "speaker", "room": "r", "uid": "u-bob"])
        #expect(harness.gateway.roomState("r")?.activeSpeaker == "u-bob")
        // Bob stopping hands it back to Alice; Alice's null, once she is not speaking, changes nothing more.
        harness.send(bob, ["type": "speaker", "room": "r", "uid": nil])
        #expect(harness.gateway.roomState("r")?.activeSpeaker == "u-alice")
        let again = harness.request(bob, ["type": "speaker", "id": 1, "room": "r", "uid": nil])
        #expect(again.errorCodes.isEmpty)
        #expect(harness.gateway.roomState("r")?.speakers == ["u-alice"])
    }

    @Test func muteAllSparesAdminsModeratorsPromotedParticipantsAndTheActorButNotBots() throws {
        let harness = try RoomsNodeHarness()
        let host = try harness.joinQuietly("u-host", role: .moderator)
        try harness.joinQuietly("u-boss", role: .admin)
        try harness.joinQuietly("u-mod", role: .moderator)
        try harness.joinQuietly("u-ann")
        try harness.joinQuietly("u-bob")
        try harness.joinQuietly("b-notes", role: .bot)
        _ = harness.request(host, ["type": "action", "room": "r", "action": "promote", "target": "u-ann"])
        _ = harness.request(host, ["type": "action", "room": "r", "action": "mute_all"])
        let muted = Set(harness.gateway.roomState("r")!.joinedParticipants.filter(\.audioMuted).map(\.uid))
        #expect(muted == ["u-bob", "b-notes"])
    }

    @Test func ownAttributesNeedTheCallWhileMetadataAndPermissionsNeedOnlyTheRoom() throws {
        let harness = try RoomsNodeHarness()
        try harness.joinQuietly("u-ann")
        let host = try harness.connect("u-host", rooms: ["r": .moderator])
        try harness.join(host, "r", as: "observer")
        let own = harness.request(host, ["type": "attributes", "id": 1, "room": "r", "attributes": ["title": "Host"]])
        #expect(own.errorCodes == ["ERR_NOT_IN_ROOM"])
        let metadata = harness.request(host, ["type": "metadata", "id": 2, "room": "r", "metadata": ["topic": "Q3"]])
        #expect(metadata.first(type: "ack")?["changed"] == true)
        let permissions = harness.request(
            host, ["type": "permissions", "id": 3, "room": "r", "uid": "u-ann", "permissions": ["share": false]])
        #expect(permissions.first(type: "ack")?["changed"] == true)
        // The participant named must be in the call.
        let absent = harness.request(
            host, ["type": "permissions", "id": 4, "room": "r", "uid": "u-gone", "permissions": ["share": false]])
        #expect(absent.errorCodes == ["ERR_NOT_FOUND"])
    }

    @Test func aModeratorOfTheGroupIsOneWhoseTokenGivesTheGroupsRoomThatRoleWithOrWithoutGroups() throws {
        let harness = try RoomsNodeHarness()
        let alice = try harness.connect("u-alice", groups: ["team"])
        let member = try harness.connect("u-bob", groups: ["team"])
        let moderator = try harness.connect("u-mod", rooms: ["team": .moderator])
        let both = try harness.connect("u-lead", rooms: ["team": .admin], groups: ["team"])
        let end: JSONValue = ["type": "meeting", "id": 1, "group": "team", "sessionId": "s-1", "active": false]
        harness.send(alice, ["type": "meeting", "group": "team", "sessionId": "s-1"])
        #expect(harness.request(member, end).errorCodes == ["ERR_FORBIDDEN"])
        #expect(harness.request(moderator, end).first(type: "ack")?["changed"] == true)
        harness.send(alice, ["type": "meeting", "group": "team", "sessionId": "s-1"])
        #expect(harness.request(both, end).first(type: "ack")?["changed"] == true)
        #expect(harness.gateway.roomState("team")?.activeMeeting == nil)
    }

    @Test func snapshotEntriesCarryPermissionsOnlyWhenOneIsNotAtItsDefaultThenAllOfThem() throws {
        let harness = try RoomsNodeHarness()
        let host = try harness.joinQuietly("u-host", role: .moderator)
        try harness.joinQuietly("u-ann")
        _ = harness.request(
            host, ["type": "permissions", "room": "r", "uid": "u-ann", "permissions": ["share": false]])
        let watcher = try harness.connect("u-watch", rooms: ["r": .viewer])
        let snapshot = try #require(try harness.join(watcher, "r", as: "observer").first(type: "snapshot"))
        #expect(snapshot.snapshotParticipant("u-host")?["permissions"] == nil)
        #expect(
            snapshot.snapshotParticipant("u-ann")?["permissions"]
                == ["unmute": true, "restrictedUntil": .null, "share": false, "meetings": true, "hidden": false])
        #expect(snapshot["roster"]?["participants"]?["u-ann"]?["permissions"] == ["share": false])
    }

    @Test func aJoinInsideAnotherJoinsWindowGetsTheViewAsLastSentAndItsOwnEntryInTheNextPatch() throws {
        let harness = try RoomsNodeHarness()
        let first = try harness.connect("u-first", rooms: ["r": .participant])
        try harness.join(first, "r")
        let second = try harness.connect("u-second", rooms: ["r": .participant])
        harness.send(second, ["type": "join", "id": 1, "room": "r"])
        let answer = harness.drainWithPatches(second)
        let ack = try #require(answer.first(type: "ack"))
        let snapshot = try #require(answer.first(type: "snapshot"))
        // The roster is the view as last sent (before this join); the state and the participant list are now.
        #expect(snapshot["seq"] == 1)
        #expect(ack["seq"] == 2)
        #expect(snapshot["roster"]?["participants"]?["u-second"] == nil)
        #expect(snapshot.snapshotParticipant("u-second") != nil)
        harness.advance(milliseconds: 50)
        let patch = try #require(harness.drainWithPatches(second).first(type: "patch"))
        #expect(patch["from"] == 1 && patch["seq"] == 2)
        #expect(patch["patch"]?["participants"]?["u-second"]?["uid"] == "u-second")
    }
}
