import JSONCoding

/// The event message, written straight into bytes: the one message every change to a room sends to its
/// subscribers, so no JSON tree is built for it.
extension ServerMessages {
    /// `{"type":"event", ...}`: one log entry, with the participant's full entry when it changed, as JSON text.
    ///
    /// - Parameters:
    ///   - entry: the entry.
    ///   - room: the room's state right after the entry.
    ///   - recovered: whether the message is sent again to a resuming subscriber.
    static func event(_ entry: RoomLogEntry, room: RoomState, recovered: Bool = false) -> [UInt8] {
        // An event with the participant's entry is several hundred bytes: room for it up front, not regrown.
        var writer = JSONByteWriter(capacity: entry.event.changedParticipant == nil ? 192 : 768)
        writer.beginObject()
        writer.key(EventKeys.type)
        writer.string(ServerMessageType.event.rawValue)
        writer.member(EventKeys.room, string: room.id)
        writer.member(EventKeys.seq, int: Int64(entry.sequence))
        writer.member(EventKeys.time, int: entry.time)
        writer.member(EventKeys.event, string: Self.eventName(entry.event))
        writer.member(EventKeys.actor, optionalString: entry.event.namedActor(entry.actor, in: room))
        if let reason = entry.reason { writer.member("reason", string: reason) }
        writer.key(EventKeys.data)
        writer.beginObject()
        Self.writeEventData(entry.event, room: room, time: entry.time, into: &writer)
        writer.endObject()
        if recovered { writer.member("recovered", bool: true) }
        writer.endObject()
        return writer.bytes
    }

    /// The wire name of an event.
    static func eventName(_ event: RoomEvent) -> String {
        switch event {
        case .participantJoined: return "participant.joined"
        case .participantLeft(_, _, let reason): return reason == .timedOut ? "session.timed_out" : "participant.left"
        case .connectionLost: return "session.connection_lost"
        case .participantConnectionClosed: return "session.connection_closed"
        case .connectionRestored: return "session.connection_restored"
        case .flagChanged(_, let flag, let value): return value ? flag.eventNames.on : flag.eventNames.off
        case .mediaIDChanged: return "participant.media_id_changed"
        case .activeSpeakerChanged: return "participant.active_speaker_changed"
        case .speakerStopped: return "participant.speaker_stopped"
        case .activeSpeakerShown: return "participant.active_speaker_shown"
        case .recordingChanged(let isRecording):
            return isRecording ? "media.recording_started" : "media.recording_stopped"
        case .audioModeChanged: return "media.audio_mode_changed"
        case .cameraFacingChanged: return "media.camera_facing_changed"
        case .operatorChanged(_, let isOperator): return isOperator ? "moderation.promoted" : "moderation.demoted"
        case .roleChanged: return "participant.role_changed"
        case .banChanged(_, let isBanned): return isBanned ? "moderation.banned" : "moderation.unbanned"
        case .mutedByModerator, .hardMuted: return "moderation.muted"
        case .attributesChanged: return "participant.attributes_changed"
        case .metadataChanged: return "room.metadata_changed"
        case .permissionsChanged: return "moderation.permissions_changed"
        case .unmuteRequested: return "moderation.unmute_requested"
        case .meetingMessage: return "meeting.message"
        case .sessionEnded: return "session.ended"
        case .lockChanged(let isLocked): return isLocked ? "room.locked" : "room.unlocked"
        case .floorChanged: return "room.floor_changed"
        case .floorRequested: return "room.floor_requested"
        case .floorRequestWithdrawn: return "room.floor_request_withdrawn"
        case .admissionChanged: return "room.admission_changed"
        case .waitingEntered: return "waiting.entered"
        case .waitingAdmitted: return "waiting.admitted"
        case .waitingDenied: return "waiting.denied"
        case .waitingLeft: return "waiting.left"
        }
    }

