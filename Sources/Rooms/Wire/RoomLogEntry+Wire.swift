import JSONCoding

/// The form in which a cluster stores and passes log entries between nodes: one JSON object per entry, with the
/// event under `event` in `RoomEvent`'s wire form. Every node decodes the same entries and applies them with the
/// same reducer, so their rooms agree.
extension RoomLogEntry {
    /// The entry as a JSON object: `seq`, `time`, `actor`, `reason` and `event`.
    public var wireValue: JSONValue {
        .object(
            JSONObject([
                ("seq", .int(Int64(self.sequence))), ("time", .int(self.time)),
                ("actor", self.actor.map { .string($0) } ?? .null),
                ("reason", self.reason.map { .string($0) } ?? .null),
                ("event", self.event.wireValue),
            ]))
    }

    /// Reads an entry written by `wireValue` (members in any order; `actor` and `reason` may be missing).
    ///
    /// - Parameter value: the JSON object.
    /// - Throws: `RoomLogWireError` naming what is missing or wrong.
    public init(wireValue value: JSONValue) throws(RoomLogWireError) {
        guard let sequence = value["seq"]?.intValue, sequence > 0 else { throw RoomLogWireError("entry without a seq") }
        guard let time = value["time"]?.intValue else { throw RoomLogWireError("entry without a time") }
        guard let event = value["event"] else { throw RoomLogWireError("entry without an event") }
        self.init(
            sequence: UInt64(sequence), time: time, actor: value["actor"]?.stringValue,
            reason: value["reason"]?.stringValue, event: try RoomEvent(wireValue: event)
        )
    }
}

/// A stored log entry, event or checkpoint that cannot be read: written by an incompatible version, or damaged.
public struct RoomLogWireError: Error, Hashable, Sendable, CustomStringConvertible {
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}

