import JSONCoding
import RoomsTesting
import Testing
import TokenAuth

@testable import Rooms

/// The waiting room: who turns it on and answers it, who waits and who bypasses it, what the waiting client and
/// everyone else see, its bounds, and that it is room state in the log (a restart with the store, two cluster
/// nodes).
@Suite struct WaitingRoomTests {
    /// Room `r` with Alice (moderator) and Bob (participant) in the call, the waiting room on, and a watcher
    /// mirroring the roster.
    struct Room {
        let harness: RoomsNodeHarness
        let alice: SessionID
        let bob: SessionID
        let mirror: RosterMirror

        init(
            store: InMemoryRoomStore? = nil, clock: ManualClock = ManualClock(),
            configure: (inout RoomsConfiguration) -> Void = { _ in }
        ) throws {
            self.harness = try RoomsNodeHarness(clock: clock, store: store, configure: configure)
            self.alice = try self.harness.connect("u-alice", rooms: ["r": .moderator])
            self.bob = try self.harness.connect("u-bob", rooms: ["r": .participant])
            try self.harness.join(self.alice, "r")
            try self.harness.join(self.bob, "r", device: "phone")
            self.mirror = try RosterMirror(self.harness)
            let answer = self.act("require_admission", by: self.alice)
            guard answer.first(type: "ack")?["changed"] == true else {
                throw HarnessError.unexpected("require_admission: \(answer)")
            }
        }

        func act(_ action: String, target: String? = nil, reason: String? = nil, by id: SessionID) -> [JSONValue] {
            var fields: [(String, JSONValue)] = [
                ("type", "action"), ("id", 7), ("room", "r"), ("action", .string(action)),
            ]
            if let target { fields.append(("target", .string(target))) }
            if let reason { fields.append(("reason", .string(reason))) }
            return self.harness.request(id, .object(JSONObject(fields)))
        }

        /// A new participant who asks to join the call with request id `join`.
        func arrive(
            _ uid: String, attributes: [String: String] = [:], admission: [String: TokenAdmission] = [:]
        )
            throws -> (SessionID, [JSONValue])
        {
            let id = try self.harness.connect(
                uid, name: uid.uppercased(), rooms: ["r": .participant], attributes: attributes, admission: admission)
            return (id, self.harness.request(id, ["type": "join", "id": "join", "room": "r"]))
        }

        var state: RoomState { self.harness.gateway.roomState("r")! }
    }

    @Test func aJoinerWaitsWithItsPositionGetsNoSeatAndNoRosterAndOthersSeeOnlyTheCount() throws {
        let room = try Room()
        _ = room.harness.drain(room.bob)
        let (carol, answer) = try room.arrive("u-carol", attributes: ["company": "acme"])
        let waiting = try #require(answer.first(type: "waiting"))
        #expect(waiting["id"] == "join")
        #expect(waiting["room"] == "r")
        #expect(waiting["position"] == 1)
        #expect(answer.first(type: "ack") == nil)
        #expect(answer.first(type: "snapshot") == nil)
        #expect(room.state.participants["u-carol"] == nil)
        #expect(room.state.waiting.map(\.uid) == ["u-carol"])
        // Carol is not subscribed: the room's changes do not reach her.
        _ = room.act("mute", target: "u-bob", by: room.alice)
        #expect(room.harness.drain(carol).isEmpty)
        // Everyone sees how many wait and that the waiting room is on, not who waits.
        room.harness.advance(milliseconds: 1_000)
        try room.mirror.sync()
        #expect(room.mirror.store.roster["room"]?["waiting"] == 1)
        #expect(room.mirror.store.roster["room"]?["admission"] == true)
        #expect(room.mirror.matchesServer())
        let bobSees = room.harness.drain(room.bob).events.compactMap { $0["event"]?.stringValue }
        #expect(!bobSees.contains { $0.hasPrefix("waiting.") })
        #expect(bobSees.contains("room.admission_changed") == false)  // drained before Carol came
    }

    @Test func anAdmittedJoinIsAnsweredAsTheJoinItWasWithTheAckAndTheSnapshot() throws {
        let room = try Room()
        let (carol, _) = try room.arrive("u-carol")
        #expect(room.act("admit", target: "u-carol", by: room.alice).first(type: "ack")?["changed"] == true)
        let answer = room.harness.drain(carol)
        #expect(answer.first(type: "ack")?["id"] == "join")
        #expect(answer.first(type: "snapshot")?["room"] == "r")
        #expect(room.state.participants["u-carol"]?.isJoined == true)
        #expect(room.state.waiting.isEmpty)
        #expect(room.state.admitted.contains("u-carol"))
        room.harness.advance(milliseconds: 1_000)
        try room.mirror.sync()
        #expect(room.mirror.store.roster["room"]?["waiting"] == nil)
        #expect(room.mirror.store.roster["participants"]?["u-carol"] != nil)
        // Back after leaving within the same call: no second wait.
        #expect(room.harness.request(carol, ["type": "leave", "room": "r"]).errorCodes.isEmpty)
        #expect(try room.harness.join(carol, "r").first(type: "ack") != nil)
    }

