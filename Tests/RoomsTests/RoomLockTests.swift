import JSONCoding
import RoomsTesting
import Testing

@testable import Rooms

/// The room lock: who locks and unlocks, who still joins while it is locked, what everyone sees, and that it is
/// room state in the log (a restart with the store, two cluster nodes).
@Suite struct RoomLockTests {
    /// Room `r` with Alice (moderator) and Bob (participant) in the call, and a watcher mirroring the roster.
    struct Room {
        let harness: RoomsNodeHarness
        let alice: SessionID
        let bob: SessionID
        let mirror: RosterMirror

        init(store: InMemoryRoomStore? = nil, clock: ManualClock = ManualClock()) throws {
            self.harness = try RoomsNodeHarness(clock: clock, store: store)
            self.alice = try self.harness.connect("u-alice", rooms: ["r": .moderator])
            self.bob = try self.harness.connect("u-bob", rooms: ["r": .participant])
            try self.harness.join(self.alice, "r")
            try self.harness.join(self.bob, "r", device: "phone")
            self.mirror = try RosterMirror(self.harness)
        }

        func lock(_ action: String = "lock", by id: SessionID) -> [JSONValue] {
            self.harness.request(id, ["type": "action", "id": 7, "room": "r", "action": .string(action)])
        }
    }

    @Test func aModeratorLocksAndEveryoneSeesItInTheEventTheRosterAndTheSnapshot() throws {
        let room = try Room()
        let before = room.harness.sequence("r")
        let answer = room.lock(by: room.alice)
        #expect(answer.first(type: "ack")?["changed"] == true)
        #expect(room.harness.sequence("r") == before + 1)
        #expect(room.harness.gateway.roomState("r")?.isLocked == true)
        let event = try #require(room.harness.drain(room.bob).events.last)
        #expect(event["event"] == "room.locked")
        #expect(event["actor"] == "u-alice")
        room.harness.advance(milliseconds: 1_000)
        try room.mirror.sync()
        #expect(room.mirror.store.roster["room"]?["locked"] == true)
        #expect(room.mirror.matchesServer())
        // Locking again changes nothing; a late watcher's snapshot says so too.
        #expect(room.lock(by: room.alice).first(type: "ack")?["changed"] == false)
        let late = try room.harness.connect("o-late", rooms: ["r": .viewer])
        let snapshot = try #require(try room.harness.join(late, "r", as: "observer").first(type: "snapshot"))
        #expect(snapshot["state"]?["locked"] == true)
        #expect(snapshot["roster"]?["room"]?["locked"] == true)
        // Unlocking takes `locked` out of the roster entry again.
        #expect(room.lock("unlock", by: room.alice).first(type: "ack")?["changed"] == true)
        room.harness.advance(milliseconds: 1_000)
        try room.mirror.sync()
        #expect(room.mirror.store.roster["room"]?["locked"] == nil)
        #expect(room.mirror.matchesServer())
        #expect(room.harness.drain(room.bob).events.last?["event"] == "room.unlocked")
    }

    @Test func whileLockedANewJoinIsRefusedAndChangesNothingForAnyone() throws {
        let room = try Room()
        _ = room.lock(by: room.alice)
        room.harness.advance(milliseconds: 1_000)
        try room.mirror.sync()
        let state = room.harness.gateway.roomState("r")
        _ = room.harness.drain(room.bob)
        let carol = try room.harness.connect("u-carol", rooms: ["r": .participant])
        let refused = room.harness.request(carol, ["type": "join", "id": 1, "room": "r"])
        #expect(refused.errorCodes == ["ERR_ROOM_LOCKED"])
        #expect(refused.first?["id"] == 1)
        #expect(room.harness.gateway.roomState("r") == state)
        room.harness.advance(milliseconds: 1_000)
        #expect(try room.mirror.sync().isEmpty)
        #expect(room.harness.drain(room.bob).isEmpty)
        // A bot without the capability is refused too; watching is not a join into the call.
        let recorder = try room.harness.connect("b-rec", rooms: ["r": .bot], caps: ["record"])
        #expect(room.harness.request(recorder, ["type": "join", "room": "r"]).errorCodes == ["ERR_ROOM_LOCKED"])
        try room.harness.join(carol, "r", as: "observer")
        #expect(room.harness.gateway.roomState("r")?.participants["u-carol"] == nil)
    }

    @Test func whoMayLockJoinsAndWhoIsInStays() throws {
        let room = try Room()
        _ = room.lock(by: room.alice)
        // Bob's other device joins: he is in the call already.
        let bobLaptop = try room.harness.connect("u-bob", rooms: ["r": .participant])
        try room.harness.join(bobLaptop, "r", device: "laptop")
        // Bob's phone drops and comes back within the grace period.
        room.harness.close(room.bob, cleanly: false)
        let bobAgain = try room.harness.connect("u-bob", rooms: ["r": .participant])
        try room.harness.join(bobAgain, "r", device: "phone")
        // A moderator, an admin and a bot with `lock` join.
        let dave = try room.harness.connect("u-dave", rooms: ["r": .moderator])
        let daveAnswer = try room.harness.join(dave, "r")
        #expect(daveAnswer.first?["rights"]?["bypassLock"] == true)
        let erin = try room.harness.connect("u-erin", rooms: ["r": .admin])
        try room.harness.join(erin, "r")
        let bot = try room.harness.connect("b-door", rooms: ["r": .bot], caps: ["lock"])
        let botAnswer = try room.harness.join(bot, "r")
        #expect(botAnswer.first?["rights"]?["bypassLock"] == true)
        #expect(botAnswer.first?["rights"]?["actions"] == ["lock", "unlock"])
        let joined = Set(room.harness.gateway.roomState("r")?.joinedParticipants.map(\.uid) ?? [])
        #expect(joined == ["u-alice", "u-bob", "u-dave", "u-erin", "b-door"])
        // Unlocked (by the bot), anyone joins again.
        #expect(room.lock("unlock", by: bot).first(type: "ack")?["changed"] == true)
        let carol = try room.harness.connect("u-carol", rooms: ["r": .participant])
        let carolAnswer = try room.harness.join(carol, "r")
        #expect(carolAnswer.first?["rights"]?["bypassLock"] == false)
    }

