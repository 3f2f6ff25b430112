import JSONCoding

@testable import Rooms

/// The event and patch messages as they were built before they were written straight into bytes: a JSON tree per
/// message, then `JSONWriter`. Kept as the reference the byte writers must match exactly.
enum PreviousWireEncoding {
    /// `{"type":"event", ...}`: one log entry, with the participant's full entry when it changed.
    static func event(_ entry: RoomLogEntry, room: RoomState, recovered: Bool = false) -> JSONValue {
        let (name, data) = Self.describe(entry.event, room: room, time: entry.time)
        var fields: [(String, JSONValue)] = [
            ("type", .string("event")),
            ("room", .string(room.id)),
            ("seq", .int(Int64(entry.sequence))),
            ("time", .int(entry.time)),
            ("event", .string(name)),
            ("actor", entry.event.namedActor(entry.actor, in: room).map { .string($0) } ?? .null),
        ]
        if let reason = entry.reason { fields.append(("reason", .string(reason))) }
        fields.append(("data", data))
        if recovered { fields.append(("recovered", .bool(true))) }
        return .object(JSONObject(fields))
    }

    /// The wire name of an event and its data, read against the state after the event.
    static func describe(_ event: RoomEvent, room: RoomState, time: Int64) -> (String, JSONValue) {
        func withParticipant(_ uid: String, _ extra: [(String, JSONValue)] = []) -> JSONValue {
            var fields: [(String, JSONValue)] = [("uid", .string(uid))]
            fields.append(contentsOf: extra)
            if let participant = room.participants[uid] {
                fields.append(("participant", ServerMessages.participant(participant, now: time)))
            }
            return .object(JSONObject(fields))
        }
        switch event {
        case .participantJoined(let uid, let deviceID, _, _, _, _, _, _):
            return ("participant.joined", withParticipant(uid, [("deviceID", .string(deviceID))]))
        case .participantLeft(let uid, let deviceID, let reason):
            let name = reason == .timedOut ? "session.timed_out" : "participant.left"
            return (
                name, withParticipant(uid, [("deviceID", .string(deviceID)), ("reason", .string(reason.rawValue))])
            )
        case .connectionLost(let uid, let deviceID):
            return ("session.connection_lost", withParticipant(uid, [("deviceID", .string(deviceID))]))
        case .participantConnectionClosed(let uid, let deviceID):
            return ("session.connection_closed", withParticipant(uid, [("deviceID", .string(deviceID))]))
        case .connectionRestored(let uid, let deviceID):
            return ("session.connection_restored", withParticipant(uid, [("deviceID", .string(deviceID))]))
        case .flagChanged(let uid, let flag, let value):
            let names = flag.eventNames
            return (value ? names.on : names.off, withParticipant(uid))
        case .mediaIDChanged(let uid, let mid):
            return ("participant.media_id_changed", withParticipant(uid, [("mid", .string(mid))]))
        case .activeSpeakerChanged(let uid):
            return (
                "participant.active_speaker_changed", .object(JSONObject([("uid", uid.map { .string($0) } ?? .null)]))
            )
        case .speakerStopped(let uid):
            return ("participant.speaker_stopped", .object(JSONObject([("uid", .string(uid))])))
        case .activeSpeakerShown(let uid):
            return (
                "participant.active_speaker_shown", .object(JSONObject([("uid", uid.map { .string($0) } ?? .null)]))
            )
        case .recordingChanged(let isRecording):
            return (isRecording ? "media.recording_started" : "media.recording_stopped", .object(JSONObject([])))
        case .audioModeChanged(let uid, let mode):
            return ("media.audio_mode_changed", withParticipant(uid, [("audioMode", .string(mode))]))
        case .cameraFacingChanged(let uid, let facing):
            return ("media.camera_facing_changed", withParticipant(uid, [("cameraFacing", .string(facing))]))
        case .operatorChanged(let uid, let isOperator):
            return (isOperator ? "moderation.promoted" : "moderation.demoted", withParticipant(uid))
        case .banChanged(let uid, let isBanned):
            return (
                isBanned ? "moderation.banned" : "moderation.unbanned", .object(JSONObject([("uid", .string(uid))]))
            )
        case .mutedByModerator(let uid):
            return ("moderation.muted", withParticipant(uid))
        case .attributesChanged(let uid, let changes):
            return (
                "participant.attributes_changed",
                withParticipant(uid, [("attributes", ServerMessages.changes(changes))])
            )
        case .metadataChanged(let changes):
            return ("room.metadata_changed", .object(JSONObject([("metadata", ServerMessages.changes(changes))])))
        case .permissionsChanged(let uid, let permissions):
            return (
                "moderation.permissions_changed",
                withParticipant(uid, [("permissions", .object(permissions.wireObject(nonDefaultOnly: false)))])
            )
        case .hardMuted(let uid, let duration):
            return (
                "moderation.muted",
                withParticipant(uid, [("hard", .bool(true)), ("durationMs", duration.map { .int($0) } ?? .null)])
            )
        case .unmuteRequested(let uid):
            return ("moderation.unmute_requested", .object(JSONObject([("uid", .string(uid))])))
        case .meetingMessage(let message):
            return ("meeting.message", ServerMessages.meeting(message))
        case .sessionEnded:
            return ("session.ended", .object(JSONObject([])))
        case .lockChanged(let isLocked):
            return (isLocked ? "room.locked" : "room.unlocked", .object(JSONObject([])))
        case .floorChanged(let limit, let queues):
            let limitValue: JSONValue = limit.map { .int(Int64($0)) } ?? .null
            return ("room.floor_changed", .object(JSONObject([("limit", limitValue), ("queue", .bool(queues))])))
        case .floorRequested(let uid):
            return ("room.floor_requested", .object(JSONObject([("uid", .string(uid))])))
        case .floorRequestWithdrawn(let uid):
            return ("room.floor_request_withdrawn", .object(JSONObject([("uid", .string(uid))])))
        case .roleChanged(let uid, let role):
            return ("participant.role_changed", withParticipant(uid, [("role", .string(role.rawValue))]))
        case .admissionChanged(let isRequired):
            return ("room.admission_changed", .object(JSONObject([("required", .bool(isRequired))])))
        case .waitingEntered(let uid, _, _, _, _):
            var fields: [(String, JSONValue)] = [("uid", .string(uid))]
            if let entry = room.waiting.first(where: { $0.uid == uid }) {
                fields.append(("entry", .object(entry.wireObject)))
            }
            return ("waiting.entered", .object(JSONObject(fields)))
        case .waitingAdmitted(let uid):
            return ("waiting.admitted", .object(JSONObject([("uid", .string(uid))])))
        case .waitingDenied(let uid):
            return ("waiting.denied", .object(JSONObject([("uid", .string(uid))])))
        case .waitingLeft(let uid, let reason):
            return (
                "waiting.left", .object(JSONObject([("uid", .string(uid)), ("reason", .string(reason.rawValue))]))
            )
        }
    }

    /// `{"type":"patch", ...}`: a merge patch that moves a roster view from `from` to `to`, and the view's checksum
    /// after it.
    static func patch(room: String, from: UInt64, to: UInt64, patch: JSONObject, checksum: UInt64) -> JSONValue {
        .object(
            JSONObject([
                ("type", .string("patch")), ("room", .string(room)), ("from", .int(Int64(from))),
                ("seq", .int(Int64(to))), ("patch", .object(patch)),
                ("checksum", .string(RosterChecksum.hex(checksum))),
            ]))
    }

}
