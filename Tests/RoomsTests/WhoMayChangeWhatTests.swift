import JSONCoding
import RoomsTesting
import Testing
import TokenAuth

@testable import Rooms

/// docs/SECURITY.md's "Who may change what", row by row: each rule tried by an actor it allows and by one it
/// refuses, with the refusal's code.
@Suite struct WhoMayChangeWhatTests {
    /// A room with a moderator (in the call), an admin, Ann and Bob (participants in the call), and a moderator
    /// watching as an observer.
    struct Room {
        let harness: RoomsNodeHarness
        let host: SessionID
        let boss: SessionID
        let ann: SessionID
        let bob: SessionID
        let watchingHost: SessionID

        init() throws {
            self.harness = try RoomsNodeHarness()
            self.host = try self.harness.connect("u-host", rooms: ["r": .moderator])
            try self.harness.join(self.host, "r")
            self.boss = try self.harness.connect("u-boss", rooms: ["r": .admin])
            try self.harness.join(self.boss, "r")
            self.ann = try self.harness.connect("u-ann", rooms: ["r": .participant], groups: ["r"])
            try self.harness.join(self.ann, "r")
            self.bob = try self.harness.connect("u-bob", rooms: ["r": .participant])
            try self.harness.join(self.bob, "r")
            self.watchingHost = try self.harness.connect("u-host", rooms: ["r": .moderator])
            try self.harness.join(self.watchingHost, "r", as: "observer")
            // Dan waits in the waiting room (his token says so), for admitting and denying.
            let dan = try self.harness.connect("u-dan", rooms: ["r": .participant], admission: ["r": .wait])
            guard self.harness.request(dan, ["type": "join", "room": "r"]).first(type: "waiting") != nil else {
                throw HarnessError.unexpected("u-dan does not wait")
            }
        }

        /// A session of `uid` joined (or watching) with the given token.
        func session(
            _ uid: String, role: TokenRole, caps: [String] = [], as kind: String? = nil, groups: [String] = []
        ) throws -> SessionID {
            let session = try self.harness.connect(uid, rooms: ["r": role], groups: groups, caps: caps)
            try self.harness.join(session, "r", as: kind)
            return session
        }

        /// The answer's code: `ack` for an acknowledgement, else the error's code.
        func answer(_ session: SessionID, _ message: JSONValue) -> String? {
            let reply = self.harness.request(session, message).first { $0["type"] == "ack" || $0["type"] == "error" }
            return reply?["type"] == "ack" ? "ack" : reply?["code"]?.stringValue
        }

        /// The server API's answer: `ack` when it was carried out, else the error's code.
        func serverAPI(_ call: (@escaping (Result<RoomChangeOutcome, GatewayError>) -> Void) throws -> Void) -> String?
        {
            var outcome: String?
            do {
                try call { result in
                    switch result {
                    case .success: outcome = "ack"
                    case .failure(let error): outcome = error.code.rawValue
                    }
                }
            } catch {
                outcome = (error as? GatewayError)?.code.rawValue ?? "\(error)"
            }
            return outcome
        }
    }

