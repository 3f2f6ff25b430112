import JSONCoding
import RoomsTesting
import TestSupport
import Testing
import TokenAuth

@testable import Rooms

/// Plays random but valid-looking traffic through the gateway for one room and its group.
struct RandomCall {
    static let users: [(uid: String, role: TokenRole, caps: [String])] = [
        ("u-host", .moderator, []),
        ("u-admin", .admin, []),
        ("u-1", .participant, []),
        ("u-2", .participant, []),
        ("u-view", .viewer, []),
        ("bot-1", .bot, ["mute", "pin", "record", "ban", "remove", "promote", "end"]),
    ]

    let harness: RoomsNodeHarness
    var generator: SplitMix64
    var sessions: [String: SessionID] = [:]

    init(seed: UInt64) throws {
        self.harness = try RoomsNodeHarness {
            $0.roomCapacity = 3
            $0.reservedSeats = 2
            $0.reconnectGraceMilliseconds = 15_000
        }
        self.generator = SplitMix64(seed: seed)
    }

    mutating func pick<T>(_ choices: [T]) -> T {
        choices[Int(self.generator.next() % UInt64(choices.count))]
    }

    mutating func flag() -> JSONValue { .bool(self.generator.next() % 2 == 0) }

    mutating func step() throws {
        let user = self.pick(Self.users)
        let uids = Self.users.map(\.uid) + ["u-ghost"]
        if let session = self.sessions[user.uid], self.harness.closeCode(session) != nil {
            self.sessions[user.uid] = nil
        }
        guard let session = self.sessions[user.uid] else {
            self.sessions[user.uid] = try self.harness.connect(
                user.uid, rooms: ["r": user.role], groups: ["r"],
                caps: user.caps)
            return
        }
        let message: JSONValue
        switch self.generator.next() % 14 {
        case 0, 1:
            var fields: [(String, JSONValue)] = [("type", "join"), ("room", "r")]
            fields.append(("device", .string(self.pick(["a", "b"]))))
            if self.generator.next() % 2 == 0 { fields.append(("callType", .string(self.pick(["audio", "video"])))) }
            message = .object(JSONObject(uniqueKeysWithValues: fields))
        case 2:
            message = ["type": "leave", "room": "r"]
        case 3:
            self.harness.close(session, cleanly: self.generator.next() % 2 == 0)
            self.sessions[user.uid] = nil
            return
        case 4, 5:
            let field = self.pick(["audioMuted", "videoPaused", "presenting", "handRaised"])
            message = ["type": "state", "room": "r", field: self.flag()]
        case 6:
            message = [
                "type": "state", "room": "r", "mid": .string(self.pick(["m1", "m2"])),
                "cameraFacing": .string(self.pick(["front", "back"])),
            ]
        case 7:
            let uid = self.pick(uids)
            message = ["type": "speaker", "room": "r", "uid": uid == "u-ghost" ? nil : .string(uid)]
        case 8:
            message =
                self.generator.next() % 2 == 0
                ? ["type": "media", "room": "r", "recording": self.flag()]
                : ["type": "media", "room": "r", "audioMode": .string(self.pick(["speaker", "earpiece"]))]
        case 9:
            message = ["type": "meeting", "group": "r", "sessionId": "call", "active": self.flag()]
        case 10, 11, 12:
            // Ending the session empties the room, so it is rarer than the other actions.
            let others = ModeratorAction.allCases.filter { $0 != .endSession }
            let action = self.generator.next() % 10 == 0 ? ModeratorAction.endSession : self.pick(others)
            var fields: [(String, JSONValue)] = [("type", "action"), ("room", "r")]
            fields.append(("action", .string(action.rawValue)))
            if action.needsTarget { fields.append(("target", .string(self.pick(uids)))) }
            fields.append(("reason", .string(self.pick(["noise", "test"]))))
            message = .object(JSONObject(uniqueKeysWithValues: fields))
        default:
            self.harness.advance(milliseconds: Int64(self.generator.next() % 20_000))
            return
        }
        self.harness.send(session, message)
    }
}

@Suite struct ReducerPropertyTests {
    @Test func replayingTheRoomLogRebuildsTheGatewaysState() throws {
        var checkedEvents = 0
        for seed in UInt64(1)...300 {
            var call = try RandomCall(seed: seed)
            for _ in 0..<80 { try call.step() }
            let harness = call.harness
            guard let live = harness.gateway.roomState("r"), let log = harness.gateway.roomLog("r") else { continue }
            try #require(log.entries.first?.sequence == 1, "seed \(seed): the log was trimmed")
            // Every node rebuilds a room the same way: the reducer, then the speaker rule (which credits the time
            // each shown speaker held the floor).
            var rebuilt = RoomReplica(state: RoomState(id: "r"))
            for entry in log.entries {
                #expect(entry.sequence == rebuilt.state.sequence + 1, "seed \(seed): a gap in the log")
                rebuilt.apply(entry, speakerRule: harness.gateway.speakerRule)
            }
            #expect(rebuilt.state == live, "seed \(seed): the reducer disagrees with the gateway")
            #expect(rebuilt.state.sequence == log.lastSequence)
            checkedEvents += log.entries.count
        }
        // The traffic must actually exercise the reducer.
        #expect(checkedEvents > 300 * 10)
    }

    @Test func theSameSeedPlaysTheSameCall() throws {
        var first = try RandomCall(seed: 42)
        var second = try RandomCall(seed: 42)
        for _ in 0..<80 {
            try first.step()
            try second.step()
        }
        #expect(first.harness.gateway.roomLog("r")?.entries == second.harness.gateway.roomLog("r")?.entries)
        #expect(first.harness.gateway.roomState("r") != nil)
    }
}