extension RoomEvent {
    /// The event as a JSON object with its type under `t`; the other members depend on the type.
    public var wireValue: JSONValue {
        func object(_ type: String, _ members: [(String, JSONValue)]) -> JSONValue {
            .object(JSONObject([("t", .string(type))] + members))
        }
        func optional(_ text: String?) -> JSONValue { text.map { .string($0) } ?? .null }
        switch self {
        case .participantJoined(
            let uid, let deviceID, let name, let avatar, let role, let callType, let attributes, let hidden):
            var members: [(String, JSONValue)] = [
                ("uid", .string(uid)), ("device", .string(deviceID)), ("name", .string(name)),
                ("avatar", optional(avatar)), ("role", .string(role.rawValue)), ("callType", optional(callType)),
            ]
            if !attributes.isEmpty { members.append(("attrs", ServerMessages.strings(attributes))) }
            if hidden { members.append(("hidden", .bool(true))) }
            return object("joined", members)
        case .attributesChanged(let uid, let changes):
            return object("attrs", [("uid", .string(uid)), ("changes", ServerMessages.changes(changes))])
        case .metadataChanged(let changes):
            return object("metadata", [("changes", ServerMessages.changes(changes))])
        case .permissionsChanged(let uid, let permissions):
            return object(
                "permissions",
                [("uid", .string(uid)), ("value", .object(permissions.wireObject(nonDefaultOnly: false)))])
        case .unmuteRequested(let uid):
            return object("ask_unmute", [("uid", .string(uid))])
        case .hardMuted(let uid, let duration):
            return object("hard_mute", [("uid", .string(uid)), ("durationMs", duration.map { .int($0) } ?? .null)])
        case .participantLeft(let uid, let deviceID, let reason):
            return object(
                "left", [("uid", .string(uid)), ("device", .string(deviceID)), ("reason", .string(reason.rawValue))])
        case .connectionLost(let uid, let deviceID):
            return object("lost", [("uid", .string(uid)), ("device", .string(deviceID))])
        case .participantConnectionClosed(let uid, let deviceID):
            return object("closed", [("uid", .string(uid)), ("device", .string(deviceID))])
        case .connectionRestored(let uid, let deviceID):
            return object("restored", [("uid", .string(uid)), ("device", .string(deviceID))])
        case .flagChanged(let uid, let flag, let value):
            return object("flag", [("uid", .string(uid)), ("flag", .string(flag.rawValue)), ("value", .bool(value))])
        case .mediaIDChanged(let uid, let mid):
            return object("mid", [("uid", .string(uid)), ("mid", .string(mid))])
        case .activeSpeakerChanged(let uid):
            return object("speaker", [("uid", optional(uid))])
        case .activeSpeakerShown(let uid):
            return object("speaker_shown", [("uid", optional(uid))])
        case .recordingChanged(let isRecording):
            return object("recording", [("value", .bool(isRecording))])
        case .speakerStopped(let uid):
            return object("speaker_stopped", [("uid", .string(uid))])
        case .audioModeChanged(let uid, let mode):
            return object("audio_mode", [("uid", .string(uid)), ("mode", .string(mode))])
        case .cameraFacingChanged(let uid, let facing):
            return object("facing", [("uid", .string(uid)), ("facing", .string(facing))])
        case .operatorChanged(let uid, let isOperator):
            return object("operator", [("uid", .string(uid)), ("value", .bool(isOperator))])
        case .roleChanged(let uid, let role):
            return object("role", [("uid", .string(uid)), ("role", .string(role.rawValue))])
        case .banChanged(let uid, let isBanned):
            return object("ban", [("uid", .string(uid)), ("value", .bool(isBanned))])
        case .mutedByModerator(let uid):
            return object("moderator_mute", [("uid", .string(uid))])
        case .meetingMessage(let message):
            return object(
                "meeting",
                [
                    ("session", .string(message.sessionID)), ("callType", .string(message.callType)),
                    ("sender", .string(message.sender)), ("text", optional(message.text)),
                    ("active", .bool(message.isActive)),
                ])
        case .sessionEnded:
            return object("session_ended", [])
        case .lockChanged(let isLocked):
            return object("lock", [("value", .bool(isLocked))])
        case .floorChanged(let limit, let queues):
            var fields: [(String, JSONValue)] = [("limit", limit.map { .int(Int64($0)) } ?? .null)]
            if queues { fields.append(("queue", .bool(true))) }
            return object("floor", fields)
        case .floorRequested(let uid):
            return object("floor_request", [("uid", .string(uid))])
        case .floorRequestWithdrawn(let uid):
            return object("floor_withdraw", [("uid", .string(uid))])
        case .admissionChanged(let isRequired):
            return object("admission", [("value", .bool(isRequired))])
        case .waitingEntered(let uid, let name, let avatar, let role, let attributes):
            var fields: [(String, JSONValue)] = [
                ("uid", .string(uid)), ("name", .string(name)), ("avatar", optional(avatar)),
                ("role", .string(role.rawValue)),
            ]
            if !attributes.isEmpty { fields.append(("attrs", ServerMessages.strings(attributes))) }
            return object("waiting", fields)
        case .waitingAdmitted(let uid):
            return object("admitted", [("uid", .string(uid))])
        case .waitingDenied(let uid):
            return object("denied", [("uid", .string(uid))])
        case .waitingLeft(let uid, let reason):
            return object("waiting_left", [("uid", .string(uid)), ("reason", .string(reason.rawValue))])
        }
    }

