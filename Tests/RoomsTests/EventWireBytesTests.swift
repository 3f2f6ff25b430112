import JSONCoding
import TestSupport
import Testing

@testable import Rooms

/// Event, ack and patch messages written straight into bytes are the bytes the JSON trees gave before.
struct EventWireBytesTests {
    /// A room's life through every kind of event, with participants in varied states (an avatar or none, a bot,
    /// attributes, restricted permissions, a second device, a left participant).
    static let events: [(actor: String?, reason: String?, event: RoomEvent)] = {
        var permissions = ParticipantPermissions()
        permissions.mayShare = false
        var restricted = ParticipantPermissions()
        restricted.mayUnmute = false
        restricted.restrictedUntil = 90_000
        return [
            (
                "u-1", nil,
                .participantJoined(
                    uid: "u-1", deviceID: "phone", name: "Ann \"A\" Lee", avatar: "https://a/1.png", role: .moderator,
                    callType: "video", attributes: ["team": "blue", "desk": "4\u{1}"])
            ),
            (
                "u-2", nil,
                .participantJoined(
                    uid: "u-2", deviceID: "web", name: "Bo", avatar: nil, role: .participant, callType: nil)
            ),
            (
                "bot-1", nil,
                .participantJoined(
                    uid: "bot-1", deviceID: "rec", name: "Recorder", avatar: nil, role: .bot, callType: nil,
                    hidden: true)
            ),
            (
                "u-2", nil,
                .participantJoined(
                    uid: "u-2", deviceID: "tablet", name: "Bo", avatar: nil, role: .participant, callType: nil)
            ),
            ("u-1", nil, .flagChanged(uid: "u-1", flag: .audioMuted, value: true)),
            ("u-1", nil, .flagChanged(uid: "u-1", flag: .handRaised, value: true)),
            ("u-1", nil, .flagChanged(uid: "u-1", flag: .handRaised, value: false)),
            ("u-1", "look here", .flagChanged(uid: "u-2", flag: .pinned, value: true)),
            ("u-2", nil, .mediaIDChanged(uid: "u-2", mid: "m-42")),
            ("u-2", nil, .activeSpeakerChanged(uid: "u-2")),
            ("bot-1", nil, .activeSpeakerChanged(uid: nil)),
            ("u-2", nil, .speakerStopped(uid: "u-2")),
            (nil, nil, .activeSpeakerShown(uid: "u-2")),
            (nil, nil, .activeSpeakerShown(uid: nil)),
            ("u-1", nil, .recordingChanged(isRecording: true)),
            ("u-1", nil, .recordingChanged(isRecording: false)),
            ("u-2", nil, .audioModeChanged(uid: "u-2", mode: "earpiece")),
            ("u-2", nil, .cameraFacingChanged(uid: "u-2", facing: "back")),
            ("u-1", nil, .operatorChanged(uid: "u-2", isOperator: true)),
            ("u-1", nil, .operatorChanged(uid: "u-2", isOperator: false)),
            ("u-1", "spam", .mutedByModerator(uid: "u-2")),
            ("u-1", nil, .hardMuted(uid: "u-2", durationMilliseconds: 60_000)),
            ("u-1", nil, .hardMuted(uid: "u-2", durationMilliseconds: nil)),
            ("u-1", nil, .permissionsChanged(uid: "u-2", permissions: permissions)),
            ("u-1", nil, .permissionsChanged(uid: "u-1", permissions: restricted)),
            ("u-1", nil, .unmuteRequested(uid: "u-2")),
            ("u-1", nil, .attributesChanged(uid: "u-2", changes: ["team": "red", "desk": nil, "é": "ü\n"])),
            ("u-1", nil, .metadataChanged(changes: ["topic": "Plans\t2027", "old": nil])),
            (
                "u-1", nil,
                .meetingMessage(
                    MeetingMessage(
                        sessionID: "s-1", callType: "audio", sender: "u-1", text: "join \\ now", isActive: true))
            ),
            (
                "u-1", nil,
                .meetingMessage(
                    MeetingMessage(sessionID: "s-1", callType: "video", sender: "u-1", text: nil, isActive: false))
            ),
            (nil, nil, .connectionLost(uid: "u-2", deviceID: "web")),
            (nil, nil, .participantConnectionClosed(uid: "u-2", deviceID: "tablet")),
            ("u-2", nil, .connectionRestored(uid: "u-2", deviceID: "web")),
            ("u-1", "bye", .banChanged(uid: "u-3", isBanned: true)),
            ("u-1", nil, .banChanged(uid: "u-3", isBanned: false)),
            (nil, nil, .participantLeft(uid: "u-2", deviceID: "web", reason: .timedOut)),
            ("u-2", nil, .participantLeft(uid: "u-2", deviceID: "tablet", reason: .left)),
            ("u-1", nil, .participantLeft(uid: "u-9", deviceID: "x", reason: .removed)),
            ("u-1", nil, .sessionEnded),
        ]
    }()

    @Test("every kind of event message is written byte for byte as its JSON tree was")
    func eventMessagesMatchTheTreeEncoding() {
        var state = RoomState(id: "room \"1\"")
        var kinds = Set<String>()
        for (index, item) in Self.events.enumerated() {
            let entry = RoomLogEntry(
                sequence: UInt64(index + 1), time: 1_700_000_000_000 + Int64(index) * 61_000, actor: item.actor,
                reason: item.reason, event: item.event)
            state.apply(entry)
            kinds.insert(ServerMessages.eventName(item.event))
            for recovered in [false, true] {
                let expected = JSONWriter.string(
                    PreviousWireEncoding.event(entry, room: state, recovered: recovered))
                let written = String(
                    decoding: ServerMessages.event(entry, room: state, recovered: recovered), as: UTF8.self)
                #expect(written == expected)
            }
            #expect(
                ServerMessages.eventName(item.event)
                    == PreviousWireEncoding.describe(item.event, room: state, time: 0).0)
        }
        #expect(kinds.count == 29)
    }

    @Test("ack and patch messages are written byte for byte as their JSON trees were")
    func ackAndPatchMessagesMatchTheTreeEncoding() {
        for id in [nil, JSONValue.int(-7), .string("req \"9\"")] {
            let expected = JSONWriter.string(
                ServerMessages.ack(
                    id: id, [("room", .string("r-1")), ("seq", .int(12)), ("changed", .bool(false))]))
            let written = ServerMessages.ack(id: id, room: "r-1", sequence: 12, changed: false)
            #expect(String(decoding: written, as: UTF8.self) == expected)
        }
        let patch: JSONObject = [
            "room": .object(["recording": true, "activeSpeaker": .null]),
            "participants": .object(["u-1": .object(["audioMuted": true]), "u-2": .null]),
        ]
        let expected = JSONWriter.string(
            PreviousWireEncoding.patch(room: "r", from: 3, to: 9, patch: patch, checksum: 0x00ab_cdef))
        let written = ServerMessages.patchMessage(room: "r", from: 3, to: 9, patch: patch, checksum: 0x00ab_cdef)
        #expect(String(decoding: written, as: UTF8.self) == expected)
    }
}