    /// The members of an event's `data`, read against the state after the event: the participant's uid, what
    /// changed, and the participant's full entry (`participant`) when the event is about one still in the room.
    private static func writeEventData(
        _ event: RoomEvent,
        room: RoomState,
        time: Int64,
        into writer: inout JSONByteWriter
    ) {
        func participant(_ uid: String, into writer: inout JSONByteWriter) {
            guard let participant = room.participants[uid] else { return }
            writer.key(EventKeys.participant)
            writer.beginObject()
            participant.writeEventEntry(now: time, into: &writer)
            writer.endObject()
        }
        switch event {
        case .participantJoined(let uid, let deviceID, _, _, _, _, _, _),
            .connectionLost(let uid, let deviceID), .participantConnectionClosed(let uid, let deviceID),
            .connectionRestored(let uid, let deviceID):
            writer.member(EventKeys.uid, string: uid)
            writer.member(EventKeys.deviceID, string: deviceID)
            participant(uid, into: &writer)
        case .participantLeft(let uid, let deviceID, let reason):
            writer.member(EventKeys.uid, string: uid)
            writer.member(EventKeys.deviceID, string: deviceID)
            writer.member("reason", string: reason.rawValue)
            participant(uid, into: &writer)
        case .flagChanged(let uid, _, _), .operatorChanged(let uid, _), .mutedByModerator(let uid):
            writer.member(EventKeys.uid, string: uid)
            participant(uid, into: &writer)
        case .mediaIDChanged(let uid, let mid):
            writer.member(EventKeys.uid, string: uid)
            writer.member(EventKeys.mid, string: mid)
            participant(uid, into: &writer)
        case .activeSpeakerChanged(let uid), .activeSpeakerShown(let uid):
            writer.member("uid", optionalString: uid)
        case .speakerStopped(let uid), .banChanged(let uid, _), .unmuteRequested(let uid):
            writer.member(EventKeys.uid, string: uid)
        case .recordingChanged, .sessionEnded, .lockChanged:
            break
        case .floorChanged(let limit, let queues):
            writer.member("limit", limit.map { .int(Int64($0)) } ?? .null)
            writer.member("queue", bool: queues)
        case .floorRequested(let uid), .floorRequestWithdrawn(let uid), .waitingAdmitted(let uid),
            .waitingDenied(let uid):
            writer.member(EventKeys.uid, string: uid)
        case .admissionChanged(let isRequired):
            writer.member("required", bool: isRequired)
        case .waitingEntered(let uid, _, _, _, _):
            writer.member(EventKeys.uid, string: uid)
            if let entry = room.waiting.first(where: { $0.uid == uid }) {
                writer.member("entry", .object(entry.wireObject))
            }
        case .waitingLeft(let uid, let reason):
            writer.member(EventKeys.uid, string: uid)
            writer.member("reason", string: reason.rawValue)
        case .audioModeChanged(let uid, let mode):
            writer.member(EventKeys.uid, string: uid)
            writer.member("audioMode", string: mode)
            participant(uid, into: &writer)
        case .cameraFacingChanged(let uid, let facing):
            writer.member(EventKeys.uid, string: uid)
            writer.member("cameraFacing", string: facing)
            participant(uid, into: &writer)
        case .attributesChanged(let uid, let changes):
            writer.member(EventKeys.uid, string: uid)
            writer.member("attributes", Self.changes(changes))
            participant(uid, into: &writer)
        case .metadataChanged(let changes):
            writer.member("metadata", Self.changes(changes))
        case .permissionsChanged(let uid, let permissions):
            writer.member(EventKeys.uid, string: uid)
            writer.member("permissions", .object(permissions.wireObject(nonDefaultOnly: false)))
            participant(uid, into: &writer)
        case .hardMuted(let uid, let duration):
            writer.member(EventKeys.uid, string: uid)
            writer.member("hard", bool: true)
            writer.member("durationMs", duration.map { .int($0) } ?? .null)
            participant(uid, into: &writer)
        case .roleChanged(let uid, let role):
            writer.member(EventKeys.uid, string: uid)
            writer.member("role", string: role.rawValue)
            participant(uid, into: &writer)
        case .meetingMessage(let message):
            writer.member(EventKeys.sessionId, string: message.sessionID)
            writer.member(EventKeys.callType, string: message.callType)
            writer.member(EventKeys.sender, string: message.sender)
            writer.member(EventKeys.active, bool: message.isActive)
            writer.member(EventKeys.text, optionalString: message.text)
        }
    }

    /// `{"type":"ack", ...}` for a change to a room, as JSON text: the request's id, the room, its sequence number
    /// and whether anything changed.
    static func ack(id: JSONValue?, room: String, sequence: UInt64, changed: Bool) -> [UInt8] {
        var writer = JSONByteWriter(capacity: 64)
        writer.beginObject()
        writer.key(EventKeys.type)
        writer.string(ServerMessageType.ack.rawValue)
        if let id { writer.member(EventKeys.id, id) }
        writer.member(EventKeys.room, string: room)
        writer.member(EventKeys.seq, int: Int64(sequence))
        writer.member(EventKeys.changed, bool: changed)
        writer.endObject()
        return writer.bytes
    }

    /// `{"type":"patch", ...}` as JSON text: a merge patch that moves a roster view from `from` to `to`, and the
    /// view's checksum after it.
    static func patchMessage(room: String, from: UInt64, to: UInt64, patch: JSONObject, checksum: UInt64) -> [UInt8] {
        var writer = JSONByteWriter(capacity: 256)
        writer.beginObject()
        writer.key(EventKeys.type)
        writer.string(ServerMessageType.patch.rawValue)
        writer.member(EventKeys.room, string: room)
        writer.member(EventKeys.from, int: Int64(from))
        writer.member(EventKeys.seq, int: Int64(to))
        writer.member(EventKeys.patch, .object(patch))
        writer.member(EventKeys.checksum, hexDigits: checksum)
        writer.endObject()
        return writer.bytes
    }
}

/// The names every event message carries, encoded once.
private enum EventKeys {
    static let type = JSONEncodedKey("type")
    static let room = JSONEncodedKey("room")
    static let seq = JSONEncodedKey("seq")
    static let time = JSONEncodedKey("time")
    static let event = JSONEncodedKey("event")
    static let actor = JSONEncodedKey("actor")
    static let data = JSONEncodedKey("data")
    static let uid = JSONEncodedKey("uid")
    static let deviceID = JSONEncodedKey("deviceID")
    static let mid = JSONEncodedKey("mid")
    static let participant = JSONEncodedKey("participant")
    static let from = JSONEncodedKey("from")
    static let patch = JSONEncodedKey("patch")
    static let checksum = JSONEncodedKey("checksum")
    static let sessionId = JSONEncodedKey("sessionId")
    static let callType = JSONEncodedKey("callType")
    static let sender = JSONEncodedKey("sender")
    static let active = JSONEncodedKey("active")
    static let text = JSONEncodedKey("text")
    static let id = JSONEncodedKey("id")
    static let changed = JSONEncodedKey("changed")
}