    /// Reads an event written by `wireValue`.
    ///
    /// - Parameter value: the JSON object.
    /// - Throws: `RoomLogWireError` when the type is unknown or a member is missing.
    public init(wireValue value: JSONValue) throws(RoomLogWireError) {
        guard let type = value["t"]?.stringValue else { throw RoomLogWireError("event without a type") }
        func string(_ key: String) throws(RoomLogWireError) -> String {
            guard let text = value[key]?.stringValue else { throw RoomLogWireError("event '\(type)' without '\(key)'") }
            return text
        }
        func bool(_ key: String) throws(RoomLogWireError) -> Bool {
            guard let flag = value[key]?.boolValue else { throw RoomLogWireError("event '\(type)' without '\(key)'") }
            return flag
        }
        func optional(_ key: String) -> String? { value[key]?.stringValue }
        /// The token's attributes a join or an arrival carries (`attrs`), none when absent.
        func attributes() -> [String: String] {
            var attributes: [String: String] = [:]
            for (key, item) in value["attrs"]?.objectValue?.entries ?? [] {
                if let text = item.stringValue { attributes[key] = text }
            }
            return attributes
        }
        func changes() throws(RoomLogWireError) -> [String: String?] {
            guard let object = value["changes"]?.objectValue else {
                throw RoomLogWireError("event '\(type)' without 'changes'")
            }
            var changes: [String: String?] = [:]
            for (key, item) in object.entries { changes.updateValue(item.stringValue, forKey: key) }
            return changes
        }
        switch type {
        case "joined":
            guard let role = ParticipantRole(rawValue: try string("role")) else {
                throw RoomLogWireError("unknown role")
            }
            self = .participantJoined(
                uid: try string("uid"), deviceID: try string("device"), name: try string("name"),
                avatar: optional("avatar"), role: role, callType: optional("callType"), attributes: attributes(),
                hidden: value["hidden"]?.boolValue ?? false)
        case "attrs": self = .attributesChanged(uid: try string("uid"), changes: try changes())
        case "metadata": self = .metadataChanged(changes: try changes())
        case "permissions":
            guard let permissions = value["value"]?.objectValue else {
                throw RoomLogWireError("event 'permissions' without 'value'")
            }
            self = .permissionsChanged(
                uid: try string("uid"), permissions: ParticipantPermissions(wireObject: permissions))
        case "ask_unmute": self = .unmuteRequested(uid: try string("uid"))
        case "hard_mute": self = .hardMuted(uid: try string("uid"), durationMilliseconds: value["durationMs"]?.intValue)
        case "left":
            guard let reason = LeaveReason(rawValue: try string("reason")) else {
                throw RoomLogWireError("unknown leave reason")
            }
            self = .participantLeft(uid: try string("uid"), deviceID: try string("device"), reason: reason)
        case "lost": self = .connectionLost(uid: try string("uid"), deviceID: try string("device"))
        case "closed": self = .participantConnectionClosed(uid: try string("uid"), deviceID: try string("device"))
        case "restored": self = .connectionRestored(uid: try string("uid"), deviceID: try string("device"))
        case "flag":
            guard let flag = ParticipantFlag(rawValue: try string("flag")) else {
                throw RoomLogWireError("unknown flag")
            }
            self = .flagChanged(uid: try string("uid"), flag: flag, value: try bool("value"))
        case "mid": self = .mediaIDChanged(uid: try string("uid"), mid: try string("mid"))
        case "speaker": self = .activeSpeakerChanged(uid: optional("uid"))
        case "speaker_shown": self = .activeSpeakerShown(uid: optional("uid"))
        case "recording": self = .recordingChanged(isRecording: try bool("value"))
        case "speaker_stopped": self = .speakerStopped(uid: try string("uid"))
        // Entries written when the audio mode was the room's carry no uid: they change no participant.
        case "audio_mode": self = .audioModeChanged(uid: optional("uid") ?? "", mode: try string("mode"))
        case "facing": self = .cameraFacingChanged(uid: try string("uid"), facing: try string("facing"))
        case "operator": self = .operatorChanged(uid: try string("uid"), isOperator: try bool("value"))
        case "role":
            guard let role = ParticipantRole(rawValue: try string("role")) else {
                throw RoomLogWireError("unknown role")
            }
            self = .roleChanged(uid: try string("uid"), role: role)
        case "ban": self = .banChanged(uid: try string("uid"), isBanned: try bool("value"))
        case "moderator_mute": self = .mutedByModerator(uid: try string("uid"))
        case "meeting":
            self = .meetingMessage(
                MeetingMessage(
                    sessionID: try string("session"), callType: try string("callType"), sender: try string("sender"),
                    text: optional("text"), isActive: try bool("active")
                ))
        case "session_ended": self = .sessionEnded
        case "lock": self = .lockChanged(isLocked: try bool("value"))
        case "floor":
            self = .floorChanged(
                limit: value["limit"]?.intValue.map { Int($0) }, queues: value["queue"]?.boolValue ?? false)
        case "floor_request": self = .floorRequested(uid: try string("uid"))
        case "floor_withdraw": self = .floorRequestWithdrawn(uid: try string("uid"))
        case "admission": self = .admissionChanged(isRequired: try bool("value"))
        case "waiting":
            guard let role = ParticipantRole(rawValue: try string("role")) else {
                throw RoomLogWireError("unknown role")
            }
            self = .waitingEntered(
                uid: try string("uid"), name: try string("name"), avatar: optional("avatar"), role: role,
                attributes: attributes())
        case "admitted": self = .waitingAdmitted(uid: try string("uid"))
        case "denied": self = .waitingDenied(uid: try string("uid"))
        case "waiting_left":
            guard let reason = WaitingLeaveReason(rawValue: try string("reason")) else {
                throw RoomLogWireError("unknown waiting room leave reason")
            }
            self = .waitingLeft(uid: try string("uid"), reason: reason)
        default: throw RoomLogWireError("unknown event type '\(type)'")
        }
    }
}
