import JSONCoding
import RoomsTesting
import Testing

@testable import Rooms

/// Ephemeral signals: who may send them, who gets them, their limits, and that they leave no trace in the room's
/// log (no `seq`, nothing stored, resumed or in the history).
@Suite struct SignalTests {
    /// A room `r` with Ann and Bob in the call, Ann on two devices, and an observer Vic.
    private struct Call {
        let harness: RoomsNodeHarness
        let ann: SessionID
        let annPhone: SessionID
        let bob: SessionID
        let vic: SessionID

        init(store: InMemoryRoomStore? = nil, configure: (inout RoomsConfiguration) -> Void = { _ in }) throws {
            self.harness = try RoomsNodeHarness(store: store, configure: configure)
            self.ann = try self.harness.connect("u-ann", rooms: ["r": .participant])
            try self.harness.join(self.ann, "r", device: "laptop")
            self.annPhone = try self.harness.connect("u-ann", rooms: ["r": .participant])
            try self.harness.join(self.annPhone, "r", device: "phone")
            self.bob = try self.harness.connect("u-bob", rooms: ["r": .participant])
            try self.harness.join(self.bob, "r")
            self.vic = try self.harness.connect("u-vic", rooms: ["r": .viewer])
            try self.harness.join(self.vic, "r", as: "observer")
            for id in [self.ann, self.annPhone, self.bob, self.vic] { _ = self.harness.drain(id) }
        }

        var everyone: [SessionID] { [self.ann, self.annPhone, self.bob, self.vic] }
    }

    private static func reaction(_ emoji: String = "👏", to: String? = nil, id: Int64 = 1) -> JSONValue {
        var fields: [(String, JSONValue)] = [
            ("type", "signal"), ("id", .int(id)), ("room", "r"), ("kind", "reaction"),
            ("data", ["emoji": .string(emoji)]),
        ]
        if let to { fields.append(("to", .string(to))) }
        return .object(JSONObject(fields))
    }

