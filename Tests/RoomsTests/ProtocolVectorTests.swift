import Foundation
import JSONCoding
import TestSupport
import Testing

@testable import Rooms

/// The protocol's constants (`Tests/Vectors/protocol.json`) against the server's own definitions: its message types,
/// event names, error codes with their HTTP status, close codes, participant flags, the reasons of `unsubscribed` and
/// of a leave, and view filters. The clients check their typed constants against the same file, so none of them can
/// drift from the server unseen.
@Suite struct ProtocolVectorTests {
    static func vectors() throws -> JSONValue { try SharedVectors.load("protocol.json") }

    static func strings(_ value: JSONValue?) -> [String] { SharedVectors.strings(value) }

    /// `tokenExpired` → `token_expired`.
    static func snakeCase(_ name: String) -> String {
        name.reduce(into: "") { result, character in
            if character.isUppercase { result += "_" + character.lowercased() } else { result.append(character) }
        }
    }

    @Test func theMessageTypesAreTheDecodersAndTheServersMessages() throws {
        let vectors = try Self.vectors()
        let client = Self.strings(vectors["messageTypes"]?["client"])
        let server = Self.strings(vectors["messageTypes"]?["server"])
        #expect(Set(client) == Set(ClientMessageType.allCases.map(\.rawValue)))
        #expect(client.count == ClientMessageType.allCases.count)
        #expect(Set(server) == Set(ServerMessageType.allCases.map(\.rawValue)))
        #expect(server.count == ServerMessageType.allCases.count)
        // The decoder knows each client type (a type without its fields is refused for them, not for its name) and
        // no other.
        let decoder = ClientMessageDecoder(configuration: RoomsConfiguration())
        for type in client {
            do {
                _ = try decoder.decode(.object(JSONObject([("type", .string(type))])))
            } catch {
                #expect(!error.message.contains("unknown message type"), "\(type): \(error)")
            }
        }
        #expect(throws: GatewayError.badRequest("unknown message type 'teleport'")) {
            try decoder.decode(.object(JSONObject([("type", .string("teleport"))])))
        }
    }

    @Test func theEventNamesAreThoseTheServerGivesItsEvents() throws {
        let names = Self.strings(try Self.vectors()["events"])
        let served = EventSamples.all.map(ServerMessages.eventName)
        #expect(Set(names) == Set(served))
        #expect(names.count == Set(names).count)
    }

    @Test func theErrorCodesAreTheTablesWithTheirHTTPStatus() throws {
        let rows = try #require(try Self.vectors()["errorCodes"]?.arrayValue)
        let listed = rows.map { ($0["code"]?.stringValue ?? "", $0["httpStatus"]?.intValue ?? 0) }
        #expect(listed.map(\.0) == GatewayErrorCode.allCases.map(\.rawValue))
        for (code, status) in listed {
            #expect(GatewayErrorCode(rawValue: code)?.definition.httpStatus == Int(status), "\(code)")
        }
    }

    @Test func theCloseCodesAreTheGatewaysWithWhetherTheyEndTheSession() throws {
        let rows = try #require(try Self.vectors()["closeCodes"]?.arrayValue)
        let listed = rows.map { row in
            "\(row["code"]?.intValue ?? 0) \(row["name"]?.stringValue ?? "") \(row["final"]?.boolValue ?? false)"
        }
        let served = GatewayCloseCode.allCases.map { "\($0.rawValue) \(Self.snakeCase("\($0)")) \($0.isFinal)" }
        #expect(listed == served)
    }

    @Test func theParticipantFlagsAreTheServersWithTheirEventNamesAndWhoSetsThem() throws {
        let rows = try #require(try Self.vectors()["participantFlags"]?.arrayValue)
        let listed = rows.map { row in
            [row["name"], row["on"], row["off"]].map { $0?.stringValue ?? "" }
                + ["\(row["setByParticipant"]?.boolValue.map(String.init) ?? "missing")"]
        }
        let served = ParticipantFlag.allCases.map {
            [$0.rawValue, $0.eventNames.on, $0.eventNames.off, "\($0.isSetByParticipant)"]
        }
        #expect(listed == served)
    }

    @Test func theUnsubscribeReasonsAreThoseTheServerSends() throws {
        let reasons = Self.strings(try Self.vectors()["unsubscribeReasons"])
        #expect(reasons == UnsubscribeReason.allCases.map(\.rawValue))
    }

    @Test func theLeaveReasonsAreThoseTheServersLeavesCarry() throws {
        let reasons = Self.strings(try Self.vectors()["leaveReasons"])
        #expect(reasons == LeaveReason.allCases.map(\.rawValue))
    }

    @Test func theWaitingRoomLeaveReasonsAreThoseTheServersWaitingLeftCarry() throws {
        let reasons = Self.strings(try Self.vectors()["waitingLeaveReasons"])
        #expect(reasons == WaitingLeaveReason.allCases.map(\.rawValue))
    }

    @Test func theViewFiltersAreTheServers() throws {
        let filters = Self.strings(try Self.vectors()["viewFilters"])
        #expect(filters == RosterViewSpec.Filter.allCases.map(\.rawValue))
    }

    @Test("the views' counts and the roles are those the server counts, each flag's by its own definition")
    func theViewCountsAreTheServers() throws {
        let vectors = try Self.vectors()
        let counts = try #require(vectors["viewCounts"]?.arrayValue)
        let served: [JSONValue] =
            [["name": "inCall"]]
            + ParticipantFlag.ordered.compactMap { flag in
                flag.viewCount.map {
                    ["name": .string($0.name), "flag": .string(flag.rawValue), "whenSet": .bool($0.whenSet)]
                }
            }
        #expect(counts == served)
        #expect(Self.strings(vectors["roles"]) == ParticipantRole.allCases.map(\.rawValue))
        // A room where every count is above zero lists them all, in that order, and every role.
        var state = RoomState(id: "r")
        for (index, role) in ParticipantRole.allCases.enumerated() {
            for value in [false, true] {
                var participant = Participant(
                    uid: "\(role)-\(value)", name: "P", avatar: nil, role: role, joinedAt: 0, order: index)
                participant.devices = [ParticipantDevice(deviceID: "d", joinedAt: 0)]
                for flag in ParticipantFlag.ordered { participant.flags[flag] = value }
                state.participants[participant.uid] = participant
            }
        }
        let object = state.viewCounts.object
        #expect(object.entries.map(\.key) == counts.compactMap { $0["name"]?.stringValue } + ["roles"])
        #expect(object["roles"]?.objectValue?.entries.map(\.key) == Self.strings(vectors["roles"]))
    }
}