    @Test func ownStateIsTheParticipantsInTheCallAndNotWhileWatching() throws {
        let room = try Room()
        #expect(room.answer(room.ann, ["type": "state", "id": 1, "room": "r", "handRaised": true]) == "ack")
        #expect(
            room.answer(room.watchingHost, ["type": "state", "id": 2, "room": "r", "handRaised": true])
                == "ERR_NOT_IN_ROOM")
    }

    @Test func pinnedIsSetBySpotlightNotByState() throws {
        let room = try Room()
        #expect(
            room.answer(room.host, ["type": "action", "id": 1, "room": "r", "action": "spotlight", "target": "u-ann"])
                == "ack")
        #expect(room.answer(room.ann, ["type": "state", "id": 2, "room": "r", "pinned": true]) == "ERR_FORBIDDEN")
    }

    @Test func speakingAboutOneselfIsFromTheCall() throws {
        let room = try Room()
        #expect(room.answer(room.ann, ["type": "speaker", "id": 1, "room": "r", "uid": "u-ann"]) == "ack")
        // The user must be in the call: a moderator who only watches is not (u-host is, from another connection).
        let watcher = try room.session("u-mod", role: .moderator, as: "observer")
        #expect(room.answer(watcher, ["type": "speaker", "id": 2, "room": "r", "uid": "u-mod"]) == "ERR_NOT_IN_ROOM")
    }

    @Test func speakingForAnotherIsForSpeakerBotsAndTheServerAPI() throws {
        let room = try Room()
        let bot = try room.session("b-voice", role: .bot, caps: ["speaker"], as: "observer")
        #expect(room.answer(bot, ["type": "speaker", "id": 1, "room": "r", "uid": "u-ann"]) == "ack")
        #expect(
            room.serverAPI {
                try room.harness.gateway.apiPublishEvent(
                    room: "r", body: ["type": "speaker", "uid": nil], actor: "api:test", completion: $0)
            } == "ack")
        #expect(room.answer(room.bob, ["type": "speaker", "id": 2, "room": "r", "uid": "u-ann"]) == "ERR_FORBIDDEN")
        #expect(room.answer(bot, ["type": "speaker", "id": 3, "room": "r", "uid": "u-gone"]) == "ERR_NOT_FOUND")
    }

    @Test func theRecordingIsForOperatorsRecordBotsAndTheServerAPIJoinedOrWatching() throws {
        let room = try Room()
        #expect(room.answer(room.watchingHost, ["type": "media", "id": 1, "room": "r", "recording": true]) == "ack")
        let recorder = try room.session("b-rec", role: .bot, caps: ["record"])
        #expect(room.answer(recorder, ["type": "media", "id": 2, "room": "r", "recording": false]) == "ack")
        _ = room.harness.request(room.host, ["type": "action", "room": "r", "action": "promote", "target": "u-bob"])
        #expect(room.answer(room.bob, ["type": "media", "id": 3, "room": "r", "recording": true]) == "ack")
        #expect(
            room.serverAPI {
                try room.harness.gateway.apiPublishEvent(
                    room: "r", body: ["type": "media", "recording": false], actor: "api:test", completion: $0)
            } == "ack")
        #expect(room.answer(room.ann, ["type": "media", "id": 4, "room": "r", "recording": true]) == "ERR_FORBIDDEN")
    }

    @Test func theAudioOutputIsTheParticipantsOwnOrTheServerAPIs() throws {
        let room = try Room()
        #expect(room.answer(room.ann, ["type": "media", "id": 1, "room": "r", "audioMode": "earpiece"]) == "ack")
        #expect(
            room.serverAPI {
                try room.harness.gateway.apiPublishEvent(
                    room: "r", body: ["type": "media", "audioMode": "bluetooth", "uid": "u-ann"], actor: "api:test",
                    completion: $0)
            } == "ack")
        #expect(
            room.answer(room.host, ["type": "media", "id": 2, "room": "r", "audioMode": "speaker", "uid": "u-ann"])
                == "ERR_FORBIDDEN")
        #expect(
            room.answer(room.ann, ["type": "media", "id": 3, "room": "r", "audioMode": "radio"]) == "ERR_BAD_REQUEST")
    }

    @Test func meetingMessagesAreForTheGroupsMembersAndTheServerAPI() throws {
        let room = try Room()
        #expect(room.answer(room.ann, ["type": "meeting", "id": 1, "group": "r", "sessionId": "s-1"]) == "ack")
        #expect(
            room.serverAPI {
                try room.harness.gateway.apiPublishMeeting(
                    room: "r", body: ["sessionId": "s-2"], sender: "api:test", completion: $0)
            } == "ack")
        let stranger = try room.harness.connect("u-eve", rooms: ["elsewhere": .participant])
        #expect(
            room.answer(stranger, ["type": "meeting", "id": 2, "group": "r", "sessionId": "s-3"])
                == "ERR_NOT_GROUP_MEMBER")
    }

    @Test func endingTheMeetingThatIsOnIsForItsSenderTheGroupsModeratorsAndTheServerAPI() throws {
        let room = try Room()
        let end: JSONValue = ["type": "meeting", "id": 1, "group": "r", "sessionId": "s-1", "active": false]
        room.harness.send(room.ann, ["type": "meeting", "group": "r", "sessionId": "s-1"])
        #expect(room.answer(room.bob, end) == "ERR_FORBIDDEN")
        #expect(room.answer(room.ann, end) == "ack")
        room.harness.send(room.ann, ["type": "meeting", "group": "r", "sessionId": "s-1"])
        #expect(room.answer(room.watchingHost, end) == "ack")
        room.harness.send(room.ann, ["type": "meeting", "group": "r", "sessionId": "s-1"])
        #expect(
            room.serverAPI {
                try room.harness.gateway.apiPublishMeeting(
                    room: "r", body: ["sessionId": "s-1", "active": false], sender: "api:test", completion: $0)
            } == "ack")
        #expect(room.harness.gateway.roomState("r")?.activeMeeting == nil)
    }

    @Test func ownAttributesAreTheParticipantsInTheCallButNotItsTokensKeys() throws {
        let room = try Room()
        #expect(
            room.answer(room.ann, ["type": "attributes", "id": 1, "room": "r", "attributes": ["team": "a"]]) == "ack")
        let watcher = try room.session("u-mod", role: .moderator, as: "observer")
        #expect(
            room.answer(watcher, ["type": "attributes", "id": 2, "room": "r", "attributes": ["team": "a"]])
                == "ERR_NOT_IN_ROOM")
        let token = try room.harness.token("u-carol", rooms: ["r": .participant], attributes: ["badge": "staff"])
        let carol = room.harness.open(token: token)
        try room.harness.join(carol, "r")
        #expect(
            room.answer(carol, ["type": "attributes", "id": 3, "room": "r", "attributes": ["badge": "guest"]])
                == "ERR_FORBIDDEN")
    }

    @Test func anothersAttributesAreForAttributeBotsAndTheServerAPI() throws {
        let room = try Room()
        let bot = try room.session("b-cards", role: .bot, caps: ["attributes"], as: "observer")
        let set: JSONValue = ["type": "attributes", "id": 1, "room": "r", "uid": "u-ann", "attributes": ["team": "b"]]
        #expect(room.answer(bot, set) == "ack")
        #expect(
            room.serverAPI {
                try room.harness.gateway.apiPublishEvent(
                    room: "r", body: ["type": "attributes", "uid": "u-ann", "attributes": ["team": "c"]],
                    actor: "api:test", completion: $0)
            } == "ack")
        #expect(room.answer(room.host, set) == "ERR_FORBIDDEN")
    }

    @Test func metadataIsForOperatorsMetadataBotsAndTheServerAPIJoinedOrWatching() throws {
        let room = try Room()
        let set: JSONValue = ["type": "metadata", "id": 1, "room": "r", "metadata": ["topic": "Q3"]]
        #expect(room.answer(room.watchingHost, set) == "ack")
        let bot = try room.session("b-agenda", role: .bot, caps: ["metadata"], as: "observer")
        #expect(room.answer(bot, ["type": "metadata", "id": 2, "room": "r", "metadata": ["topic": "Q4"]]) == "ack")
        #expect(
            room.serverAPI {
                try room.harness.gateway.apiPublishEvent(
                    room: "r", body: ["type": "metadata", "metadata": ["topic": "retro"]], actor: "api:test",
                    completion: $0)
            } == "ack")
        #expect(room.answer(room.ann, set) == "ERR_FORBIDDEN")
    }

    @Test func permissionsAreForOperatorsPermissionBotsAndTheServerAPIAndAnAdminsForAdmins() throws {
        let room = try Room()
        func set(_ uid: String, _ permission: String) -> JSONValue {
            [
                "type": "permissions", "id": 1, "room": "r", "uid": .string(uid),
                "permissions": [.init(permission): false],
            ]
        }
        #expect(room.answer(room.watchingHost, set("u-ann", "share")) == "ack")
        #expect(room.answer(room.host, set("u-bob", "hidden")) == "ack")
        let bot = try room.session("b-policy", role: .bot, caps: ["permissions"], as: "observer")
        #expect(room.answer(bot, set("u-ann", "meetings")) == "ack")
        #expect(
            room.serverAPI {
                try room.harness.gateway.apiPublishEvent(
                    room: "r", body: ["type": "permissions", "uid": "u-boss", "permissions": ["share": false]],
                    actor: "api:test", completion: $0)
            } == "ack")
        #expect(room.answer(room.ann, set("u-bob", "share")) == "ERR_FORBIDDEN")
        #expect(room.answer(room.host, set("u-boss", "unmute")) == "ERR_FORBIDDEN")
        #expect(room.answer(room.boss, set("u-boss", "unmute")) == "ack")
        #expect(room.answer(room.host, set("u-gone", "share")) == "ERR_NOT_FOUND")
    }

    @Test func aHardMuteIsAsAMuteAndOfAnAdminForAdmins() throws {
        let room = try Room()
        func hardMute(_ target: String) -> JSONValue {
            ["type": "action", "id": 1, "room": "r", "action": "mute", "target": .string(target), "hard": true]
        }
        #expect(room.answer(room.watchingHost, hardMute("u-ann")) == "ack")
        #expect(room.answer(room.bob, hardMute("u-ann")) == "ERR_FORBIDDEN")
        #expect(room.answer(room.host, hardMute("u-boss")) == "ERR_FORBIDDEN")
        let otherAdmin = try room.session("u-chief", role: .admin)
        #expect(room.answer(otherAdmin, hardMute("u-boss")) == "ack")
    }

    @Test func unmutingSharingAndMeetingsAreTheParticipantsUnlessAModeratorTookThemAway() throws {
        let room = try Room()
        #expect(room.answer(room.bob, ["type": "state", "id": 1, "room": "r", "presenting": true]) == "ack")
        _ = room.harness.request(
            room.host,
            [
                "type": "permissions", "room": "r", "uid": "u-ann",
                "permissions": ["unmute": false, "share": false, "meetings": false],
            ])
        #expect(room.answer(room.ann, ["type": "state", "id": 2, "room": "r", "audioMuted": false]) == "ERR_FORBIDDEN")
        #expect(room.answer(room.ann, ["type": "state", "id": 3, "room": "r", "presenting": true]) == "ERR_FORBIDDEN")
        #expect(
            room.answer(room.ann, ["type": "meeting", "id": 4, "group": "r", "sessionId": "s-1"]) == "ERR_FORBIDDEN")
    }

    @Test(arguments: ModeratorAction.allCases)
    func moderatorActionsAreForOperatorsBotsWithTheCapabilityAndTheServerAPI(_ action: ModeratorAction) throws {
        var fields: [(String, JSONValue)] = [
            ("type", "action"), ("id", 1), ("room", "r"), ("action", .string(action.rawValue)),
        ]
        let target = action.needsTargetWaiting ? "u-dan" : "u-bob"
        if action.needsTarget { fields.append(("target", .string(target))) }
        let request = JSONValue.object(JSONObject(uniqueKeysWithValues: fields))
        for allowed in ["watching host", "promoted", "bot", "server API"] {
            let room = try Room()
            switch allowed {
            case "watching host":
                #expect(room.answer(room.watchingHost, request) == "ack", "\(action) by \(allowed)")
            case "promoted":
                _ = room.harness.request(
                    room.host, ["type": "action", "room": "r", "action": "promote", "target": "u-ann"])
                #expect(room.answer(room.ann, request) == "ack", "\(action) by \(allowed)")
            case "bot":
                let bot = try room.session("b-mod", role: .bot, caps: [action.capability], as: "observer")
                #expect(room.answer(bot, request) == "ack", "\(action) by \(allowed)")
            default:
                var body = JSONObject(uniqueKeysWithValues: [("action", JSONValue.string(action.rawValue))])
                if action.needsTarget { body["target"] = .string(target) }
                let outcome = room.serverAPI {
                    try room.harness.gateway.apiModerate(
                        room: "r", body: .object(body), actor: "api:test", completion: $0)
                }
                #expect(outcome == "ack", "\(action) by \(allowed)")
            }
        }
        let room = try Room()
        #expect(room.answer(room.ann, request) == "ERR_FORBIDDEN")
        let bot = try room.session("b-weak", role: .bot, caps: ["record"], as: "observer")
        #expect(room.answer(bot, request) == "ERR_FORBIDDEN")
    }

    @Test func joiningALockedRoomsCallIsForWhoIsInModeratorsAdminsAndBotsWithLock() throws {
        let room = try Room()
        #expect(room.answer(room.host, ["type": "action", "id": 1, "room": "r", "action": "lock"]) == "ack")
        func join(_ uid: String, _ role: TokenRole, caps: [String] = [], as kind: String? = nil) throws -> String? {
            let session = try room.harness.connect(uid, rooms: ["r": role], caps: caps)
            var fields: [(String, JSONValue)] = [("type", "join"), ("id", 2), ("room", "r")]
            if let kind { fields.append(("as", .string(kind))) }
            return room.answer(session, .object(JSONObject(uniqueKeysWithValues: fields)))
        }
        #expect(try join("u-bob", .participant) == "ack")  // another device of someone in the call
        #expect(try join("u-mod", .moderator) == "ack")
        #expect(try join("u-chief", .admin) == "ack")
        #expect(try join("b-door", .bot, caps: ["lock"]) == "ack")
        #expect(try join("u-new", .participant, as: "observer") == "ack")
        #expect(try join("u-carol", .participant) == "ERR_ROOM_LOCKED")
        #expect(try join("u-view", .viewer) == "ERR_ROOM_LOCKED")
        #expect(try join("b-rec", .bot, caps: ["record", "mute"]) == "ERR_ROOM_LOCKED")
    }

    @Test func aVersionCheckedWriteIsForWhoeverMayMakeItWhileTheVersionHolds() throws {
        let room = try Room()
        let seen = room.harness.sequence("r")
        func metadata(_ topic: String, ifSeq: Int64) -> JSONValue {
            ["type": "metadata", "id": 1, "room": "r", "metadata": ["topic": .string(topic)], "ifSeq": .int(ifSeq)]
        }
        #expect(room.answer(room.ann, metadata("a", ifSeq: seen)) == "ERR_FORBIDDEN")
        #expect(room.answer(room.watchingHost, metadata("a", ifSeq: seen)) == "ack")
        #expect(room.answer(room.host, metadata("b", ifSeq: seen)) == "ERR_CONFLICT")
        #expect(room.harness.gateway.roomState("r")?.metadata == ["topic": "a"])
        #expect(room.answer(room.host, metadata("b", ifSeq: room.harness.sequence("r"))) == "ack")
    }

    @Test(arguments: ["remove", "ban", "demote"])
    func removingBanningOrDemotingAnAdminIsForAdminsAndTheServerAPI(_ action: String) throws {
        let request: JSONValue = [
            "type": "action", "id": 1, "room": "r", "action": .string(action), "target": "u-boss",
        ]
        let room = try Room()
        #expect(room.answer(room.host, request) == "ERR_FORBIDDEN")
        let otherAdmin = try room.session("u-chief", role: .admin)
        #expect(room.answer(otherAdmin, request) == "ack")
        let again = try Room()
        #expect(
            again.serverAPI {
                try again.harness.gateway.apiModerate(
                    room: "r", body: ["action": .string(action), "target": "u-boss"], actor: "api:test",
                    completion: $0)
            } == "ack")
    }

    @Test func aRoleComesFromTheTokenAtTheJoinOrARefreshNeverFromAMessage() throws {
        let room = try Room()
        let refreshed = try room.harness.token("u-ann", rooms: ["r": .moderator], groups: ["r"])
        _ = room.harness.request(room.ann, ["type": "auth", "token": .string(refreshed)])
        #expect(room.harness.participant("u-ann", in: "r")?.role == .moderator)
        let claimed = room.harness.request(room.bob, ["type": "join", "id": 1, "room": "r", "role": "admin"])
        #expect(claimed.errorCodes == ["ERR_BAD_REQUEST"])
        #expect(room.harness.participant("u-bob", in: "r")?.role == .participant)
    }

    @Test func aDeviceIsTakenOverByItsOwnUserFromAnotherConnectionOnly() throws {
        let room = try Room()
        let annAgain = try room.harness.connect("u-ann", rooms: ["r": .participant])
        let bobOnAnnsDevice = try room.harness.connect("u-bob", rooms: ["r": .participant])
        _ = room.harness.drain(room.ann)
        try room.harness.join(bobOnAnnsDevice, "r", device: "default")
        #expect(room.harness.drain(room.ann).first(type: "unsubscribed") == nil)
        try room.harness.join(annAgain, "r", device: "default")
        #expect(room.harness.drain(room.ann).first(type: "unsubscribed")?["reason"] == "replaced")
    }
}
