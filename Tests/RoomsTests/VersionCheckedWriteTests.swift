import JSONCoding
import RoomsTesting
import Testing

@testable import Rooms

/// Version-checked writes (`ifSeq`) of attributes, metadata and permissions: a stale one is refused with
/// `ERR_CONFLICT` and changes nothing; a current one, or one without `ifSeq`, goes through.
@Suite struct VersionCheckedWriteTests {
    /// Room `r` with Alice (moderator) and Bob (participant) in the call, and a watcher mirroring the roster.
    struct Room {
        let harness: RoomsNodeHarness
        let alice: SessionID
        let bob: SessionID
        let mirror: RosterMirror

        init() throws {
            self.harness = try RoomsNodeHarness()
            self.alice = try self.harness.connect("u-alice", rooms: ["r": .moderator])
            self.bob = try self.harness.connect("u-bob", rooms: ["r": .participant])
            try self.harness.join(self.alice, "r")
            try self.harness.join(self.bob, "r", device: "phone")
            self.mirror = try RosterMirror(self.harness)
        }

        /// The `seq` of an ack, which the writer may name in its next write.
        func ackSequence(_ answer: [JSONValue]) throws -> Int64 {
            try #require(answer.first(type: "ack")?["seq"]?.intValue)
        }
    }

    /// Each of the three writes, by a moderator (Alice), with `ifSeq` when given.
    static func write(_ kind: String, value: String, ifSeq: Int64?) -> JSONValue {
        var fields: [(String, JSONValue)] = [("type", .string(kind)), ("id", 5), ("room", "r")]
        switch kind {
        case "metadata": fields.append(("metadata", ["topic": .string(value)]))
        case "attributes":
            fields.append(("uid", "u-bob"))
            fields.append(("attributes", ["title": .string(value)]))
        default:
            fields.append(("uid", "u-bob"))
            fields.append(("permissions", ["share": .bool(value == "on")]))
        }
        if let ifSeq { fields.append(("ifSeq", .int(ifSeq))) }
        return .object(JSONObject(uniqueKeysWithValues: fields))
    }

    @Test(arguments: ["metadata", "attributes", "permissions"])
    func aStaleVersionIsRefusedAndChangesNothingForAnyone(_ kind: String) throws {
        let room = try Room()
        // A bot that may write another's attributes (the server API's rights, over the WebSocket).
        let writer: SessionID
        if kind == "attributes" {
            writer = try room.harness.connect("b-cards", rooms: ["r": .bot], caps: ["attributes"])
            try room.harness.join(writer, "r", as: "observer")
        } else {
            writer = room.alice
        }
        let seen = room.harness.sequence("r")
        let first = room.harness.request(writer, Self.write(kind, value: "off", ifSeq: seen))
        #expect(first.first(type: "ack")?["changed"] == true)
        let changedAt = try room.ackSequence(first)
        #expect(changedAt == seen + 1)
        room.harness.advance(milliseconds: 1_000)
        try room.mirror.sync()
        let state = room.harness.gateway.roomState("r")
        _ = room.harness.drain(room.bob)
        // Another write naming the version before that change: refused, nothing changes, nobody hears of it.
        let stale = room.harness.request(writer, Self.write(kind, value: "on", ifSeq: seen))
        #expect(stale.errorCodes == ["ERR_CONFLICT"])
        #expect(stale.first?["id"] == 5)
        #expect(stale.first?["message"]?.stringValue?.contains("seq \(changedAt)") == true)
        #expect(room.harness.gateway.roomState("r") == state)
        room.harness.advance(milliseconds: 1_000)
        #expect(try room.mirror.sync().isEmpty)
        #expect(room.harness.drain(room.bob).isEmpty)
        // The ack's seq (or any later roster seq) is current: the write goes through, and so does one without. The
        // two undo each other within the window: the watcher's view still moves to the new seq (an empty patch).
        let current = room.harness.request(writer, Self.write(kind, value: "on", ifSeq: changedAt))
        #expect(current.first(type: "ack")?["changed"] == true)
        let unchecked = room.harness.request(writer, Self.write(kind, value: "off", ifSeq: nil))
        #expect(unchecked.first(type: "ack")?["changed"] == true)
        room.harness.advance(milliseconds: 1_000)
        try room.mirror.sync()
        #expect(room.mirror.matchesServer())
        let later = Int64(room.mirror.store.sequence)
        #expect(later == room.harness.sequence("r"))
        let fromRoster = room.harness.request(writer, Self.write(kind, value: "on", ifSeq: later))
        #expect(fromRoster.first(type: "ack")?["changed"] == true)
    }

    @Test func aForbiddenWriterGetsForbiddenWhateverItsVersion() throws {
        let room = try Room()
        let state = room.harness.gateway.roomState("r")
        _ = room.harness.drain(room.alice)
        for kind in ["metadata", "permissions"] {
            for ifSeq in [Int64(0), room.harness.sequence("r")] {
                let answer = room.harness.request(room.bob, Self.write(kind, value: "x", ifSeq: ifSeq))
                #expect(answer.errorCodes == ["ERR_FORBIDDEN"])
            }
        }
        // Another's attributes without the capability.
        let answer = room.harness.request(room.alice, Self.write("attributes", value: "x", ifSeq: 0))
        #expect(answer.errorCodes == ["ERR_FORBIDDEN"])
        #expect(room.harness.gateway.roomState("r") == state)
        #expect(room.harness.drain(room.alice).isEmpty)
    }

