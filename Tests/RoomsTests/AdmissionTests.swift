import JSONCoding
import RoomsTesting
import Testing
import TokenAuth

@testable import Rooms

@Suite struct AdmissionTests {
    @Test func aJoinAnswersAnAckThenTheSnapshot() throws {
        let harness = try RoomsNodeHarness()
        let alice = try harness.connect("u-alice", name: "Alice", rooms: ["standup": .moderator])
        let answer = harness.request(
            alice,
            [
                "type": "join", "id": 2, "room": "standup", "device": "laptop-1",
                "callType": "audio",
            ])
        #expect(answer.map { $0["type"] } == ["ack", "snapshot"])
        var ack = answer[0].objectValue ?? JSONObject()
        let rights = ack.removeValue(forKey: "rights")
        #expect(JSONValue.object(ack) == ["type": "ack", "id": 2, "room": "standup", "seq": 1, "changed": true])
        // A moderator by token: every moderator action, recording, metadata and permissions; its own permissions.
        #expect(rights?["operator"] == true)
        #expect(rights?["actions"]?.arrayValue?.count == ModeratorAction.allCases.count)
        #expect(rights?["record"] == true && rights?["metadata"] == true && rights?["permissions"] == true)
        #expect(rights?["speakerForOthers"] == false && rights?["unmute"] == true)
        let snapshot = answer[1]
        #expect(snapshot["seq"] == 1)
        #expect(snapshot["state"]?["callType"] == "audio")
        #expect(snapshot["state"]?["initiator"] == "u-alice")
        #expect(snapshot["state"]?["capacity"] == 100)
        #expect(snapshot["recovered"] == nil)
        let entry = snapshot.snapshotParticipant("u-alice")
        #expect(entry?["name"] == "Alice")
        #expect(entry?["role"] == "moderator")
        #expect(entry?["state"] == "joined")
        #expect(entry?["deviceID"] == "laptop-1")
    }

    @Test func aTokenWithoutTheRoomOrItsGroupIsNotAGroupMember() throws {
        let harness = try RoomsNodeHarness()
        let eve = try harness.connect("u-eve", rooms: ["other": .admin], groups: ["other-group"])
        let answer = harness.request(eve, ["type": "join", "id": 1, "room": "team"])
        #expect(answer.errorCodes == ["ERR_NOT_GROUP_MEMBER"])
        #expect(harness.gateway.roomState("team") == nil)
        let meeting = harness.request(eve, ["type": "meeting", "group": "team", "sessionId": "call-1"])
        #expect(meeting.errorCodes == ["ERR_NOT_GROUP_MEMBER"])
        let query = harness.request(eve, ["type": "query", "query": "members", "room": "team"])
        #expect(query.errorCodes == ["ERR_NOT_GROUP_MEMBER"])
        #expect(harness.closeCode(eve) == nil)
    }

    @Test func aGroupMemberJoinsTheGroupRoomAsAParticipant() throws {
        let harness = try RoomsNodeHarness()
        let bob = try harness.connect("u-bob", groups: ["team"])
        let answer = try harness.join(bob, "team")
        #expect(answer[1].snapshotParticipant("u-bob")?["role"] == "participant")
        #expect(harness.participant("u-bob", in: "team")?.role == .participant)
    }

    @Test func aBannedUserCannotJoinOrWatch() throws {
        let harness = try RoomsNodeHarness()
        let moderator = try harness.connect("u-mod", rooms: ["r": .moderator])
        try harness.join(moderator, "r")
        harness.send(moderator, ["type": "action", "room": "r", "action": "ban", "target": "u-eve"])
        let eve = try harness.connect("u-eve", rooms: ["r": .participant])
        let before = harness.sequence("r")
        #expect(harness.request(eve, ["type": "join", "room": "r"]).errorCodes == ["ERR_BANNED"])
        #expect(harness.request(eve, ["type": "join", "room": "r", "as": "observer"]).errorCodes == ["ERR_BANNED"])
        #expect(harness.sequence("r") == before)
        // Nothing about the room reaches the banned user.
        harness.send(moderator, ["type": "state", "room": "r", "handRaised": true])
        #expect(harness.drain(eve).isEmpty)
    }

    @Test func theRoomIsFullAtCapacity() throws {
        let harness = try RoomsNodeHarness { $0.roomCapacity = 2 }
        for uid in ["u-1", "u-2"] {
            try harness.join(try harness.connect(uid, rooms: ["r": .participant]), "r")
        }
        let third = try harness.connect("u-3", rooms: ["r": .viewer])
        let before = harness.sequence("r")
        #expect(harness.request(third, ["type": "join", "id": 1, "room": "r"]).errorCodes == ["ERR_CALL_FULL"])
        #expect(harness.sequence("r") == before)
        #expect(harness.gateway.roomState("r")?.seatsTaken == 2)
        // Watching does not take a seat.
        try harness.join(third, "r", as: "observer")
    }

    @Test func moderatorsAndBotsTakeTheReservedSeatsAboveTheCapacity() throws {
        let harness = try RoomsNodeHarness {
            $0.roomCapacity = 2
            $0.reservedSeats = 2
        }
        for uid in ["u-1", "u-2"] {
            try harness.join(try harness.connect(uid, rooms: ["r": .participant]), "r")
        }
        try harness.join(try harness.connect("u-mod", rooms: ["r": .moderator]), "r")
        try harness.join(try harness.connect("bot-rec", rooms: ["r": .bot], caps: ["record"]), "r")
        let admin = try harness.connect("u-admin", rooms: ["r": .admin])
        #expect(harness.request(admin, ["type": "join", "room": "r"]).errorCodes == ["ERR_CALL_FULL"])
        #expect(harness.gateway.roomState("r")?.joinedParticipants.count == 4)
    }