    @Test func aParticipantOrABotWithoutTheCapabilityMayNotLockAndNothingChanges() throws {
        let room = try Room()
        room.harness.advance(milliseconds: 1_000)
        try room.mirror.sync()
        let state = room.harness.gateway.roomState("r")
        _ = room.harness.drain(room.alice)
        let bot = try room.harness.connect("b-mute", rooms: ["r": .bot], caps: ["mute", "ban"])
        try room.harness.join(bot, "r", as: "observer")
        for actor in [room.bob, bot] {
            let answer = room.lock(by: actor)
            #expect(answer.errorCodes == ["ERR_FORBIDDEN"])
        }
        #expect(room.harness.gateway.roomState("r") == state)
        room.harness.advance(milliseconds: 1_000)
        #expect(try room.mirror.sync().isEmpty)
        #expect(room.harness.drain(room.alice).isEmpty)
        let carol = try room.harness.connect("u-carol", rooms: ["r": .participant])
        try room.harness.join(carol, "r")
    }

    @Test func theServerAPILocksAndTheLockIsInTheAudit() throws {
        let room = try Room()
        var outcome: RoomChangeOutcome?
        try room.harness.gateway.apiModerate(
            room: "r", body: ["action": "lock", "reason": "starting"], actor: "api:backend"
        ) { outcome = try? $0.get() }
        #expect(outcome?.changed == true)
        let event = try #require(room.harness.drain(room.bob).events.last)
        #expect(event["event"] == "room.locked")
        #expect(event["actor"] == "api:backend")
        #expect(event["reason"] == "starting")
        let entry = try #require(room.harness.gateway.roomLog("r")?.entries(after: 0)?.last)
        #expect(entry.event == .lockChanged(isLocked: true))
        #expect(entry.retentionClass == .moderation)
        let carol = try room.harness.connect("u-carol", rooms: ["r": .participant])
        #expect(room.harness.request(carol, ["type": "join", "room": "r"]).errorCodes == ["ERR_ROOM_LOCKED"])
    }

    @Test func theLockSurvivesTheEndOfTheSessionAndARestartWithTheStore() throws {
        let store = InMemoryRoomStore()
        let clock = ManualClock()
        let room = try Room(store: store, clock: clock)
        _ = room.lock(by: room.alice)
        _ = room.harness.request(room.alice, ["type": "action", "room": "r", "action": "end_session"])
        #expect(room.harness.gateway.roomState("r")?.isLocked == true)
        store.crash()
        let restarted = try RoomsNodeHarness(clock: clock, store: store)
        let carol = try restarted.connect("u-carol", rooms: ["r": .participant])
        #expect(restarted.request(carol, ["type": "join", "room": "r"]).errorCodes == ["ERR_ROOM_LOCKED"])
        #expect(restarted.gateway.roomState("r")?.isLocked == true)
        let alice = try restarted.connect("u-alice", rooms: ["r": .moderator])
        try restarted.join(alice, "r")
        #expect(restarted.request(alice, ["type": "action", "room": "r", "action": "unlock"]).errorCodes.isEmpty)
        try restarted.join(carol, "r")
    }

    @Test func theLockReadBackFromACheckpointAndTheLogFormIsTheSame() throws {
        var state = RoomState(id: "r")
        let event = RoomEvent.lockChanged(isLocked: true)
        #expect(try RoomEvent(wireValue: event.wireValue) == event)
        state.apply(RoomLogEntry(sequence: 1, time: 1, actor: "u-a", reason: nil, event: event))
        let replica = RoomReplica(state: state)
        let read = try RoomReplica(checkpoint: replica.checkpoint)
        #expect(read.state.isLocked)
        #expect(read.state == state)
    }

    @Test func aLockOnOneClusterNodeKeepsNewJoinsOutOnTheOther() throws {
        let cluster = try ClusterHarness()
        let alice = try cluster.a.connect("u-alice", rooms: ["r": .moderator])
        let bob = try cluster.b.connect("u-bob", rooms: ["r": .participant])
        try cluster.a.join(alice, "r")
        try cluster.b.join(bob, "r")
        #expect(cluster.a.request(alice, ["type": "action", "room": "r", "action": "lock"]).errorCodes.isEmpty)
        cluster.run()
        #expect(cluster.b.state("r")?.isLocked == true)
        #expect(cluster.b.harness.drain(bob).events.last?["event"] == "room.locked")
        let carol = try cluster.b.connect("u-carol", rooms: ["r": .participant])
        #expect(cluster.b.request(carol, ["type": "join", "room": "r"]).errorCodes == ["ERR_ROOM_LOCKED"])
        let dave = try cluster.b.connect("u-dave", rooms: ["r": .moderator])
        try cluster.b.join(dave, "r")
        #expect(cluster.a.state("r") == cluster.b.state("r"))
    }
}