    @Test func objectsHaveVersionsOfTheirOwn() throws {
        let room = try Room()
        let seen = room.harness.sequence("r")
        // Metadata changes; Bob's attributes and permissions did not: writes naming `seen` for them go through.
        _ = room.harness.request(room.alice, Self.write("metadata", value: "a", ifSeq: nil))
        #expect(
            room.harness.request(room.alice, Self.write("permissions", value: "off", ifSeq: seen))
                .first(type: "ack")?["changed"] == true)
        let own = room.harness.request(
            room.bob, ["type": "attributes", "room": "r", "attributes": ["pronouns": "he"], "ifSeq": .int(seen)])
        #expect(own.first(type: "ack")?["changed"] == true)
        // Carol, who joins after `seen`, has versions from her join: `seen` is older than her attributes.
        let carol = try room.harness.connect("u-carol", rooms: ["r": .participant])
        try room.harness.join(carol, "r")
        let stale = room.harness.request(
            carol, ["type": "attributes", "room": "r", "attributes": ["pronouns": "she"], "ifSeq": .int(seen)])
        #expect(stale.errorCodes == ["ERR_CONFLICT"])
        let carolState = try #require(room.harness.participant("u-carol", in: "r"))
        #expect(carolState.attributesSequence == UInt64(room.harness.sequence("r")))
        #expect(carolState.attributes.isEmpty)
    }

    @Test func theServerAPIAnswersAConflict() throws {
        let room = try Room()
        let seen = room.harness.sequence("r")
        _ = room.harness.request(room.alice, Self.write("metadata", value: "a", ifSeq: nil))
        var result: Result<RoomChangeOutcome, GatewayError>?
        try room.harness.gateway.apiPublishEvent(
            room: "r", body: ["type": "metadata", "metadata": ["topic": "b"], "ifSeq": .int(seen)],
            actor: "api:backend"
        ) { result = $0 }
        guard case .failure(let error)? = result else {
            Issue.record("no conflict: \(String(describing: result))")
            return
        }
        #expect(error.code == .conflict)
        #expect(error.code.definition.httpStatus == 409)
        #expect(room.harness.gateway.roomState("r")?.metadata == ["topic": "a"])
    }

    @Test func aNegativeOrNonIntegerVersionIsABadRequest() throws {
        let room = try Room()
        for bad: JSONValue in [-1, "3", 1.5] {
            let answer = room.harness.request(
                room.alice, ["type": "metadata", "room": "r", "metadata": ["topic": "x"], "ifSeq": bad])
            #expect(answer.errorCodes == ["ERR_BAD_REQUEST"])
        }
    }

    @Test func versionsSurviveACheckpointAndTheLog() throws {
        var state = RoomState(id: "r")
        let events: [RoomEvent] = [
            .participantJoined(
                uid: "u-a", deviceID: "d", name: "A", avatar: nil, role: .participant, callType: nil),
            .metadataChanged(changes: ["topic": "x"]),
            .attributesChanged(uid: "u-a", changes: ["team": "core"]),
            .hardMuted(uid: "u-a", durationMilliseconds: nil),
        ]
        for (index, event) in events.enumerated() {
            state.apply(RoomLogEntry(sequence: UInt64(index + 1), time: 1, actor: nil, reason: nil, event: event))
        }
        #expect(state.metadataSequence == 2)
        #expect(state.participants["u-a"]?.attributesSequence == 3)
        #expect(state.participants["u-a"]?.permissionsSequence == 4)
        let replica = RoomReplica(state: state)
        #expect(try RoomReplica(checkpoint: replica.checkpoint) == replica)
    }

    @Test func inAClusterAWriteRacingAnotherNodesChangeIsCheckedAgainstIt() throws {
        let cluster = try ClusterHarness()
        let alice = try cluster.a.connect("u-alice", rooms: ["r": .moderator])
        let dave = try cluster.b.connect("u-dave", rooms: ["r": .moderator])
        try cluster.a.join(alice, "r")
        try cluster.b.join(dave, "r")
        let seen = Int64(cluster.store.sequence(of: "r"))
        // Both write the metadata at the same moment, naming the same version: exactly one goes through.
        _ = cluster.a.harness.drain(alice)
        _ = cluster.b.harness.drain(dave)
        cluster.a.harness.send(alice, Self.write("metadata", value: "from-a", ifSeq: seen))
        cluster.b.harness.send(dave, Self.write("metadata", value: "from-b", ifSeq: seen))
        cluster.run()
        let answers =
            cluster.a.harness.drain(alice).filter { $0["id"] == 5 }
            + cluster.b.harness.drain(dave).filter { $0["id"] == 5 }
        #expect(answers.compactMap { $0["type"]?.stringValue }.sorted() == ["ack", "error"])
        #expect(answers.errorCodes == ["ERR_CONFLICT"])
        #expect(cluster.store.sequence(of: "r") == UInt64(seen) + 1)
        #expect(cluster.a.state("r") == cluster.b.state("r"))
        // A write racing another node's change to something else is checked again after it, and goes through.
        let now = Int64(cluster.store.sequence(of: "r"))
        cluster.a.harness.send(alice, ["type": "state", "room": "r", "handRaised": true])
        cluster.b.harness.send(dave, Self.write("metadata", value: "again", ifSeq: now))
        cluster.run()
        let answer = cluster.b.harness.drain(dave).filter { $0["id"] == 5 }
        #expect(answer.first?["type"] == "ack")
        #expect(answer.first?["changed"] == true)
        #expect(cluster.store.sequence(of: "r") == UInt64(now) + 2)
        #expect(cluster.a.state("r")?.metadata == ["topic": "again"])
        #expect(cluster.a.state("r")?.participants["u-alice"]?.handRaised == true)
    }
}
