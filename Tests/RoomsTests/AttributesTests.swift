import JSONCoding
import RoomsTesting
import Testing
import TokenAuth

@testable import Rooms

/// Participant attributes and room metadata: who sets them, their limits, and how they reach subscribers.
@Suite struct AttributesTests {
    @Test func aParticipantSetsAndRemovesItsOwnAttributesAndSubscribersGetPerFieldPatches() throws {
        let harness = try RoomsNodeHarness { $0.patchWindowMilliseconds = 0 }
        let ann = try harness.joinQuietly("u-ann")
        let mirror = try RosterMirror(harness)
        let set = harness.request(
            ann, ["type": "attributes", "id": 1, "room": "r", "attributes": ["pronouns": "she/her", "team": "core"]])
        #expect(set.first(type: "ack")?["changed"] == true)
        let patches = RosterMirror.patches(try mirror.sync())
        #expect(
            patches.last?["patch"] == [
                "participants": ["u-ann": ["attributes": ["pronouns": "she/her", "team": "core"]]]
            ])
        harness.send(ann, ["type": "attributes", "room": "r", "attributes": ["team": nil, "pronouns": "she/her"]])
        let removal = RosterMirror.patches(try mirror.sync())
        #expect(removal.last?["patch"] == ["participants": ["u-ann": ["attributes": ["team": nil]]]])
        #expect(harness.participant("u-ann", in: "r")?.attributes == ["pronouns": "she/her"])
        #expect(mirror.matchesServer())
        // The same values again change nothing.
        let same = harness.request(
            ann, ["type": "attributes", "id": 2, "room": "r", "attributes": ["pronouns": "she/her"]])
        #expect(same.first(type: "ack")?["changed"] == false)
    }

    @Test func theTokensAttributesAreCarriedAndOnlyTheBackendChangesThem() throws {
        let harness = try RoomsNodeHarness { $0.patchWindowMilliseconds = 0 }
        let token = try harness.token("u-ceo", rooms: ["r": .participant], attributes: ["title": "CEO"])
        let ceo = harness.open(token: token)
        _ = harness.drain(ceo)
        try harness.join(ceo, "r")
        #expect(harness.participant("u-ceo", in: "r")?.attributes == ["title": "CEO"])
        let forged = harness.request(
            ceo, ["type": "attributes", "id": 1, "room": "r", "attributes": ["title": "Pope"]])
        #expect(forged.first?["code"] == "ERR_FORBIDDEN")
        let own = harness.request(ceo, ["type": "attributes", "id": 2, "room": "r", "attributes": ["mood": "busy"]])
        #expect(own.first(type: "ack")?["changed"] == true)
        #expect(harness.participant("u-ceo", in: "r")?.attributes == ["title": "CEO", "mood": "busy"])
    }

    @Test func anotherParticipantsAttributesNeedTheAttributesCapability() throws {
        let harness = try RoomsNodeHarness()
        let ann = try harness.joinQuietly("u-ann")
        try harness.joinQuietly("u-bob")
        let forged = harness.request(
            ann, ["type": "attributes", "id": 1, "room": "r", "uid": "u-bob", "attributes": ["badge": "admin"]])
        #expect(forged.first?["code"] == "ERR_FORBIDDEN")
        let host = try harness.joinQuietly("u-host", role: .moderator)
        let byModerator = harness.request(
            host, ["type": "attributes", "id": 2, "room": "r", "uid": "u-bob", "attributes": ["badge": "guest"]])
        #expect(byModerator.first?["code"] == "ERR_FORBIDDEN")
        let bot = try harness.connect("b-crm", rooms: ["r": .bot], caps: ["attributes"])
        try harness.join(bot, "r", as: "observer")
        let byBot = harness.request(
            bot, ["type": "attributes", "id": 3, "room": "r", "uid": "u-bob", "attributes": ["badge": "vip"]])
        #expect(byBot.first(type: "ack")?["changed"] == true)
        #expect(harness.participant("u-bob", in: "r")?.attributes == ["badge": "vip"])
        let absent = harness.request(
            bot, ["type": "attributes", "id": 4, "room": "r", "uid": "u-gone", "attributes": ["badge": "vip"]])
        #expect(absent.first?["code"] == "ERR_NOT_FOUND")
    }

    @Test func changesPastTheLimitsAreRefusedWithTooLargeAndChangeNothing() throws {
        let harness = try RoomsNodeHarness()
        let ann = try harness.joinQuietly("u-ann")
        let long = String(repeating: "x", count: AttributeLimits.participant.maximumValueBytes + 1)
        let tooLong = harness.request(
            ann, ["type": "attributes", "id": 1, "room": "r", "attributes": ["a": .string(long)]])
        #expect(tooLong.first?["code"] == "ERR_TOO_LARGE")
        let badKey = harness.request(ann, ["type": "attributes", "id": 2, "room": "r", "attributes": ["a b": "x"]])
        #expect(badKey.first?["code"] == "ERR_BAD_REQUEST")
        // Sixteen keys fit; the seventeenth, in a later message, does not.
        for index in 0..<16 {
            harness.send(ann, ["type": "attributes", "room": "r", "attributes": [.init("k\(index)"): "v"]])
        }
        let seventeenth = harness.request(
            ann, ["type": "attributes", "id": 3, "room": "r", "attributes": ["k16": "v"]])
        #expect(seventeenth.first?["code"] == "ERR_TOO_LARGE")
        #expect(harness.participant("u-ann", in: "r")?.attributes.count == 16)
        // 2 KiB in all: eight 250-byte values fit, the ninth does not.
        let other = try harness.joinQuietly("u-bob")
        let value = JSONValue.string(String(repeating: "y", count: 250))
        for index in 0..<8 {
            harness.send(other, ["type": "attributes", "room": "r", "attributes": [.init("b\(index)"): value]])
        }
        let ninth = harness.request(other, ["type": "attributes", "id": 4, "room": "r", "attributes": ["b8": value]])
        #expect(ninth.first?["code"] == "ERR_TOO_LARGE")
    }

    @Test func roomMetadataIsForModeratorsMetadataBotsAndTheServerAPI() throws {
        let harness = try RoomsNodeHarness { $0.patchWindowMilliseconds = 0 }
        let host = try harness.joinQuietly("u-host", role: .moderator)
        let ann = try harness.joinQuietly("u-ann")
        let mirror = try RosterMirror(harness)
        let refused = harness.request(ann, ["type": "metadata", "id": 1, "room": "r", "metadata": ["topic": "mine"]])
        #expect(refused.first?["code"] == "ERR_FORBIDDEN")
        let set = harness.request(
            host, ["type": "metadata", "id": 2, "room": "r", "metadata": ["topic": "Q3 planning"]])
        #expect(set.first(type: "ack")?["changed"] == true)
        let patch = RosterMirror.patches(try mirror.sync()).last
        #expect(patch?["patch"]?["room"]?["metadata"] == ["topic": "Q3 planning"])
        #expect(
            mirror.received.events(named: "room.metadata_changed").first?["data"]?["metadata"] == [
                "topic": "Q3 planning"
            ])
        let bot = try harness.connect("b-agenda", rooms: ["r": .bot], caps: ["metadata"])
        try harness.join(bot, "r", as: "observer")
        let byBot = harness.request(
            bot, ["type": "metadata", "id": 3, "room": "r", "metadata": ["topic": nil, "agenda": "1. intro"]])
        #expect(byBot.first(type: "ack")?["changed"] == true)
        #expect(harness.gateway.roomState("r")?.metadata == ["agenda": "1. intro"])
        var done = false
        try harness.gateway.apiPublishEvent(
            room: "r", body: ["type": "metadata", "metadata": ["agenda": nil]], actor: "api:backend"
        ) { result in done = (try? result.get())?.changed == true }
        #expect(done)
        #expect(harness.gateway.roomState("r")?.metadata == [:])
        try mirror.sync()
        #expect(mirror.matchesServer())
    }

    @Test func attributesAndMetadataSurviveACheckpointAndTheLogForm() throws {
        var state = RoomState(id: "r")
        state.apply(
            RoomLogEntry(
                sequence: 1, time: 1, actor: nil, reason: nil,
                event: .participantJoined(
                    uid: "u-a", deviceID: "d", name: "A", avatar: nil, role: .participant, callType: nil,
                    attributes: ["title": "CTO"])))
        let events: [RoomEvent] = [
            .attributesChanged(uid: "u-a", changes: ["team": "core", "title": nil]),
            .metadataChanged(changes: ["topic": "x", "gone": nil]),
        ]
        for (index, event) in events.enumerated() {
            let entry = RoomLogEntry(sequence: UInt64(index + 2), time: 2, actor: "u-a", reason: nil, event: event)
            #expect(try RoomLogEntry(wireValue: entry.wireValue) == entry)
            state.apply(entry)
        }
        #expect(state.participants["u-a"]?.attributes == ["team": "core"])
        let replica = RoomReplica(state: state)
        #expect(try RoomReplica(checkpoint: replica.checkpoint) == replica)
    }
}
