import JSONCoding
import RoomsTesting
import Testing
import TokenAuth

@testable import Rooms

/// The `rights` of a join's answer are computed by the rules that judge the requests: for every role and both
/// ways of joining, each right is tried, and the gateway's answer must agree with it.
@Suite struct RightsAgreeWithRulesTests {
    /// Who joins, and how they came by their role.
    enum Actor: String, CaseIterable, CustomStringConvertible {
        case admin, moderator, participant, viewer, promoted
        case botWithEveryCapability = "bot with every capability"
        case botWithoutCapabilities = "bot without capabilities"

        var role: TokenRole {
            switch self {
            case .admin: return .admin
            case .moderator: return .moderator
            case .participant, .promoted: return .participant
            case .viewer: return .viewer
            case .botWithEveryCapability, .botWithoutCapabilities: return .bot
            }
        }

        var capabilities: [String] {
            guard self == .botWithEveryCapability else { return [] }
            return ModeratorAction.allCases.map(\.capability)
                + ["record", "speaker", "attributes", "metadata", "permissions"]
        }

        var description: String { self.rawValue }
    }

    /// One right of the answer and the request that exercises it.
    struct Right: CustomStringConvertible {
        let description: String
        /// Whether the answer's `rights` grant it.
        let granted: (JSONValue) -> Bool
        let request: JSONValue
    }

    static var rights: [Right] {
        var rights = ModeratorAction.allCases.map { action in
            var fields: [(String, JSONValue)] = [
                ("type", "action"), ("id", 1), ("room", "r"), ("action", .string(action.rawValue)),
            ]
            if action.needsTarget { fields.append(("target", action.needsTargetWaiting ? "u-waiting" : "u-target")) }
            return Right(
                description: "action \(action.rawValue)",
                granted: { $0["actions"]?.arrayValue?.contains(.string(action.rawValue)) == true },
                request: .object(JSONObject(uniqueKeysWithValues: fields)))
        }
        func right(_ name: String, _ request: JSONValue) -> Right {
            Right(description: name, granted: { $0[name] == true }, request: request)
        }
        rights += [
            right("record", ["type": "media", "id": 1, "room": "r", "recording": true]),
            right("speakerForOthers", ["type": "speaker", "id": 1, "room": "r", "uid": "u-target"]),
            right(
                "attributesForOthers",
                ["type": "attributes", "id": 1, "room": "r", "uid": "u-target", "attributes": ["team": "a"]]),
            right("metadata", ["type": "metadata", "id": 1, "room": "r", "metadata": ["topic": "planning"]]),
            right(
                "permissions",
                ["type": "permissions", "id": 1, "room": "r", "uid": "u-target", "permissions": ["share": false]]),
            right("unmute", ["type": "state", "id": 1, "room": "r", "audioMuted": false]),
            right("share", ["type": "state", "id": 1, "room": "r", "presenting": true]),
            right("meetings", ["type": "meeting", "id": 1, "group": "r", "sessionId": "s-1"]),
        ]
        return rights
    }

    /// A room with an admin watching, a participant to act on and a user in the waiting room (by its token's
    /// claim, so the actor's own join does not wait); then the actor joins. Returns the harness, the
    /// actor's session and its join's `rights`.
    func join(_ actor: Actor, as kind: String) throws -> (RoomsNodeHarness, SessionID, JSONValue) {
        let harness = try RoomsNodeHarness()
        let boss = try harness.connect("u-boss", rooms: ["r": .admin])
        try harness.join(boss, "r", as: "observer")
        let target = try harness.connect("u-target", rooms: ["r": .participant])
        try harness.join(target, "r")
        let waiting = try harness.connect("u-waiting", rooms: ["r": .participant], admission: ["r": .wait])
        guard harness.request(waiting, ["type": "join", "room": "r"]).first(type: "waiting") != nil else {
            throw HarnessError.unexpected("u-waiting does not wait")
        }
        if actor == .promoted {
            _ = harness.request(boss, ["type": "action", "room": "r", "action": "promote", "target": "u-actor"])
        }
        let session = try harness.connect("u-actor", rooms: ["r": actor.role], caps: actor.capabilities)
        let ack = try #require(try harness.join(session, "r", as: kind).first(type: "ack"))
        return (harness, session, try #require(ack["rights"]))
    }

    @Test(arguments: Actor.allCases, ["participant", "observer"])
    func everyRightAgreesWithTheAnswerToItsRequest(_ actor: Actor, kind: String) throws {
        for right in Self.rights {
            // A fresh room for each: some requests end the call or remove someone.
            let (harness, session, rights) = try self.join(actor, as: kind)
            let answer = harness.request(session, right.request).first { $0["type"] == "ack" || $0["type"] == "error" }
            let accepted = answer?["type"] == "ack"
            #expect(
                accepted == right.granted(rights),
                "\(actor) as \(kind): \(right) is \(right.granted(rights)) in \(rights), the answer \(answer ?? .null)")
            if !accepted {
                #expect(
                    ["ERR_FORBIDDEN", "ERR_NOT_IN_ROOM"].contains(answer?["code"]?.stringValue ?? ""),
                    "\(actor) as \(kind): \(right): \(answer ?? .null)")
            }
        }
    }

    @Test(arguments: Actor.allCases)
    func bypassLockAgreesWithAJoinIntoTheCallOfALockedRoom(_ actor: Actor) throws {
        let (harness, _, rights) = try self.join(actor, as: "observer")
        try harness.gateway.apiModerate(room: "r", body: ["action": "lock"], actor: "api:test") { _ in }
        #expect(harness.gateway.roomState("r")?.isLocked == true)
        let session = try harness.connect("u-actor", rooms: ["r": actor.role], caps: actor.capabilities)
        let answer = harness.request(session, ["type": "join", "id": 2, "room": "r", "device": "second"])
        let accepted = answer.first?["type"] == "ack"
        #expect(accepted == (rights["bypassLock"] == true), "\(actor): \(rights), the answer \(answer)")
        if !accepted { #expect(answer.errorCodes == ["ERR_ROOM_LOCKED"]) }
    }

    @Test func aModeratorWatchingAsObserverStartsTheRecordingItsRightsPromise() throws {
        let (harness, session, rights) = try self.join(.moderator, as: "observer")
        #expect(rights["record"] == true)
        #expect(rights["unmute"] == false && rights["share"] == false)
        let answer = harness.request(session, ["type": "media", "id": 2, "room": "r", "recording": true])
        #expect(answer.first(type: "ack")?["changed"] == true)
        #expect(harness.gateway.roomState("r")?.isRecording == true)
        // Its own audio output is a participant's: it has none while watching.
        let audio = harness.request(session, ["type": "media", "id": 3, "room": "r", "audioMode": "speaker"])
        #expect(audio.errorCodes == ["ERR_NOT_IN_ROOM"])
    }
}