extension ProtocolVectorTests {
    @Test func theServerAPIsActionListNamesEveryModeratorAction() throws {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let api = try String(contentsOf: directory.appendingPathComponent("docs/API.md"), encoding: .utf8)
        let section = try #require(api.components(separatedBy: "— a moderator action").dropFirst().first)
        let list = try #require(section.components(separatedBy: "`target`").first)
        for action in ModeratorAction.allCases {
            #expect(list.contains("`\(action.rawValue)`"), "docs/API.md's action list lacks \(action.rawValue)")
        }
    }

    @Test func theServerAPIsDescriptionListsEveryModeratorActionAndNoOther() throws {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let description = try JSONParser.parse(
            Array(try Data(contentsOf: directory.appendingPathComponent("api/openapi.json"))))
        let listed = Self.strings(
            description["components"]?["schemas"]?["ActionBody"]?["properties"]?["action"]?["enum"])
        #expect(Set(listed) == Set(ModeratorAction.allCases.map(\.rawValue)))
        #expect(listed.count == ModeratorAction.allCases.count)
    }
}

/// One event of every shape that has a name of its own, for the names the server gives them. `variants(of:)`
/// switches over `RoomEvent` without a default, so a new event does not compile here until it is sampled.
enum EventSamples {
    static let seeds: [RoomEvent] = [
        .participantJoined(
            uid: "u", deviceID: "d", name: "U", avatar: nil, role: .participant, callType: nil),
        .participantLeft(uid: "u", deviceID: "d", reason: .left),
        .connectionLost(uid: "u", deviceID: "d"),
        .participantConnectionClosed(uid: "u", deviceID: "d"),
        .connectionRestored(uid: "u", deviceID: "d"),
        .flagChanged(uid: "u", flag: .audioMuted, value: true),
        .mediaIDChanged(uid: "u", mid: "m"),
        .activeSpeakerChanged(uid: "u"),
        .speakerStopped(uid: "u"),
        .activeSpeakerShown(uid: "u"),
        .recordingChanged(isRecording: true),
        .audioModeChanged(uid: "u", mode: "speaker"),
        .cameraFacingChanged(uid: "u", facing: "front"),
        .operatorChanged(uid: "u", isOperator: true),
        .roleChanged(uid: "u", role: .moderator),
        .banChanged(uid: "u", isBanned: true),
        .mutedByModerator(uid: "u"),
        .hardMuted(uid: "u", durationMilliseconds: nil),
        .permissionsChanged(uid: "u", permissions: ParticipantPermissions()),
        .unmuteRequested(uid: "u"),
        .attributesChanged(uid: "u", changes: [:]),
        .metadataChanged(changes: [:]),
        .meetingMessage(MeetingMessage(sessionID: "s", callType: "audio", sender: "u", text: nil, isActive: true)),
        .sessionEnded,
        .lockChanged(isLocked: true),
        .floorChanged(limit: 1),
        .floorRequested(uid: "u"),
        .floorRequestWithdrawn(uid: "u"),
        .admissionChanged(isRequired: true),
        .waitingEntered(uid: "u", name: "U", avatar: nil, role: .participant),
        .waitingAdmitted(uid: "u"),
        .waitingDenied(uid: "u"),
        .waitingLeft(uid: "u", reason: .left),
    ]