    @Test func aParticipantsReactionReachesEverySubscriberButTheSendingConnectionAndMovesNoSequence() throws {
        let call = try Call()
        let sequence = call.harness.sequence("r")
        let answer = call.harness.request(call.bob, Self.reaction())
        #expect(answer == [["type": "ack", "id": 1, "room": "r"]])
        let delivered: JSONValue = [
            "type": "signal", "room": "r", "from": "u-bob", "kind": "reaction", "data": ["emoji": "👏"],
        ]
        for id in [call.ann, call.annPhone, call.vic] { #expect(call.harness.drain(id) == [delivered]) }
        #expect(call.harness.drain(call.bob).isEmpty)
        #expect(call.harness.sequence("r") == sequence)
    }

    @Test func aSignalToOneParticipantReachesOnlyThatUsersDevices() throws {
        let call = try Call()
        let answer = call.harness.request(
            call.bob, ["type": "signal", "room": "r", "kind": "poke", "data": ["n": 1], "to": "u-ann"])
        #expect(answer.first?["type"] == "ack")
        let delivered: JSONValue = [
            "type": "signal", "room": "r", "from": "u-bob", "kind": "poke", "data": ["n": 1], "to": "u-ann",
        ]
        #expect(call.harness.drain(call.ann) == [delivered])
        #expect(call.harness.drain(call.annPhone) == [delivered])
        #expect(call.harness.drain(call.vic).isEmpty)
        // Someone not in the call cannot be signalled, and nobody sees the attempt.
        let missing = call.harness.request(call.bob, Self.reaction(to: "u-nobody"))
        #expect(missing.errorCodes == ["ERR_NOT_FOUND"])
        for id in call.everyone { #expect(call.harness.drain(id).isEmpty) }
    }

    @Test func observersAndViewersMayNotSendButModeratorsMayWhileWatching() throws {
        let call = try Call()
        let refused = call.harness.request(call.vic, Self.reaction())
        #expect(refused.errorCodes == ["ERR_FORBIDDEN"])
        let viewer = try call.harness.connect("u-view", rooms: ["r": .viewer])
        try call.harness.join(viewer, "r")
        for id in call.everyone { _ = call.harness.drain(id) }
        #expect(call.harness.request(viewer, Self.reaction()).errorCodes == ["ERR_FORBIDDEN"])
        let outsider = try call.harness.connect("u-out", rooms: ["r": .participant])
        #expect(call.harness.request(outsider, Self.reaction()).errorCodes == ["ERR_NOT_IN_ROOM"])
        for id in call.everyone { #expect(call.harness.drain(id).isEmpty) }

        let moderator = try call.harness.connect("u-mod", rooms: ["r": .moderator])
        try call.harness.join(moderator, "r", as: "observer")
        for id in call.everyone { _ = call.harness.drain(id) }
        #expect(call.harness.request(moderator, Self.reaction()).first?["type"] == "ack")
        #expect(call.harness.drain(call.bob).first?["from"] == "u-mod")
    }

    @Test func aHiddenParticipantSendsNoSignals() throws {
        let call = try Call()
        let moderator = try call.harness.connect("u-mod", rooms: ["r": .moderator])
        try call.harness.join(moderator, "r", as: "observer")
        let hide: JSONValue = [
            "type": "permissions", "id": 1, "room": "r", "uid": "u-bob", "permissions": ["hidden": true],
        ]
        #expect(call.harness.request(moderator, hide).first?["type"] == "ack")
        for id in call.everyone { _ = call.harness.drain(id) }
        #expect(call.harness.request(call.bob, Self.reaction()).errorCodes == ["ERR_FORBIDDEN"])
        #expect(call.harness.request(call.ann, Self.reaction(to: "u-bob")).errorCodes == ["ERR_NOT_FOUND"])
        for id in call.everyone { #expect(call.harness.drain(id).isEmpty) }
    }

    @Test func dataPastTheSizeLimitIsRefusedAndBadSignalsAreMalformed() throws {
        let call = try Call { $0.maximumSignalBytes = 32 }
        let large: JSONValue = [
            "type": "signal", "room": "r", "kind": "k", "data": .string(String(repeating: "x", count: 31)),
        ]
        #expect(call.harness.request(call.bob, large).errorCodes == ["ERR_TOO_LARGE"])
        let fits: JSONValue = [
            "type": "signal", "room": "r", "kind": "k", "data": .string(String(repeating: "x", count: 30)),
        ]
        #expect(call.harness.request(call.bob, fits).first?["type"] == "ack")
        _ = call.harness.drain(call.ann)
        #expect(call.harness.request(call.bob, ["type": "signal", "room": "r"]).errorCodes == ["ERR_BAD_REQUEST"])
        #expect(
            call.harness.request(call.bob, ["type": "signal", "room": "r", "kind": "k", "from": "u-ann"]).errorCodes
                == ["ERR_BAD_REQUEST"])
        #expect(call.harness.drain(call.ann).isEmpty)
    }

    @Test func eachUserHasItsOwnRateThatRefillsWithTime() throws {
        let call = try Call { $0.signalsPerSecond = 3 }
        for index in 0..<3 { #expect(call.harness.request(call.bob, Self.reaction(id: Int64(index))).count == 1) }
        #expect(call.harness.request(call.bob, Self.reaction(id: 9)).errorCodes == ["ERR_RATE_LIMITED"])
        #expect(call.harness.drain(call.vic).count == 3)
        // Ann's allowance is her own; Bob's comes back one signal per third of a second.
        #expect(call.harness.request(call.ann, Self.reaction()).first?["type"] == "ack")
        call.harness.advance(milliseconds: 333)
        #expect(call.harness.request(call.bob, Self.reaction()).errorCodes == ["ERR_RATE_LIMITED"])
        call.harness.advance(milliseconds: 1)
        #expect(call.harness.request(call.bob, Self.reaction()).first?["type"] == "ack")
        #expect(call.harness.request(call.bob, Self.reaction()).errorCodes == ["ERR_RATE_LIMITED"])
    }

    @Test func aSignalLeavesNoTraceInTheStoreTheHistoryOrAResume() throws {
        let store = InMemoryRoomStore()
        let call = try Call(store: store)
        let sequence = call.harness.sequence("r")
        let stored = store.committedEntries(of: "r").count
        call.harness.close(call.vic, cleanly: false)
        let before = call.harness.request(call.bob, ["type": "query", "id": 2, "query": "history", "room": "r"])
        #expect(call.harness.request(call.bob, Self.reaction()).first?["type"] == "ack")
        try store.commit()
        #expect(store.committedEntries(of: "r").count == stored)
        #expect(call.harness.sequence("r") == sequence)
        let after = call.harness.request(call.bob, ["type": "query", "id": 2, "query": "history", "room": "r"])
        #expect(after == before)
        // The observer that was away comes back from the room's seq before the signal: nothing to replay.
        let back = try call.harness.connect("u-vic", rooms: ["r": .viewer])
        let resumed = try call.harness.join(back, "r", as: "observer", resume: sequence)
        #expect(resumed.map { $0["type"] } == ["ack", "resumed"])
        #expect(!resumed.contains { $0["type"] == "signal" })
    }

    @Test func aSignalReachesSubscribersOnAnotherClusterNodeWithoutEnteringTheSharedLog() throws {
        let cluster = try ClusterHarness()
        let ann = try cluster.a.connect("u-ann", rooms: ["r": .participant])
        try cluster.a.join(ann, "r")
        let bob = try cluster.b.connect("u-bob", rooms: ["r": .participant])
        try cluster.b.join(bob, "r")
        let vic = try cluster.b.connect("u-vic", rooms: ["r": .viewer])
        try cluster.b.join(vic, "r", as: "observer")
        cluster.run()
        _ = cluster.a.harness.drain(ann)
        _ = cluster.b.harness.drain(bob)
        _ = cluster.b.harness.drain(vic)
        let sequence = cluster.a.state("r")?.sequence
        #expect(cluster.a.request(ann, Self.reaction()).first?["type"] == "ack")
        cluster.run()
        #expect(cluster.b.harness.drain(bob).map { $0["from"] } == ["u-ann"])
        #expect(cluster.b.harness.drain(vic).map { $0["kind"] } == ["reaction"])
        #expect(cluster.a.harness.drain(ann).isEmpty)
        // One participant on the other node: only that user's connections there.
        #expect(cluster.a.request(ann, Self.reaction(to: "u-bob")).first?["type"] == "ack")
        cluster.run()
        #expect(cluster.b.harness.drain(bob).map { $0["to"] } == ["u-bob"])
        #expect(cluster.b.harness.drain(vic).isEmpty)
        #expect(cluster.a.state("r")?.sequence == sequence)
        #expect(cluster.b.state("r")?.sequence == sequence)
    }
}
