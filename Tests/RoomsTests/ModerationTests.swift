import JSONCoding
import RoomsTesting
import Testing
import TokenAuth

@testable import Rooms

@Suite struct ModerationTests {
    func action(_ name: String, target: String? = nil, reason: String? = nil, id: JSONValue = 8) -> JSONValue {
        var fields: [(String, JSONValue)] = [("type", "action"), ("id", id), ("room", "r"), ("action", .string(name))]
        if let target { fields.append(("target", .string(target))) }
        if let reason { fields.append(("reason", .string(reason))) }
        return .object(JSONObject(uniqueKeysWithValues: fields))
    }

    @Test func muteMutesTheTargetAndRecordsActorAndReason() throws {
        let room = try TwoInARoom()
        let (seen, answer) = room.change(room.alice, self.action("mute", target: "u-bob", reason: "background noise"))
        #expect(answer.first(type: "ack")?["changed"] == true)
        #expect(answer.first(type: "ack")?["id"] == 8)
        #expect(seen.eventNames == ["moderation.muted"])
        #expect(seen.first?["actor"] == "u-alice")
        #expect(seen.first?["reason"] == "background noise")
        #expect(seen.first?["data"]?["uid"] == "u-bob")
        #expect(seen.first?["data"]?["participant"]?["mutedByModerator"] == true)
        #expect(room.harness.drain(room.bob).events(named: "moderation.muted").count == 1)
        let muted = room.harness.request(room.bob, ["type": "query", "id": 13, "query": "muted", "room": "r"])
        #expect(muted.first?["uids"] == ["u-bob"])
        #expect(muted.first?["seq"] == .int(room.harness.sequence("r")))
    }

    @Test func muteAllMutesEveryJoinedParticipantWhoIsNotAModerator() throws {
        let room = try TwoInARoom()
        let harness = room.harness
        let carol = try harness.connect("u-carol", rooms: ["r": .participant])
        let mod = try harness.connect("u-mod", rooms: ["r": .moderator])
        try harness.join(carol, "r")
        try harness.join(mod, "r")
        let (seen, _) = room.change(room.alice, self.action("mute_all", reason: "quiet please"))
        #expect(seen.eventNames == ["moderation.muted", "moderation.muted"])
        #expect(seen.compactMap { $0["data"]?["uid"]?.stringValue } == ["u-bob", "u-carol"])
        #expect(seen.allSatisfy { $0["reason"] == "quiet please" && $0["actor"] == "u-alice" })
        #expect(harness.participant("u-mod", in: "r")?.audioMuted == false)
        let again = room.change(room.alice, self.action("mute_all"))
        #expect(again.seen.isEmpty)
        #expect(again.answer.first?["changed"] == false)
    }

    @Test func lowerHandLowersTheTargetsHand() throws {
        let room = try TwoInARoom()
        room.harness.send(room.bob, ["type": "state", "room": "r", "handRaised": true])
        let (seen, _) = room.change(room.alice, self.action("lower_hand", target: "u-bob"))
        #expect(seen.eventNames == ["participant.hand_lowered"])
        #expect(seen.first?["actor"] == "u-alice")
        #expect(room.harness.participant("u-bob", in: "r")?.handRaised == false)
    }

    @Test func removeSendsTheLeaveThenClosesWith4003() throws {
        let room = try TwoInARoom()
        let harness = room.harness
        _ = harness.drain(room.bob)
        let (seen, answer) = room.change(room.alice, self.action("remove", target: "u-bob", reason: "spam"))
        #expect(answer.first(type: "ack")?["changed"] == true)
        #expect(seen.eventNames == ["participant.left"])
        #expect(seen.first?["data"]?["reason"] == "removed")
        #expect(seen.first?["reason"] == "spam")
        let bobSaw = harness.drain(room.bob)
        #expect(bobSaw.eventNames == ["participant.left"])
        #expect(harness.closeCode(room.bob) == GatewayCloseCode.removed.rawValue)
        #expect(harness.participant("u-bob", in: "r")?.isJoined == false)
        // The subscription is gone: nothing more reaches Bob, and no second leave is logged.
        let sequence = harness.sequence("r")
        harness.close(room.bob, cleanly: true)
        harness.send(room.alice, ["type": "state", "room": "r", "handRaised": true])
        #expect(harness.drain(room.bob).isEmpty)
        #expect(harness.sequence("r") == sequence + 1)
        // Removed is not banned: Bob may come back.
        try harness.join(try harness.connect("u-bob", rooms: ["r": .participant]), "r")
    }