    /// Every seed with each value that changes its name (leave reasons, flags on and off, promotions and
    /// demotions, bans and unbans, recording on and off).
    static var all: [RoomEvent] { Self.seeds.flatMap(Self.variants) }

    static func variants(of event: RoomEvent) -> [RoomEvent] {
        switch event {
        case .participantLeft(let uid, let deviceID, _):
            return LeaveReason.allCases.map { .participantLeft(uid: uid, deviceID: deviceID, reason: $0) }
        case .flagChanged(let uid, _, _):
            return ParticipantFlag.allCases.flatMap { flag in
                [true, false].map { RoomEvent.flagChanged(uid: uid, flag: flag, value: $0) }
            }
        case .recordingChanged:
            return [true, false].map { .recordingChanged(isRecording: $0) }
        case .operatorChanged(let uid, _):
            return [true, false].map { .operatorChanged(uid: uid, isOperator: $0) }
        case .banChanged(let uid, _):
            return [true, false].map { .banChanged(uid: uid, isBanned: $0) }
        case .lockChanged:
            return [true, false].map { .lockChanged(isLocked: $0) }
        case .admissionChanged:
            return [true, false].map { .admissionChanged(isRequired: $0) }
        case .waitingLeft(let uid, _):
            return WaitingLeaveReason.allCases.map { .waitingLeft(uid: uid, reason: $0) }
        case .participantJoined, .connectionLost, .participantConnectionClosed, .connectionRestored, .mediaIDChanged,
            .activeSpeakerChanged, .speakerStopped, .activeSpeakerShown, .audioModeChanged, .cameraFacingChanged,
            .mutedByModerator, .hardMuted, .permissionsChanged, .unmuteRequested, .attributesChanged,
            .metadataChanged, .meetingMessage, .sessionEnded, .roleChanged, .floorChanged, .floorRequested,
            .floorRequestWithdrawn, .waitingEntered, .waitingAdmitted, .waitingDenied:
            return [event]
        }
    }
}