    @Test func aDeniedJoinGetsAdmissionDeniedWithTheReasonAndMayAskAgain() throws {
        let room = try Room()
        let (carol, _) = try room.arrive("u-carol")
        let before = room.state.participants
        #expect(
            room.act("deny", target: "u-carol", reason: "not on the list", by: room.alice).first(type: "ack")?[
                "changed"] == true)
        let answer = room.harness.drain(carol)
        #expect(answer.errorCodes == ["ERR_ADMISSION_DENIED"])
        #expect(answer.first(type: "error")?["id"] == "join")
        #expect(answer.first(type: "error")?["message"]?.stringValue?.contains("not on the list") == true)
        #expect(room.state.participants == before)
        #expect(room.state.waiting.isEmpty)
        #expect(
            room.harness.request(carol, ["type": "join", "id": "again", "room": "r"]).first(type: "waiting") != nil)
    }

    @Test func positionsMoveUpAndAdmitAllDenyAllAndOpeningTheWaitingRoomAnswerEveryone() throws {
        let room = try Room()
        let (carol, _) = try room.arrive("u-carol")
        let (dave, daveAnswer) = try room.arrive("u-dave")
        let (erin, _) = try room.arrive("u-erin")
        #expect(daveAnswer.first(type: "waiting")?["position"] == 2)
        _ = room.act("deny", target: "u-carol", by: room.alice)
        #expect(room.harness.drain(dave).first(type: "waiting")?["position"] == 1)
        #expect(room.harness.drain(erin).first(type: "waiting")?["position"] == 2)
        _ = room.harness.drain(carol)
        #expect(room.act("admit_all", by: room.alice).first(type: "ack")?["changed"] == true)
        #expect(room.harness.drain(dave).first(type: "ack")?["id"] == "join")
        #expect(room.harness.drain(erin).first(type: "ack")?["id"] == "join")
        let (frank, _) = try room.arrive("u-frank")
        let (grace, _) = try room.arrive("u-grace")
        #expect(room.act("deny_all", by: room.alice).first(type: "ack")?["changed"] == true)
        #expect(room.harness.drain(frank).errorCodes == ["ERR_ADMISSION_DENIED"])
        #expect(room.harness.drain(grace).errorCodes == ["ERR_ADMISSION_DENIED"])
        let (heidi, _) = try room.arrive("u-heidi")
        #expect(room.act("open_admission", by: room.alice).first(type: "ack")?["changed"] == true)
        #expect(room.harness.drain(heidi).first(type: "ack")?["id"] == "join")
        #expect(room.state.requiresAdmission == false)
        // With the waiting room off, a newcomer joins at once.
        #expect(try room.arrive("u-ivan").1.first(type: "ack") != nil)
    }

    @Test func onlyThoseWhoMayAdmitTurnItOnAnswerItOrSeeItAndAForbiddenTryChangesNothing() throws {
        let room = try Room()
        let (carol, _) = try room.arrive("u-carol")
        let before = room.harness.sequence("r")
        for action in ["require_admission", "open_admission", "admit_all", "deny_all"] {
            #expect(room.act(action, by: room.bob).errorCodes == ["ERR_FORBIDDEN"])
        }
        for action in ["admit", "deny"] {
            #expect(room.act(action, target: "u-carol", by: room.bob).errorCodes == ["ERR_FORBIDDEN"])
        }
        let plainBot = try room.harness.connect("b-plain", rooms: ["r": .bot], caps: ["mute"])
        try room.harness.join(plainBot, "r", as: "observer")
        #expect(room.act("admit", target: "u-carol", by: plainBot).errorCodes == ["ERR_FORBIDDEN"])
        #expect(
            room.harness.request(room.bob, ["type": "query", "query": "waiting", "room": "r"]).errorCodes == [
                "ERR_FORBIDDEN"
            ])
        #expect(
            room.harness.request(room.bob, ["type": "view", "room": "r", "view": ["filter": "waiting"]]).errorCodes
                == ["ERR_FORBIDDEN"])
        #expect(room.harness.sequence("r") == before)
        #expect(room.state.waiting.map(\.uid) == ["u-carol"])
        // A bot with `admit` may.
        let doorman = try room.harness.connect("b-door", rooms: ["r": .bot], caps: ["admit"])
        try room.harness.join(doorman, "r", as: "observer")
        let page = try #require(
            room.harness.request(doorman, ["type": "query", "query": "waiting", "room": "r"]).first(type: "result"))
        #expect(page["waiting"]?[0]?["uid"] == "u-carol")
        #expect(page["waiting"]?[0]?["name"] == "U-CAROL")
        #expect(page["total"] == 1)
        #expect(room.act("admit", target: "u-carol", by: doorman).errorCodes.isEmpty)
        #expect(room.harness.drain(carol).first(type: "ack") != nil)
        // A target that does not wait is not found.
        #expect(room.act("admit", target: "u-nobody", by: room.alice).errorCodes == ["ERR_NOT_FOUND"])
    }

    @Test func moderatorsBotsAndABypassClaimJoinAtOnceAndAWaitClaimWaitsEvenWithTheWaitingRoomOff() throws {
        let room = try Room()
        let moderator = try room.harness.connect("u-mod", rooms: ["r": .moderator])
        #expect(try room.harness.join(moderator, "r").first(type: "ack") != nil)
        let bot = try room.harness.connect("b-rec", rooms: ["r": .bot], caps: ["record"])
        #expect(try room.harness.join(bot, "r").first(type: "ack") != nil)
        #expect(try room.arrive("u-host", admission: ["r": .bypass]).1.first(type: "ack") != nil)
        #expect(room.act("open_admission", by: room.alice).errorCodes.isEmpty)
        let (guest, answer) = try room.arrive("u-guest", admission: ["r": .wait])
        #expect(answer.first(type: "waiting")?["position"] == 1)
        #expect(room.act("admit", target: "u-guest", by: room.alice).errorCodes.isEmpty)
        #expect(room.harness.drain(guest).first(type: "ack") != nil)
    }

    @Test func aLockedRoomSendsNewcomersToTheWaitingRoomAndAnAdmittedOneEntersDespiteTheLock() throws {
        let room = try Room()
        #expect(room.act("lock", by: room.alice).errorCodes.isEmpty)
        let (carol, answer) = try room.arrive("u-carol")
        #expect(answer.first(type: "waiting") != nil)
        #expect(room.act("admit", target: "u-carol", by: room.alice).errorCodes.isEmpty)
        #expect(room.harness.drain(carol).first(type: "ack") != nil)
        // Without the waiting room, the lock refuses.
        #expect(room.act("open_admission", by: room.alice).errorCodes.isEmpty)
        #expect(try room.arrive("u-dave").1.errorCodes == ["ERR_ROOM_LOCKED"])
    }

    @Test func aFullWaitingRoomRefusesTheNextAndAWaitEndsWithWaitExpiredAtItsBound() throws {
        let room = try Room { configuration in
            configuration.maximumWaitingPerRoom = 2
            configuration.maximumWaitMilliseconds = 60_000
        }
        let (carol, _) = try room.arrive("u-carol")
        room.harness.advance(milliseconds: 10_000)
        let (dave, _) = try room.arrive("u-dave")
        #expect(try room.arrive("u-erin").1.errorCodes == ["ERR_WAITING_ROOM_FULL"])
        #expect(room.state.waiting.map(\.uid) == ["u-carol", "u-dave"])
        room.harness.advance(milliseconds: 49_000)
        #expect(room.harness.drain(carol).errorCodes.isEmpty)
        room.harness.advance(milliseconds: 1_000)
        #expect(room.harness.drain(carol).errorCodes == ["ERR_WAIT_EXPIRED"])
        #expect(room.harness.drain(dave).first(type: "waiting")?["position"] == 1)
        #expect(room.state.waiting.map(\.uid) == ["u-dave"])
        #expect(
            room.harness.gateway.roomLog("r")?.entries.last?.event == .waitingLeft(uid: "u-carol", reason: .expired))
    }

    @Test func aWaiterWhoLeavesGoesAtOnceAndOneWhoDropsKeepsItsPlaceForTheGracePeriod() throws {
        let room = try Room()
        let (carol, _) = try room.arrive("u-carol")
        let (dave, _) = try room.arrive("u-dave")
        let (erin, _) = try room.arrive("u-erin")
        let left = room.harness.request(carol, ["type": "leave", "id": 2, "room": "r"])
        #expect(left.first(type: "ack") != nil)
        #expect(room.state.waiting.map(\.uid) == ["u-dave", "u-erin"])
        // Dave's connection drops and he comes back within the grace period: still first.
        room.harness.close(dave, cleanly: false)
        room.harness.advance(milliseconds: 5_000)
        #expect(room.state.waiting.map(\.uid) == ["u-dave", "u-erin"])
        let back = try room.harness.connect("u-dave", name: "U-DAVE", rooms: ["r": .participant])
        #expect(
            room.harness.request(back, ["type": "join", "id": "join", "room": "r"]).first(type: "waiting")?[
                "position"] == 1)
        // Erin drops and does not come back: she leaves once the grace period has passed.
        room.harness.close(erin, cleanly: true)
        room.harness.advance(milliseconds: RoomsConfiguration().reconnectGraceMilliseconds + 1_000)
        #expect(room.state.waiting.map(\.uid) == ["u-dave"])
        #expect(room.harness.gateway.roomLog("r")?.entries.last?.event == .waitingLeft(uid: "u-erin", reason: .left))
    }

    @Test func theWaitingViewListsWhoWaitsInOrderWithNameAttributesAndArrivalAndFollowsThemByPatches() throws {
        let room = try Room()
        let viewed = room.harness.request(room.alice, ["type": "view", "room": "r", "view": ["filter": "waiting"]])
        #expect(viewed.first(type: "snapshot")?["roster"]?["participants"] == .object(JSONObject()))
        let mirror = try RosterMirror(
            room.harness, uid: "b-door", view: ["filter": "waiting"], role: .bot, caps: ["admit"])
        _ = try room.arrive("u-carol", attributes: ["company": "acme"])
        room.harness.advance(milliseconds: 500)
        _ = try room.arrive("u-dave")
        room.harness.advance(milliseconds: 1_000)
        try mirror.sync()
        let carol = try #require(mirror.store.roster["participants"]?["u-carol"])
        #expect(carol["name"] == "U-CAROL")
        #expect(carol["attributes"]?["company"] == "acme")
        #expect(carol["role"] == "participant")
        let carolSince = try #require(carol["waitingSince"]?.intValue)
        #expect(mirror.store.roster["participants"]?["u-dave"]?["waitingSince"]?.intValue == carolSince + 500)
        #expect(mirror.matchesServer(RosterViewSpec(filter: .waiting)))
        _ = room.act("admit", target: "u-carol", by: room.alice)
        room.harness.advance(milliseconds: 1_000)
        try mirror.sync()
        #expect(mirror.store.roster["participants"]?["u-carol"] == nil)
        #expect(mirror.store.roster["participants"]?["u-dave"] != nil)
        #expect(mirror.matchesServer(RosterViewSpec(filter: .waiting)))
    }

    @Test func anAdmittedJoinStillNeedsASeatAndABannedWaiterIsToldSo() throws {
        let room = try Room { $0.roomCapacity = 1 }
        let (carol, _) = try room.arrive("u-carol")
        _ = room.act("admit", target: "u-carol", by: room.alice)
        #expect(room.harness.drain(carol).errorCodes == ["ERR_CALL_FULL"])
        #expect(room.state.participants["u-carol"] == nil)
        let (dave, _) = try room.arrive("u-dave")
        #expect(room.act("ban", target: "u-dave", by: room.alice).errorCodes.isEmpty)
        #expect(room.harness.drain(dave).errorCodes == ["ERR_BANNED"])
        #expect(room.state.waiting.isEmpty)
    }

    @Test func aConnectionWaitsInNoMoreRoomsThanItMayBeIn() throws {
        let harness = try RoomsNodeHarness { $0.maximumRoomsPerSession = 2 }
        let rooms = ["r1", "r2", "r3"]
        let guest = try harness.connect(
            "u-guest", rooms: Dictionary(uniqueKeysWithValues: rooms.map { ($0, TokenRole.participant) }),
            admission: Dictionary(uniqueKeysWithValues: rooms.map { ($0, TokenAdmission.wait) }))
        #expect(harness.request(guest, ["type": "join", "room": "r1"]).first(type: "waiting") != nil)
        #expect(harness.request(guest, ["type": "join", "room": "r2"]).first(type: "waiting") != nil)
        #expect(harness.request(guest, ["type": "join", "room": "r3"]).errorCodes == ["ERR_TOO_MANY_ROOMS"])
        #expect(harness.gateway.roomState("r3")?.waiting.isEmpty ?? true)
    }

    @Test func theWaitingRoomSurvivesARestartWithTheStoreAndAWaiterComingBackKeepsItsPlace() throws {
        let clock = ManualClock()
        let store = InMemoryRoomStore()
        do {
            let room = try Room(store: store, clock: clock)
            _ = try room.arrive("u-carol")
            room.harness.advance(milliseconds: 100)
            _ = try room.arrive("u-dave")
            room.harness.advance(milliseconds: 100)
        }
        let restarted = try RoomsNodeHarness(clock: clock, store: store)
        let dave = try restarted.connect("u-dave", name: "U-DAVE", rooms: ["r": .participant])
        let answer = restarted.request(dave, ["type": "join", "id": "join", "room": "r"])
        #expect(answer.first(type: "waiting")?["position"] == 2)
        #expect(restarted.gateway.roomState("r")?.requiresAdmission == true)
        // Carol does not come back: her wait ends once the reconnect grace has passed.
        restarted.advance(milliseconds: 1_000)
        restarted.advance(milliseconds: RoomsConfiguration().reconnectGraceMilliseconds)
        #expect(restarted.gateway.roomState("r")?.waiting.map(\.uid) == ["u-dave"])
        #expect(restarted.drain(dave).first(type: "waiting")?["position"] == 1)
        let alice = try restarted.connect("u-alice", rooms: ["r": .moderator])
        try restarted.join(alice, "r")
        #expect(
            restarted.request(alice, ["type": "action", "room": "r", "action": "admit", "target": "u-dave"])
                .errorCodes.isEmpty)
        #expect(restarted.drain(dave).first(type: "ack")?["id"] == "join")
    }

    @Test func theWaitingRoomsEntriesReachTheStoreForWebhooksButNoSubscriberAndNoHistory() throws {
        let store = InMemoryRoomStore()
        let room = try Room(store: store)
        _ = room.harness.drain(room.bob)
        _ = try room.arrive("u-carol", attributes: ["company": "acme"])
        _ = room.act("admit", target: "u-carol", by: room.alice)
        room.harness.advance(milliseconds: 1_000)
        let stored = store.committedEntries(of: "r").filter { $0.eventName.hasPrefix("waiting.") }
        #expect(stored.map(\.eventName) == ["waiting.entered", "waiting.admitted"])
        let entered = try JSONParser.parse(try #require(stored.first?.message))
        #expect(entered["data"]?["entry"]?["attributes"]?["company"] == "acme")
        #expect(entered["data"]?["entry"]?["name"] == "U-CAROL")
        // Bob, who takes every event, got none of them, and the history leaves them out.
        #expect(
            !room.harness.drain(room.bob).events.contains { $0["event"]?.stringValue?.hasPrefix("waiting.") == true })
        let history = room.harness.request(room.alice, ["type": "query", "query": "history", "room": "r"])
        let names = history.first(type: "result")?["events"]?.arrayValue?.compactMap { $0["event"]?.stringValue } ?? []
        #expect(names.contains("participant.joined"))
        #expect(!names.contains { $0.hasPrefix("waiting.") })
    }

    @Test func theWaitingRoomReadBackFromACheckpointIsTheSame() throws {
        let room = try Room()
        _ = try room.arrive("u-carol", attributes: ["company": "acme"])
        _ = room.act("lock", by: room.alice)
        let replica = try #require(room.harness.gateway.rooms["r"]?.replica)
        let readBack = try RoomReplica(checkpoint: replica.checkpoint)
        #expect(readBack.state == replica.state)
        let log = try #require(room.harness.gateway.roomLog("r"))
        for entry in log.retained(after: 0) {
            #expect(try RoomEvent(wireValue: entry.event.wireValue) == entry.event)
        }
    }

    @Test func aJoinWaitingOnOneClusterNodeIsAdmittedFromTheOther() throws {
        let cluster = try ClusterHarness()
        let alice = try cluster.a.connect("u-alice", rooms: ["r": .moderator])
        try cluster.a.join(alice, "r")
        #expect(
            cluster.a.request(alice, ["type": "action", "room": "r", "action": "require_admission"]).errorCodes
                .isEmpty)
        cluster.run()
        let carol = try cluster.b.connect("u-carol", rooms: ["r": .participant])
        let answer = cluster.b.request(carol, ["type": "join", "id": "join", "room": "r"])
        #expect(answer.first(type: "waiting")?["position"] == 1)
        #expect(cluster.a.state("r")?.waiting.map(\.uid) == ["u-carol"])
        #expect(
            cluster.a.request(alice, ["type": "action", "room": "r", "action": "admit", "target": "u-carol"])
                .errorCodes.isEmpty)
        cluster.run()
        #expect(cluster.b.harness.drain(carol).first(type: "ack")?["id"] == "join")
        #expect(cluster.a.state("r")?.participants["u-carol"]?.isJoined == true)
        #expect(cluster.a.state("r") == cluster.b.state("r"))
    }
}
