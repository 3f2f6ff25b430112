import JSONCoding

/// The roster as a client mirrors it: an object with the room's state under `room` and one entry per participant
/// under `participants`, keyed by uid. Patches are RFC 7386 JSON Merge Patches against this object; a `null`
/// removes an entry or a field, so fields without a value are left out instead of being `null`.
///
/// Time totals are not part of the view (they change every minute without an event); the `participants` in a
/// snapshot and the queries carry them.
struct RosterView: Equatable {
    var room: JSONObject
    var participants: [String: JSONObject]

    /// Renders `spec`'s view of `state` with `speaker` as the (held) active speaker.
    static func render(_ state: RoomState, spec: RosterViewSpec, speaker: String?, capacity: Int) -> RosterView {
        var participants: [String: JSONObject] = [:]
        for uid in Self.members(state, spec: spec, speaker: speaker) {
            participants[uid] = Self.entry(uid, in: state)
        }
        return RosterView(room: Self.roomEntry(state, speaker: speaker, capacity: capacity), participants: participants)
    }

    /// The uids in the view, in join order.
    static func members(_ state: RoomState, spec: RosterViewSpec, speaker: String?) -> [String] {
        var uids: [String]
        if spec.filter == .banned {
            uids = state.banned.sorted()
        } else {
            uids = []
            for uid in state.joinOrder {
                guard let participant = state.participants[uid], participant.isJoined,
                    spec.includes(participant, in: state, speaker: speaker)
                else { continue }
                uids.append(uid)
            }
        }
        if let limit = spec.limit, uids.count > limit { uids.removeLast(uids.count - limit) }
        return uids
    }

    /// One participant's entry (for the banned view, the uid and name only).
    static func entry(_ uid: String, in state: RoomState) -> JSONObject {
        guard let participant = state.participants[uid], participant.isJoined else {
            var object = JSONObject()
            object["uid"] = .string(uid)
            object["banned"] = .bool(true)
            if let name = state.participants[uid]?.name { object["name"] = .string(name) }
            return object
        }
        return participant.wireObject(.roster(isOperator: state.isOperator(uid)))
    }

    static func roomEntry(_ state: RoomState, speaker: String?, capacity: Int) -> JSONObject {
        var object = JSONObject()
        object["callType"] = .string(state.callType)
        if let startedAt = state.startedAt { object["startedAt"] = .int(startedAt) }
        if let initiator = state.initiator { object["initiator"] = .string(initiator) }
        object["recording"] = .bool(state.isRecording)
        if let audioMode = state.audioMode { object["audioMode"] = .string(audioMode) }
        if let speaker { object["activeSpeaker"] = .string(speaker) }
        object["capacity"] = .int(Int64(capacity))
        object["participantCount"] = .int(Int64(state.joinedParticipants.count))
        if let meeting = state.activeMeeting, case .object(var entry) = ServerMessages.meeting(meeting) {
            // A view holds no nulls: a null in a merge patch removes the member, so it could not be sent.
            if meeting.text == nil { entry["text"] = nil }
            object["activeMeeting"] = .object(entry)
        }
        return object
    }

    /// The view as one JSON object.
    var json: JSONValue {
        var participants = JSONObject()
        for uid in self.participants.keys.sorted(by: Canonical.precedes) {
            participants[uid] = .object(self.participants[uid]!)
        }
        return .object(JSONObject([("room", .object(self.room)), ("participants", .object(participants))]))
    }

    /// The order-independent checksum clients use to detect drift (see docs/PROTOCOL.md).
    var checksum: UInt64 {
        var sum = Canonical.hash(key: "room", .object(self.room))
        for (uid, entry) in self.participants { sum &+= Canonical.hash(key: uid, .object(entry)) }
        return sum
    }
}

/// Canonical JSON (keys sorted by their UTF-8 bytes, compact) and the checksum built on it.
enum Canonical {
    static func precedes(_ lhs: String, _ rhs: String) -> Bool {
        lhs.utf8.lexicographicallyPrecedes(rhs.utf8)
    }

    static func write(_ value: JSONValue, into output: inout [UInt8]) {
        switch value {
        case .object(let object):
            output.append(UInt8(ascii: "{"))
            for (index, key) in object.keys.sorted(by: Self.precedes).enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                JSONWriter.appendString(key, to: &output)
                output.append(UInt8(ascii: ":"))
                Self.write(object[key]!, into: &output)
            }
            output.append(UInt8(ascii: "}"))
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                Self.write(element, into: &output)
            }
            output.append(UInt8(ascii: "]"))
        default:
            JSONWriter.write(value, into: &output)
        }
    }

    /// FNV-1a (64-bit) of the key, a zero byte, and the value's canonical JSON.
    static func hash(key: String, _ value: JSONValue) -> UInt64 {
        var bytes = Array(key.utf8)
        bytes.append(0)
        Self.write(value, into: &bytes)
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return hash
    }

    static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}

/// RFC 7386 JSON Merge Patch: computing the smallest patch between two objects, and applying one.
enum MergePatch {
    /// The patch that turns `old` into `new` (nil when they are equal).
    static func diff(_ old: JSONObject, _ new: JSONObject) -> JSONObject? {
        var patch = JSONObject()
        for (key, oldValue) in old.entries where new[key] == nil {
            _ = oldValue
            patch[key] = .null
        }
        for (key, newValue) in new.entries {
            guard let oldValue = old[key] else {
                patch[key] = newValue
                continue
            }
            if oldValue == newValue { continue }
            if case .object(let oldObject) = oldValue, case .object(let newObject) = newValue {
                if let inner = Self.diff(oldObject, newObject) { patch[key] = .object(inner) }
            } else {
                patch[key] = newValue
            }
        }
        return patch.isEmpty ? nil : patch
    }

    /// Applies `patch` to `target` (RFC 7386 §2).
    static func apply(_ patch: JSONValue, to target: JSONValue) -> JSONValue {
        guard case .object(let patchObject) = patch else { return patch }
        var result: JSONObject
        if case .object(let object) = target { result = object } else { result = JSONObject() }
        for (key, value) in patchObject.entries {
            if case .null = value {
                result[key] = nil
            } else {
                result[key] = Self.apply(value, to: result[key] ?? .null)
            }
        }
        return .object(result)
    }
}
