import JSONCoding
import RoomsTesting
import Testing

@testable import Rooms

/// The presenter floor: who sets and opens it, the second share it refuses, stopping another's share and handing
/// the floor over, what everyone sees, and that it is room state in the log (a restart with the store, two
/// cluster nodes).
@Suite struct PresenterFloorTests {
    /// Room `r` with Alice (moderator), Bob and Carol (participants) in the call, and a watcher mirroring the roster.
    struct Room {
        let harness: RoomsNodeHarness
        let alice: SessionID
        let bob: SessionID
        let carol: SessionID
        let mirror: RosterMirror

        init(store: InMemoryRoomStore? = nil, clock: ManualClock = ManualClock()) throws {
            self.harness = try RoomsNodeHarness(clock: clock, store: store)
            self.alice = try self.harness.connect("u-alice", rooms: ["r": .moderator])
            self.bob = try self.harness.connect("u-bob", rooms: ["r": .participant])
            self.carol = try self.harness.connect("u-carol", rooms: ["r": .participant])
            try self.harness.join(self.alice, "r")
            try self.harness.join(self.bob, "r", device: "phone")
            try self.harness.join(self.carol, "r", device: "web")
            self.mirror = try RosterMirror(self.harness)
        }

        func act(_ action: String, target: String? = nil, by id: SessionID) -> [JSONValue] {
            var fields: [(String, JSONValue)] = [
                ("type", "action"), ("id", 7), ("room", "r"), ("action", .string(action)),
            ]
            if let target { fields.append(("target", .string(target))) }
            return self.harness.request(id, .object(JSONObject(fields)))
        }

        func present(_ id: SessionID, _ value: Bool = true) -> [JSONValue] {
            self.harness.request(id, ["type": "state", "id": 8, "room": "r", "presenting": .bool(value)])
        }

        func presenters() -> [String] {
            self.harness.gateway.roomState("r")?.joinedParticipants.filter(\.presenting).map(\.uid) ?? []
        }
    }

    @Test func underTheFloorASecondShareIsRefusedWithFloorTakenAndChangesNothingForAnyone() throws {
        let room = try Room()
        #expect(room.act("floor", by: room.alice).first(type: "ack")?["changed"] == true)
        #expect(room.harness.drain(room.bob).events.last?["event"] == "room.floor_changed")
        #expect(room.present(room.bob).errorCodes.isEmpty)
        room.harness.advance(milliseconds: 1_000)
        try room.mirror.sync()
        #expect(room.mirror.store.roster["room"]?["floor"] == 1)
        let before = room.harness.gateway.roomState("r")
        _ = room.harness.drain(room.alice)

        #expect(room.present(room.carol).errorCodes == ["ERR_FLOOR_TAKEN"])
        #expect(room.harness.gateway.roomState("r") == before)
        room.harness.advance(milliseconds: 1_000)
        #expect(try room.mirror.sync().isEmpty)
        #expect(room.harness.drain(room.alice).isEmpty)
        // Bob presenting again is no second share; once he stops, Carol may start.
        #expect(room.present(room.bob).errorCodes.isEmpty)
        #expect(room.present(room.bob, false).errorCodes.isEmpty)
        #expect(room.present(room.carol).errorCodes.isEmpty)
        #expect(room.presenters() == ["u-carol"])
        // Opening the floor lets two present, and takes `floor` out of the roster entry.
        #expect(room.act("open_floor", by: room.alice).first(type: "ack")?["changed"] == true)
        #expect(room.present(room.bob).errorCodes.isEmpty)
        #expect(room.presenters() == ["u-bob", "u-carol"])
        room.harness.advance(milliseconds: 1_000)
        try room.mirror.sync()
        #expect(room.mirror.store.roster["room"]?["floor"] == nil)
        #expect(room.mirror.matchesServer())
    }

    @Test func aFloorOfTwoLetsTwoPresentAndALimitOutOfRangeOrOnAnotherActionIsRefused() throws {
        let room = try Room()
        let floorOfTwo: JSONValue = ["type": "action", "id": 3, "room": "r", "action": "floor", "limit": 2]
        #expect(room.harness.request(room.alice, floorOfTwo).first(type: "ack")?["changed"] == true)
        #expect(room.harness.gateway.roomState("r")?.presenterLimit == 2)
        #expect(room.present(room.bob).errorCodes.isEmpty)
        #expect(room.present(room.carol).errorCodes.isEmpty)
        #expect(room.present(room.alice).errorCodes == ["ERR_FLOOR_TAKEN"])
        // Back to one: who presents keeps presenting, nobody else starts.
        #expect(room.act("floor", by: room.alice).first(type: "ack")?["changed"] == true)
        #expect(room.presenters() == ["u-bob", "u-carol"])
        #expect(room.present(room.alice).errorCodes == ["ERR_FLOOR_TAKEN"])
        let before = room.harness.gateway.roomState("r")
        for bad: JSONValue in [
            ["type": "action", "room": "r", "action": "floor", "limit": 0],
            ["type": "action", "room": "r", "action": "floor", "limit": 17],
            ["type": "action", "room": "r", "action": "floor", "limit": "two"],
            ["type": "action", "room": "r", "action": "lock", "limit": 2],
        ] {
            #expect(room.harness.request(room.alice, bad).errorCodes == ["ERR_BAD_REQUEST"], "\(bad)")
        }
        #expect(room.harness.gateway.roomState("r") == before)
    }

