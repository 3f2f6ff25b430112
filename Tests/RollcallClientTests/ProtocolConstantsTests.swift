import Foundation
import JSONCoding
import TestSupport
import Testing

@testable import RollcallClient

/// The Swift client's typed constants against the shared vectors (`Tests/Vectors/protocol.json`), which the server
/// and the other clients check themselves against too.
@Suite struct ProtocolConstantsTests {
    static func vectors() throws -> JSONValue { try SharedVectors.load("protocol.json") }

    static func strings(_ value: JSONValue?) -> [String] { SharedVectors.strings(value) }

    @Test func theMessageTypesEventNamesAndViewFiltersAreTheVectors() throws {
        let vectors = try Self.vectors()
        #expect(
            Set(Self.strings(vectors["messageTypes"]?["client"]))
                == Set(RollcallClientMessageType.allCases.map(\.rawValue)))
        #expect(
            Set(Self.strings(vectors["messageTypes"]?["server"]))
                == Set(RollcallServerMessageType.allCases.map(\.rawValue)))
        #expect(Set(Self.strings(vectors["events"])) == Set(RollcallEventName.allCases.map(\.rawValue)))
        #expect(Self.strings(vectors["events"]).count == RollcallEventName.allCases.count)
        #expect(Self.strings(vectors["viewFilters"]) == RollcallViewFilter.allCases.map(\.rawValue))
    }

    @Test("the view counts the client reads are the vectors' counts")
    func theViewCountsAreTheVectors() throws {
        let counts = try #require(try Self.vectors()["viewCounts"]?.arrayValue)
        #expect(counts.compactMap { $0["name"]?.stringValue } == RollcallViewCounts.names)
    }

    @Test func everyErrorCodeIsKnownAndAnUnknownOneIsPassedThrough() throws {
        let codes = try #require(try Self.vectors()["errorCodes"]?.arrayValue).compactMap { $0["code"]?.stringValue }
        #expect(codes == RollcallServerErrorCode.allCases.map(\.rawValue))
        for code in codes {
            let error = RollcallError(.server(code: code, message: "words"))
            #expect(error.serverErrorCode?.rawValue == code)
        }
        let newer = RollcallError(.server(code: "ERR_FROM_A_NEWER_GATEWAY", message: ""))
        #expect(newer.serverErrorCode == nil)
        #expect(newer.serverCode == "ERR_FROM_A_NEWER_GATEWAY")
    }

    @Test func theCloseCodesAndWhichEndTheSessionAreTheVectors() throws {
        let rows = try #require(try Self.vectors()["closeCodes"]?.arrayValue)
        #expect(rows.map { $0["code"]?.intValue ?? 0 } == RollcallCloseCode.allCases.map { Int64($0.rawValue) })
        for row in rows {
            let code = try #require(RollcallCloseCode(rawValue: UInt16(row["code"]?.intValue ?? 0)))
            #expect(code.isFinal == row["final"]?.boolValue, "\(code)")
            let closed = RollcallError(.connectionClosed(code: code.rawValue, reason: ""))
            #expect(closed.isFinal == code.isFinal)
        }
    }

    @Test func everyUnsubscribeReasonIsKnownAndAnUnknownOneIsPassedThrough() throws {
        let reasons = Self.strings(try Self.vectors()["unsubscribeReasons"])
        #expect(reasons == RollcallUnsubscribeReason.known.map(\.description))
        for reason in reasons {
            let read = RollcallUnsubscribeReason(wireValue: reason)
            #expect(read != .other(reason), "\(reason)")
            #expect(read.description == reason)
        }
        #expect(RollcallUnsubscribeReason(wireValue: "from_a_newer_gateway") == .other("from_a_newer_gateway"))
    }

    @Test func everyLeaveReasonIsReadFromTheLeaveEvents() throws {
        let reasons = Self.strings(try Self.vectors()["leaveReasons"])
        #expect(reasons == RollcallLeaveReason.allCases.map(\.rawValue))
        for reason in RollcallLeaveReason.allCases {
            let name = reason == .timedOut ? "session.timed_out" : "participant.left"
            let message: JSONValue = [
                "type": "event", "room": "r", "seq": 3, "event": .string(name),
                "data": ["uid": "u", "reason": .string(reason.rawValue)],
            ]
            #expect(RollcallEvent(message: message)?.leaveReason == reason, "\(reason)")
        }
        let muted: JSONValue = [
            "type": "event", "room": "r", "seq": 3, "event": "participant.audio_muted", "data": ["reason": "left"],
        ]
        #expect(try #require(RollcallEvent(message: muted)).leaveReason == nil)
    }

    @Test func theParticipantFlagsAreTheVectorsAndEachIsReadFromTheEntry() throws {
        let rows = try #require(try Self.vectors()["participantFlags"]?.arrayValue)
        #expect(rows.compactMap { $0["name"]?.stringValue } == RollcallParticipantFlag.allCases.map(\.rawValue))
        for row in rows {
            let flag = try #require(RollcallParticipantFlag(rawValue: row["name"]?.stringValue ?? ""))
            #expect(flag.eventNames.on.rawValue == row["on"]?.stringValue)
            #expect(flag.eventNames.off.rawValue == row["off"]?.stringValue)
            #expect(flag.isSetByParticipant == row["setByParticipant"]?.boolValue)
            let entry = JSONObject(uniqueKeysWithValues: [(flag.rawValue, .bool(true))])
            #expect(RosterParticipant(uid: "u", entry: entry)[keyPath: flag.property])
            #expect(!RosterParticipant(uid: "u", entry: JSONObject())[keyPath: flag.property])
        }
    }
}