    @Test func banSendsBannedAndLeaveThenClosesWith4004AndKeepsTheUserOut() throws {
        let room = try TwoInARoom()
        let harness = room.harness
        let (seen, _) = room.change(room.alice, self.action("ban", target: "u-bob", reason: "abuse"))
        #expect(seen.eventNames == ["moderation.banned", "participant.left"])
        #expect(seen.first?["data"]?["uid"] == "u-bob")
        #expect(seen.last?["data"]?["reason"] == "banned")
        #expect(seen.allSatisfy { $0["reason"] == "abuse" })
        #expect(harness.closeCode(room.bob) == GatewayCloseCode.banned.rawValue)
        let bob = try harness.connect("u-bob", rooms: ["r": .participant])
        #expect(harness.request(bob, ["type": "join", "room": "r"]).errorCodes == ["ERR_BANNED"])
        let banned = harness.request(room.alice, ["type": "query", "query": "banned", "room": "r"])
        #expect(banned.first?["uids"] == ["u-bob"])
        let again = room.change(room.alice, self.action("ban", target: "u-bob"))
        #expect(again.seen.isEmpty)
        #expect(again.answer.first?["changed"] == false)

        let unban = room.change(room.alice, self.action("unban", target: "u-bob"))
        #expect(unban.seen.eventNames == ["moderation.unbanned"])
        #expect(harness.gateway.roomState("r")?.banned.isEmpty == true)
        try harness.join(bob, "r")
        let unbanAgain = room.change(room.alice, self.action("unban", target: "u-bob"))
        #expect(unbanAgain.answer.first?["changed"] == false)
    }

    @Test func aPromotedParticipantCanModerateUntilDemoted() throws {
        let room = try TwoInARoom()
        let harness = room.harness
        let carol = try harness.connect("u-carol", rooms: ["r": .participant])
        try harness.join(carol, "r")
        let before = harness.sequence("r")
        #expect(harness.request(room.bob, self.action("mute", target: "u-carol")).errorCodes == ["ERR_FORBIDDEN"])
        #expect(harness.sequence("r") == before)
        let promote = room.change(room.alice, self.action("promote", target: "u-bob"))
        #expect(promote.seen.eventNames == ["moderation.promoted"])
        #expect(promote.seen.first?["data"]?["uid"] == "u-bob")
        let operators = harness.request(room.alice, ["type": "query", "query": "operators", "room": "r"])
        #expect(operators.first?["uids"] == ["u-alice", "u-bob"])
        let mute = harness.request(room.bob, self.action("mute", target: "u-carol"))
        #expect(mute.first(type: "ack")?["changed"] == true)
        #expect(harness.participant("u-carol", in: "r")?.audioMuted == true)
        #expect(room.change(room.alice, self.action("promote", target: "u-bob")).answer.first?["changed"] == false)
        let demote = room.change(room.alice, self.action("demote", target: "u-bob"))
        #expect(demote.seen.eventNames == ["moderation.demoted"])
        #expect(harness.request(room.bob, self.action("lower_hand", target: "u-carol")).errorCodes == ["ERR_FORBIDDEN"])
        #expect(room.change(room.alice, self.action("demote", target: "u-bob")).answer.first?["changed"] == false)
    }

    @Test func onlyAnAdminCanRemoveBanOrDemoteAnAdmin() throws {
        let harness = try RoomsNodeHarness()
        let admin = try harness.connect("u-admin", rooms: ["r": .admin])
        let mod = try harness.connect("u-mod", rooms: ["r": .moderator])
        try harness.join(admin, "r")
        try harness.join(mod, "r")
        let before = harness.sequence("r")
        for name in ["remove", "ban", "demote"] {
            #expect(harness.request(mod, self.action(name, target: "u-admin")).errorCodes == ["ERR_FORBIDDEN"])
        }
        #expect(harness.sequence("r") == before)
        #expect(harness.closeCode(admin) == nil)
        #expect(harness.request(admin, self.action("remove", target: "u-mod")).first(type: "ack") != nil)
        #expect(harness.closeCode(mod) == GatewayCloseCode.removed.rawValue)
    }