    @Test func whenTheFloorQueuesAStartBeyondItWaitsItsTurnAndEveryoneSeesTheQueue() throws {
        let room = try Room()
        let queued: JSONValue = ["type": "action", "id": 3, "room": "r", "action": "floor", "queue": true]
        #expect(room.harness.request(room.alice, queued).first(type: "ack")?["changed"] == true)
        #expect(room.present(room.bob).errorCodes.isEmpty)
        #expect(room.present(room.carol).first(type: "ack")?["changed"] == true)
        #expect(room.present(room.alice).errorCodes.isEmpty)
        #expect(room.presenters() == ["u-bob"])
        #expect(room.harness.gateway.roomState("r")?.floorQueue == ["u-carol", "u-alice"])
        #expect(room.harness.drain(room.bob).events.last?["event"] == "room.floor_requested")
        room.harness.advance(milliseconds: 1_000)
        try room.mirror.sync()
        #expect(room.mirror.store.roster["room"]?["floorQueue"] == ["u-carol", "u-alice"])
        #expect(room.mirror.matchesServer())
        // Asking again keeps the place; Alice may not jump ahead of Carol once Bob stops.
        #expect(room.present(room.carol).first(type: "ack")?["changed"] == false)
        #expect(room.present(room.bob, false).errorCodes.isEmpty)
        #expect(room.present(room.alice).first(type: "ack")?["changed"] == false)
        #expect(room.present(room.carol).errorCodes.isEmpty)
        #expect(room.presenters() == ["u-carol"])
        #expect(room.harness.gateway.roomState("r")?.floorQueue == ["u-alice"])
        // Asking not to present leaves the queue; handing the floor over puts the target first.
        #expect(room.present(room.alice, false).first(type: "ack")?["changed"] == true)
        #expect(room.harness.gateway.roomState("r")?.floorQueue == [])
        _ = room.present(room.alice)
        _ = room.present(room.bob)
        #expect(room.harness.gateway.roomState("r")?.floorQueue == ["u-alice", "u-bob"])
        #expect(room.act("hand_floor", target: "u-bob", by: room.alice).first(type: "ack")?["changed"] == true)
        #expect(room.presenters().isEmpty)
        #expect(room.harness.gateway.roomState("r")?.floorQueue == ["u-bob", "u-alice"])
        #expect(room.present(room.alice).first(type: "ack")?["changed"] == false)
        #expect(room.present(room.bob).errorCodes.isEmpty)
        #expect(room.presenters() == ["u-bob"])
        // Leaving takes one out of the queue; a floor without the queue empties it.
        room.harness.send(room.alice, ["type": "leave", "room": "r"])
        #expect(room.harness.gateway.roomState("r")?.floorQueue == [])
        _ = room.present(room.carol)
        #expect(room.harness.gateway.roomState("r")?.floorQueue == ["u-carol"])
        let moderator = try room.harness.connect("u-mod", rooms: ["r": .moderator])
        try room.harness.join(moderator, "r", as: "observer")
        #expect(room.act("floor", by: moderator).first(type: "ack")?["changed"] == true)
        #expect(room.harness.gateway.roomState("r")?.floorQueue == [])
        #expect(room.present(room.carol).errorCodes == ["ERR_FLOOR_TAKEN"])
        room.harness.advance(milliseconds: 1_000)
        try room.mirror.sync()
        #expect(room.mirror.store.roster["room"]?["floorQueue"] == nil)
        #expect(room.mirror.matchesServer())

        // The queue is in the log form and the checkpoint.
        var state = RoomState(id: "r")
        let events: [RoomEvent] = [
            .participantJoined(uid: "u-x", deviceID: "d", name: "X", avatar: nil, role: .participant, callType: nil),
            .floorChanged(limit: 2, queues: true), .floorRequested(uid: "u-x"),
        ]
        for (index, event) in events.enumerated() {
            #expect(try RoomEvent(wireValue: event.wireValue) == event)
            state.apply(RoomLogEntry(sequence: UInt64(index + 1), time: 1, actor: nil, reason: nil, event: event))
        }
        #expect(state.floorQueue == ["u-x"])
        #expect(try RoomReplica(checkpoint: RoomReplica(state: state).checkpoint).state == state)
    }

