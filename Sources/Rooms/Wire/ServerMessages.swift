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
                ("locked", .bool(state.isLocked)),
                ("admission", .bool(state.requiresAdmission)),
                ("waiting", .int(Int64(state.waiting.count))),
                ("activeSpeaker", state.shownSpeakerCandidate.map { .string($0) } ?? .null),
                ("capacity", .int(Int64(capacity))),
                ("operators", .array(state.listedOperators.map { .string($0) })),
                ("banned", .array(state.listedBanned.map { .string($0) })),
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
            ("type", .string(ServerMessageType.snapshot.rawValue)),
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

    /// `{"type":"resumed", ...}`: everything a resuming subscriber missed was sent.
    static func resumed(room: String, sequence: UInt64) -> JSONValue {
        .object(
            JSONObject([
                ("type", .string(ServerMessageType.resumed.rawValue)), ("room", .string(room)),
                ("seq", .int(Int64(sequence))),
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

    /// `{"type":"unsubscribed", ...}`: the gateway took the connection out of a room, and why.
    static func unsubscribed(room: String, reason: UnsubscribeReason) -> JSONValue {
        .object(
            JSONObject([
                ("type", .string(ServerMessageType.unsubscribed.rawValue)), ("room", .string(room)),
                ("reason", .string(reason.rawValue)),
            ]))
    }

    /// `{"type":"waiting", ...}`: the join `id` waits in the room's waiting room, at `position` (from 1), since
    /// `since`, until `expiresAt` at the latest (milliseconds); sent again when the position changes.
    static func waiting(id: JSONValue?, room: String, position: Int, since: Int64, expiresAt: Int64) -> JSONValue {
        var members: [(String, JSONValue)] = [("type", .string(ServerMessageType.waiting.rawValue))]
        if let id { members.append(("id", id)) }
        members += [
            ("room", .string(room)), ("position", .int(Int64(position))), ("waitingSince", .int(since)),
            ("expiresAt", .int(expiresAt)),
        ]
        return .object(JSONObject(members))
    }

    /// `{"type":"result", ...}`: the answer to a query, its members after `query`.
    static func result(id: JSONValue?, query: String, _ fields: [(String, JSONValue)]) -> JSONValue {
        var members: [(String, JSONValue)] = [("type", .string(ServerMessageType.result.rawValue))]
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
                ("unmute", .bool(rights.mayUnmute)),
                ("share", .bool(rights.mayShare)),
                ("meetings", .bool(rights.mayPublishMeetings)),
                ("bypassLock", .bool(rights.bypassesLock)),
                ("attendance", .bool(rights.mayReadAttendance)),
            ]))
    }

    /// `{"type":"pong"}`: the answer to the app-level `ping`.
    static func pong(id: JSONValue?) -> JSONValue {
        .object(JSONObject([("type", .string(ServerMessageType.pong.rawValue))] + (id.map { [("id", $0)] } ?? [])))
    }

    /// `{"type":"welcome", ...}`: authenticated as the token's user until it expires, with the rooms, groups and
    /// capabilities it gives.
    static func welcome(id: JSONValue?, claims: TokenClaims) -> JSONValue {
        var fields: [(String, JSONValue)] = [("type", .string(ServerMessageType.welcome.rawValue))]
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
        var fields: [(String, JSONValue)] = [("type", .string(ServerMessageType.ack.rawValue))]
        if let id { fields.append(("id", id)) }
        fields.append(contentsOf: extra)
        return .object(JSONObject(fields))
    }

    static func error(id: JSONValue?, _ error: GatewayError) -> JSONValue {
        var fields: [(String, JSONValue)] = [("type", .string(ServerMessageType.error.rawValue))]
        if let id { fields.append(("id", id)) }
        fields.append(("code", .string(error.code.rawValue)))
        fields.append(("message", .string(error.message)))
        return .object(JSONObject(fields))
    }
}