    @Test func twoJoinsRacingForTheLastSeatLetExactlyOneIn() throws {
        let harness = try RoomsNodeHarness { $0.roomCapacity = 2 }
        try harness.join(try harness.connect("u-1", rooms: ["r": .participant]), "r")
        let bob = try harness.connect("u-bob", rooms: ["r": .participant])
        let carol = try harness.connect("u-carol", rooms: ["r": .participant])
        // Back to back, before either sees an answer.
        harness.send(bob, ["type": "join", "id": 1, "room": "r"])
        harness.send(carol, ["type": "join", "id": 1, "room": "r"])
        let answers = [harness.drain(bob), harness.drain(carol)]
        #expect(answers.filter { $0.first?["type"] == "ack" }.count == 1)
        #expect(answers.filter { $0.errorCodes == ["ERR_CALL_FULL"] }.count == 1)
        #expect(harness.gateway.roomState("r")?.seatsTaken == 2)
        #expect(harness.gateway.roomState("r")?.joinedParticipants.count == 2)
    }

    @Test func aConnectionCanBeInOnlySoManyRooms() throws {
        let harness = try RoomsNodeHarness { $0.maximumRoomsPerSession = 2 }
        let alice = try harness.connect("u-alice", rooms: ["a": .participant, "b": .participant, "c": .participant])
        try harness.join(alice, "a")
        try harness.join(alice, "b", as: "observer")
        #expect(harness.request(alice, ["type": "join", "id": 1, "room": "c"]).errorCodes == ["ERR_TOO_MANY_ROOMS"])
        #expect(harness.gateway.roomState("c")?.participants["u-alice"] == nil)
        // Leaving one makes room for another.
        #expect(harness.request(alice, ["type": "leave", "room": "b"]).first?["type"] == "ack")
        try harness.join(alice, "c")
    }

    @Test func theRoleInTheRosterComesFromTheToken() throws {
        let harness = try RoomsNodeHarness()
        let viewer = try harness.connect("u-view", rooms: ["r": .viewer])
        let bot = try harness.connect("bot-1", rooms: ["r": .bot], caps: ["mute"])
        try harness.join(viewer, "r")
        let answer = try harness.join(bot, "r")
        #expect(answer[1].snapshotParticipant("u-view")?["role"] == "viewer")
        #expect(answer[1].snapshotParticipant("bot-1")?["role"] == "bot")
        #expect(answer[1].snapshotParticipant("bot-1")?["bot"] == true)
    }
}

/// What the join's answer and the welcome say a user may do.
@Suite struct RightsTests {
    @Test func aParticipantsJoinAnswerListsNoModeratorActionsAndItsOwnPermissions() throws {
        let harness = try RoomsNodeHarness()
        let host = try harness.joinQuietly("u-host", role: .moderator)
        try harness.joinQuietly("u-ann")
        _ = harness.request(
            host, ["type": "permissions", "id": 1, "room": "r", "uid": "u-ann", "permissions": ["share": false]])
        let again = try harness.connect("u-ann", rooms: ["r": .participant])
        let ack = try #require(try harness.join(again, "r").first(type: "ack"))
        #expect(ack["rights"]?["operator"] == false)
        #expect(ack["rights"]?["actions"] == [])
        #expect(ack["rights"]?["record"] == false)
        #expect(ack["rights"]?["share"] == false)
        #expect(ack["rights"]?["role"] == "participant")
    }

    @Test func aBotsJoinAnswerListsTheActionsOfItsCapabilities() throws {
        let harness = try RoomsNodeHarness()
        let bot = try harness.connect("b-mod", rooms: ["r": .bot], caps: ["mute", "speaker"])
        let ack = try #require(try harness.join(bot, "r", as: "observer").first(type: "ack"))
        #expect(ack["rights"]?["actions"] == ["mute", "mute_all", "lower_hand", "lower_all_hands", "ask_unmute"])
        #expect(ack["rights"]?["speakerForOthers"] == true)
        #expect(ack["rights"]?["metadata"] == false)
    }

    @Test func aPromotedParticipantsNextJoinAnswerSaysItModerates() throws {
        let harness = try RoomsNodeHarness()
        let host = try harness.joinQuietly("u-host", role: .moderator)
        try harness.joinQuietly("u-ann")
        _ = harness.request(host, ["type": "action", "id": 1, "room": "r", "action": "promote", "target": "u-ann"])
        let second = try harness.connect("u-ann", rooms: ["r": .participant])
        let ack = try #require(try harness.join(second, "r", device: "phone").first(type: "ack"))
        #expect(ack["rights"]?["operator"] == true)
        #expect(ack["rights"]?["actions"]?.arrayValue?.contains("mute") == true)
    }

    @Test func theWelcomeListsTheTokensRoomsGroupsAndCapabilities() throws {
        let harness = try RoomsNodeHarness()
        let token = try harness.token("b-x", rooms: ["a": .bot, "b": .viewer], groups: ["g"], caps: ["mute"])
        let session = harness.open(token: token)
        let welcome = try #require(harness.drain(session).first)
        #expect(welcome["rooms"] == ["a": "bot", "b": "viewer"])
        #expect(welcome["groups"] == ["g"])
        #expect(welcome["capabilities"] == ["mute"])
    }
}
