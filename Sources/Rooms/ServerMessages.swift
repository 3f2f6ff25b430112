import JSONCoding
import TokenAuth

/// Builds the JSON of every server-to-client message (see docs/PROTOCOL.md).
enum ServerMessages {
    /// A participant's entry in snapshots, events and queries (`Participant.WireForm.snapshot`).
    static func participant(_ participant: Participant, now: Int64) -> JSONValue {
        .object(participant.wireObject(.snapshot(now: now)))
    }

    /// The first time after `now` at which one of the minute totals `participant(_:now:)` reports changes: a
    /// joined participant's call duration always counts, audio while unmuted, video while not paused. Int64.max
    /// when nobody is in the call.
    static func nextTotalsChange(_ state: RoomState, after now: Int64) -> Int64 {
        var next = Int64.max
        for participant in state.participants.values where participant.isJoined {
            var counted = participant
            counted.account(until: now)
            var running = [counted.durationMilliseconds]
            if !counted.audioMuted { running.append(counted.audioMilliseconds) }
            if !counted.videoPaused { running.append(counted.videoMilliseconds) }
            for total in running {
                next = min(next, now + 60_000 - total % 60_000)
            }
        }
        return next
    }

    static func meeting(_ message: MeetingMessage) -> JSONValue {
        .object(
            JSONObject([
                ("sessionId", .string(message.sessionID)),
                ("callType", .string(message.callType)),
                ("sender", .string(message.sender)),
                ("active", .bool(message.isActive)),
                ("text", message.text.map { .string($0) } ?? .null),
            ])
        )
    }

    static func roomState(_ state: RoomState, capacity: Int) -> JSONValue {
        .object(
            JSONObject([
                ("id", .string(state.id)),
                ("callType", .string(state.callType)),
                ("startedAt", state.startedAt.map { .int($0) } ?? .null),
                ("initiator", state.initiator.map { .string($0) } ?? .null),
                ("recording", .bool(state.isRecording)),
                ("activeSpeaker", state.activeSpeaker.map { .string($0) } ?? .null),
                ("capacity", .int(Int64(capacity))),
                ("operators", .array(state.operators.sorted().map { .string($0) })),
                ("banned", .array(state.banned.sorted().map { .string($0) })),
                ("activeMeeting", state.activeMeeting.map(Self.meeting) ?? .null),
                ("metadata", Self.strings(state.metadata)),
            ])
        )
    }

    /// A roster view as a snapshot carries it: where it is, which view, the view itself and its checksum.
    struct RosterSnapshot {
        /// The sequence number the view is at (the snapshot's `seq`).
        var sequence: UInt64
        var spec: RosterViewSpec
        /// The view object patches apply to.
        var view: JSONValue
        var checksum: UInt64
        /// Sent because the subscriber fell behind.
        var resync: Bool
    }

    /// `{"type":"snapshot", ...}`: the whole room on subscribe, what an event-only SDK cannot give a late joiner;
    /// with a roster view, the object later patches apply to.
    static func snapshot(
        _ state: RoomState,
        capacity: Int,
        now: Int64,
        recovered: Bool?,
        includeParticipants: Bool = true,
        roster: RosterSnapshot? = nil
    ) -> JSONValue {
        var fields: [(String, JSONValue)] = [
            ("type", .string("snapshot")),
            ("room", .string(state.id)),
            ("seq", .int(Int64(roster?.sequence ?? state.sequence))),
            ("state", Self.roomState(state, capacity: capacity)),
        ]
        if includeParticipants {
            let participants = state.joinOrder.compactMap { state.participants[$0] }.filter { !$0.permissions.hidden }
            fields.append(("participants", .array(participants.map { Self.participant($0, now: now) })))
        }
        if let recovered { fields.append(("recovered", .bool(recovered))) }
        if let roster {
            fields.append(("view", Self.viewSpec(roster.spec)))
            fields.append(("roster", roster.view))
            fields.append(("checksum", .string(RosterChecksum.hex(roster.checksum))))
            if roster.resync { fields.append(("resync", .bool(true))) }
        }
        return .object(JSONObject(fields))
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

    /// `{"type":"resumed", ...}`: everything a resuming subscriber missed was sent.
    static func resumed(room: String, sequence: UInt64) -> JSONValue {
        .object(
            JSONObject([
                ("type", .string("resumed")), ("room", .string(room)), ("seq", .int(Int64(sequence))),
                ("recovered", .bool(true)),
            ]))
    }

    /// A stored patch or event message with `"recovered":true` added before its closing brace.
    static func markedRecovered(_ message: [UInt8]) -> [UInt8] {
        var bytes = message
        bytes.removeLast()
        bytes.append(contentsOf: #","recovered":true}"#.utf8)
        return bytes
    }

    /// `{"type":"result", ...}`: the answer to a query, its members after `query`.
    static func result(id: JSONValue?, query: String, _ fields: [(String, JSONValue)]) -> JSONValue {
        var members: [(String, JSONValue)] = [("type", .string("result"))]
        if let id { members.append(("id", id)) }
        members.append(("query", .string(query)))
        members.append(contentsOf: fields)
        return .object(JSONObject(members))
    }

    /// A join's `rights`: what the user may do in the room.
    static func rights(_ rights: RoomRights) -> JSONValue {
        .object(
            JSONObject([
                ("role", rights.role.map { .string($0.rawValue) } ?? .null),
                ("operator", .bool(rights.isOperator)),
                ("actions", .array(rights.actions.map { .string($0.rawValue) })),
                ("record", .bool(rights.mayRecord)),
                ("speakerForOthers", .bool(rights.mayReportAnySpeaker)),
                ("attributesForOthers", .bool(rights.maySetAnyAttributes)),
                ("metadata", .bool(rights.maySetMetadata)),
                ("permissions", .bool(rights.maySetPermissions)),
                ("unmute", .bool(rights.permissions.mayUnmute)),
                ("share", .bool(rights.permissions.mayShare)),
                ("meetings", .bool(rights.permissions.mayPublishMeetings)),
            ]))
    }

    /// `{"type":"pong"}`: the answer to the app-level `ping`.
    static func pong(id: JSONValue?) -> JSONValue {
        .object(JSONObject([("type", .string("pong"))] + (id.map { [("id", $0)] } ?? [])))
    }

    /// `{"type":"welcome", ...}`: authenticated as the token's user until it expires, with the rooms, groups and
    /// capabilities it gives.
    static func welcome(id: JSONValue?, claims: TokenClaims) -> JSONValue {
        var fields: [(String, JSONValue)] = [("type", .string("welcome"))]
        if let id { fields.append(("id", id)) }
        fields.append(("uid", .string(claims.subject)))
        fields.append(("name", .string(claims.name ?? claims.subject)))
        fields.append(("expiresAt", .int(claims.expiresAt)))
        let rooms = claims.rooms.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.string($0.value.rawValue)) }
        fields.append(("rooms", .object(JSONObject(rooms))))
        fields.append(("groups", .array(claims.groups.map { .string($0) })))
        fields.append(("capabilities", .array(claims.capabilities.map { .string($0) })))
        return .object(JSONObject(fields))
    }