    @Test func endSessionEndsTheCallForEveryoneWith4005() throws {
        let room = try TwoInARoom()
        let harness = room.harness
        let watcher = try harness.connect("u-watch", rooms: ["r": .viewer])
        try harness.join(watcher, "r", as: "observer")
        harness.send(room.alice, ["type": "media", "room": "r", "recording": true])
        _ = harness.drain(room.bob)
        _ = harness.drain(watcher)
        let (seen, answer) = room.change(room.alice, self.action("end_session", reason: "time is up"))
        #expect(answer.first(type: "ack") != nil)
        // Everyone in the call leaves (reason session_ended), then the session ends; all with the moderator's reason.
        let ending = ["participant.left", "participant.left", "session.ended"]
        #expect(seen.eventNames == ending)
        #expect(seen.allSatisfy { $0["reason"] == "time is up" })
        #expect(harness.drain(room.bob).eventNames == ending)
        #expect(harness.closeCode(room.bob) == GatewayCloseCode.sessionEnded.rawValue)
        #expect(harness.closeCode(room.alice) == GatewayCloseCode.sessionEnded.rawValue)
        // An observer watched without joining: it sees the end and stays connected.
        #expect(harness.drain(watcher).eventNames == ending)
        #expect(harness.closeCode(watcher) == nil)
        let state = try #require(harness.gateway.roomState("r"))
        #expect(state.joinedParticipants.isEmpty)
        #expect(state.isRecording == false)
        #expect(state.startedAt == nil)
    }

    enum Denied: CaseIterable {
        case mute, muteAll, lowerHand, spotlight, unspotlight, promote, demote, remove, ban, unban, endSession
    }

    func deniedAction(_ action: Denied) -> JSONValue {
        switch action {
        case .mute: return self.action("mute", target: "u-alice")
        case .muteAll: return self.action("mute_all")
        case .lowerHand: return self.action("lower_hand", target: "u-alice")
        case .spotlight: return self.action("spotlight", target: "u-alice")
        case .unspotlight: return self.action("unspotlight", target: "u-alice")
        case .promote: return self.action("promote", target: "u-bob")
        case .demote: return self.action("demote", target: "u-alice")
        case .remove: return self.action("remove", target: "u-alice")
        case .ban: return self.action("ban", target: "u-alice")
        case .unban: return self.action("unban", target: "u-carol")
        case .endSession: return self.action("end_session")
        }
    }

    @Test(arguments: Denied.allCases)
    func aParticipantsActionIsForbiddenAndChangesNothing(_ action: Denied) throws {
        let room = try TwoInARoom()
        let harness = room.harness
        room.harness.send(room.alice, ["type": "state", "room": "r", "handRaised": true])
        room.harness.send(room.alice, self.action("spotlight", target: "u-alice"))
        room.harness.send(room.alice, self.action("ban", target: "u-carol"))
        let state = harness.gateway.roomState("r")
        let (seen, answer) = room.change(room.bob, self.deniedAction(action))
        #expect(answer.errorCodes == ["ERR_FORBIDDEN"])
        #expect(answer.first?["id"] == 8)
        #expect(seen.isEmpty)
        #expect(harness.gateway.roomState("r") == state)
        #expect(harness.closeCode(room.alice) == nil)
        #expect(harness.closeCode(room.bob) == nil)
    }