    @Test func aModeratorStopsAnothersShareOrHandsTheFloorOver() throws {
        let room = try Room()
        #expect(room.present(room.bob).errorCodes.isEmpty)
        #expect(room.present(room.carol).errorCodes.isEmpty)
        _ = room.act("floor", by: room.alice)
        // Both kept presenting when the floor came; handing it to Carol stops Bob's share only.
        #expect(room.act("hand_floor", target: "u-carol", by: room.alice).first(type: "ack")?["changed"] == true)
        #expect(room.presenters() == ["u-carol"])
        #expect(room.present(room.bob).errorCodes == ["ERR_FLOOR_TAKEN"])
        #expect(room.act("stop_share", target: "u-carol", by: room.alice).first(type: "ack")?["changed"] == true)
        #expect(room.presenters().isEmpty)
        let stopped = room.harness.drain(room.carol).events.last
        #expect(stopped?["event"] == "participant.screen_share_stopped")
        #expect(stopped?["actor"] == "u-alice")
        #expect(room.act("stop_share", target: "u-carol", by: room.alice).first(type: "ack")?["changed"] == false)
        #expect(room.present(room.bob).errorCodes.isEmpty)
    }

    @Test func aParticipantOrABotWithoutTheCapabilityMayNotTouchTheFloorAndNothingChanges() throws {
        let room = try Room()
        #expect(room.present(room.carol).errorCodes.isEmpty)
        room.harness.advance(milliseconds: 1_000)
        try room.mirror.sync()
        let state = room.harness.gateway.roomState("r")
        _ = room.harness.drain(room.alice)
        let bot = try room.harness.connect("b-mute", rooms: ["r": .bot], caps: ["mute", "lock"])
        try room.harness.join(bot, "r", as: "observer")
        for actor in [room.bob, bot] {
            #expect(room.act("floor", by: actor).errorCodes == ["ERR_FORBIDDEN"])
            #expect(room.act("stop_share", target: "u-carol", by: actor).errorCodes == ["ERR_FORBIDDEN"])
            #expect(room.act("hand_floor", target: "u-bob", by: actor).errorCodes == ["ERR_FORBIDDEN"])
        }
        #expect(room.harness.gateway.roomState("r") == state)
        room.harness.advance(milliseconds: 1_000)
        #expect(try room.mirror.sync().isEmpty)
        #expect(room.harness.drain(room.alice).isEmpty)
        // A bot with `floor` may.
        let floorBot = try room.harness.connect("b-floor", rooms: ["r": .bot], caps: ["floor"])
        try room.harness.join(floorBot, "r", as: "observer")
        #expect(room.act("stop_share", target: "u-carol", by: floorBot).first(type: "ack")?["changed"] == true)
        #expect(room.act("floor", by: floorBot).first(type: "ack")?["changed"] == true)
    }

    @Test func theFloorSurvivesTheEndOfTheSessionAndARestartWithTheStoreAndItsLogFormReadsBack() throws {
        let store = InMemoryRoomStore()
        let clock = ManualClock()
        let room = try Room(store: store, clock: clock)
        _ = room.act("floor", by: room.alice)
        _ = room.act("end_session", by: room.alice)
        store.crash()
        let restarted = try RoomsNodeHarness(clock: clock, store: store)
        let bob = try restarted.connect("u-bob", rooms: ["r": .participant])
        let carol = try restarted.connect("u-carol", rooms: ["r": .participant])
        try restarted.join(bob, "r")
        try restarted.join(carol, "r")
        #expect(restarted.gateway.roomState("r")?.presenterLimit == 1)
        #expect(restarted.request(bob, ["type": "state", "room": "r", "presenting": true]).errorCodes.isEmpty)
        #expect(
            restarted.request(carol, ["type": "state", "room": "r", "presenting": true]).errorCodes
                == ["ERR_FLOOR_TAKEN"])

        for event in [RoomEvent.floorChanged(limit: 1), .floorChanged(limit: nil)] {
            #expect(try RoomEvent(wireValue: event.wireValue) == event)
        }
        var state = RoomState(id: "r")
        state.apply(RoomLogEntry(sequence: 1, time: 1, actor: "u-a", reason: nil, event: .floorChanged(limit: 1)))
        let read = try RoomReplica(checkpoint: RoomReplica(state: state).checkpoint)
        #expect(read.state == state)
    }

    @Test func aFloorSetOnOneClusterNodeHoldsOnTheOther() throws {
        let cluster = try ClusterHarness()
        let alice = try cluster.a.connect("u-alice", rooms: ["r": .moderator])
        let bob = try cluster.a.connect("u-bob", rooms: ["r": .participant])
        let carol = try cluster.b.connect("u-carol", rooms: ["r": .participant])
        try cluster.a.join(alice, "r")
        try cluster.a.join(bob, "r")
        try cluster.b.join(carol, "r")
        #expect(cluster.a.request(alice, ["type": "action", "room": "r", "action": "floor"]).errorCodes.isEmpty)
        #expect(cluster.a.request(bob, ["type": "state", "room": "r", "presenting": true]).errorCodes.isEmpty)
        cluster.run()
        #expect(cluster.b.state("r")?.presenterLimit == 1)
        #expect(
            cluster.b.request(carol, ["type": "state", "room": "r", "presenting": true]).errorCodes
                == ["ERR_FLOOR_TAKEN"])
        #expect(cluster.a.state("r") == cluster.b.state("r"))
    }
}