    /// `{"type":"event", ...}`: one log entry, with the participant's full entry when it changed.
    static func event(_ entry: RoomLogEntry, room: RoomState, recovered: Bool = false) -> JSONValue {
        let (name, data) = Self.describe(entry.event, room: room, time: entry.time)
        var fields: [(String, JSONValue)] = [
            ("type", .string("event")),
            ("room", .string(room.id)),
            ("seq", .int(Int64(entry.sequence))),
            ("time", .int(entry.time)),
            ("event", .string(name)),
            ("actor", entry.actor.map { .string($0) } ?? .null),
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
                fields.append(("participant", Self.participant(participant, now: time)))
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
            return ("participant.attributes_changed", withParticipant(uid, [("attributes", Self.changes(changes))]))
        case .metadataChanged(let changes):
            return ("room.metadata_changed", .object(JSONObject([("metadata", Self.changes(changes))])))
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
            return ("meeting.message", Self.meeting(message))
        case .sessionEnded:
            return ("session.ended", .object(JSONObject([])))
        }
    }

    /// Key/value changes as a merge patch: the keys set, and `null` for those removed, in key order.
    static func changes(_ changes: [String: String?]) -> JSONValue {
        let members = changes.sorted { $0.key < $1.key }.map {
            ($0.key, $0.value.map { JSONValue.string($0) } ?? .null)
        }
        return .object(JSONObject(uniqueKeysWithValues: members))
    }

    /// Keys and values as a JSON object, in key order.
    static func strings(_ values: [String: String]) -> JSONValue {
        .object(JSONObject(uniqueKeysWithValues: values.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) }))
    }

    static func viewSpec(_ spec: RosterViewSpec) -> JSONValue {
        var fields: [(String, JSONValue)] = [("filter", .string(spec.filter.rawValue))]
        if let query = spec.query {
            fields.append(("query", .string(query)))
            fields.append(("match", .string(spec.match.rawValue)))
        }
        if let sort = spec.sort { fields.append(("sort", .string(sort.rawValue))) }
        if let offset = spec.offset { fields.append(("offset", .int(Int64(offset)))) }
        if let limit = spec.limit { fields.append(("limit", .int(Int64(limit)))) }
        return .object(JSONObject(fields))
    }

    static func ack(id: JSONValue?, _ extra: [(String, JSONValue)] = []) -> JSONValue {
        var fields: [(String, JSONValue)] = [("type", .string("ack"))]
        if let id { fields.append(("id", id)) }
        fields.append(contentsOf: extra)
        return .object(JSONObject(fields))
    }

    static func error(id: JSONValue?, _ error: GatewayError) -> JSONValue {
        var fields: [(String, JSONValue)] = [("type", .string("error"))]
        if let id { fields.append(("id", id)) }
        fields.append(("code", .string(error.code)))
        fields.append(("message", .string(error.message)))
        return .object(JSONObject(fields))
    }
}