    @Test(arguments: ModeratorAction.allCases)
    func aBotMayActOnlyWithTheMatchingCapability(_ action: ModeratorAction) throws {
        let harness = try RoomsNodeHarness()
        let others = ModeratorAction.allCases.map(\.capability).filter { $0 != action.capability }
        let weak = try harness.connect("bot-weak", rooms: ["r": .bot], caps: others)
        let strong = try harness.connect("bot-strong", rooms: ["r": .bot], caps: [action.capability])
        let bob = try harness.connect("u-bob", rooms: ["r": .participant])
        try harness.join(weak, "r")
        try harness.join(strong, "r")
        try harness.join(bob, "r")
        harness.send(bob, ["type": "state", "room": "r", "handRaised": true, "presenting": true])
        if action == .handFloor {
            // Handing Bob the floor stops another's share.
            let carol = try harness.connect("u-carol", rooms: ["r": .participant])
            try harness.join(carol, "r")
            harness.send(carol, ["type": "state", "room": "r", "presenting": true])
        }
        // The undoing actions need something to undo, done by the same bot.
        let setUp: [ModeratorAction: ModeratorAction] = [
            .unspotlight: .spotlight, .demote: .promote, .unban: .ban, .askUnmute: .mute, .unlock: .lock,
            .openFloor: .floor,
        ]
        if action.capability == "admit", action != .requireAdmission {
            // Admitting and denying need someone waiting: Dan, with the waiting room on.
            let helper = try harness.connect("bot-door", rooms: ["r": .bot], caps: ["admit"])
            try harness.join(helper, "r", as: "observer")
            #expect(harness.request(helper, self.request(for: .requireAdmission)).first(type: "ack") != nil)
            let dan = try harness.connect("u-dan", rooms: ["r": .participant])
            #expect(harness.request(dan, ["type": "join", "room": "r"]).first(type: "waiting") != nil)
        }
        if let first = setUp[action] {
            // Done by a bot that may (a request to unmute needs someone muted, which takes 'mute').
            let helper = try harness.connect("bot-helper", rooms: ["r": .bot], caps: [first.capability])
            try harness.join(helper, "r", as: "observer")
            #expect(harness.request(helper, self.request(for: first)).first(type: "ack")?["changed"] == true)
        }
        let before = harness.sequence("r")
        let request = self.request(for: action)
        #expect(harness.request(weak, request).errorCodes == ["ERR_FORBIDDEN"])
        #expect(harness.sequence("r") == before)
        let answer = harness.request(strong, request)
        #expect(answer.first(type: "ack")?["changed"] == true)
        #expect(harness.sequence("r") > before)
        // Dan's join, which an admission lets go on, is his own.
        let events = answer.events.filter { $0["event"] != "participant.joined" || $0["data"]?["uid"] != "u-dan" }
        #expect(events.isEmpty || events.allSatisfy { $0["actor"] == "bot-strong" })
    }

    func request(for action: ModeratorAction) -> JSONValue {
        self.action(action.rawValue, target: action.needsTargetWaiting ? "u-dan" : action.needsTarget ? "u-bob" : nil)
    }

    @Test(arguments: ["mute", "lower_hand", "spotlight", "unspotlight", "promote", "demote", "ban", "unban"])
    func repeatingAnActionChangesNothing(_ name: String) throws {
        let room = try TwoInARoom()
        let harness = room.harness
        harness.send(room.bob, ["type": "state", "room": "r", "handRaised": true])
        let first = room.change(room.alice, self.action(name, target: "u-bob"))
        let sequence = harness.sequence("r")
        let again = room.change(room.alice, self.action(name, target: "u-bob"))
        #expect(again.answer == [["type": "ack", "id": 8, "room": "r", "seq": .int(sequence), "changed": false]])
        #expect(again.seen.isEmpty)
        #expect(harness.sequence("r") == sequence)
        // The undoing actions had nothing to undo the first time either.
        let undoes = ["unspotlight", "demote", "unban"].contains(name)
        #expect(first.answer.first(type: "ack")?["changed"] == .bool(!undoes))
        #expect(first.seen.isEmpty == undoes)
    }

    @Test func actionsNeedTheRoomAndATargetInTheCall() throws {
        let room = try TwoInARoom()
        let harness = room.harness
        let outsider = try harness.connect("u-mod2", rooms: ["r": .moderator])
        #expect(harness.request(outsider, self.action("mute", target: "u-bob")).errorCodes == ["ERR_NOT_IN_ROOM"])
        #expect(harness.request(room.alice, self.action("mute", target: "u-ghost")).errorCodes == ["ERR_NOT_FOUND"])
        #expect(harness.participant("u-bob", in: "r")?.audioMuted == false)
    }
}
