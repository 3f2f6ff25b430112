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
                guard let participant = state.participants[uid], participant.isJoined, !participant.permissions.hidden,
                    spec.includes(participant, in: state, speaker: speaker)
                else { continue }
                uids.append(uid)
            }
            if spec.filter == .raisedHands {
                // The hand queue: whose hand went up first (join order among hands raised at the same moment).
                uids.sort { lhs, rhs in
                    let left = state.participants[lhs]!
                    let right = state.participants[rhs]!
                    return (left.raisedAt ?? 0, left.order) < (right.raisedAt ?? 0, right.order)
                }
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
        if let speaker { object["activeSpeaker"] = .string(speaker) }
        if !state.metadata.isEmpty { object["metadata"] = ServerMessages.strings(state.metadata) }
        object["capacity"] = .int(Int64(capacity))
        object["participantCount"] = .int(Int64(state.listedParticipants.count))
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
        for uid in self.participants.keys.sorted(by: CanonicalJSON.keyPrecedes) {
            participants[uid] = .object(self.participants[uid]!)
        }
        return .object(JSONObject([("room", .object(self.room)), ("participants", .object(participants))]))
    }

    /// The order-independent checksum clients use to detect drift (see docs/PROTOCOL.md).
    var checksum: UInt64 {
        var sum = RosterChecksum.hash(key: "room", .object(self.room))
        for (uid, entry) in self.participants { sum &+= RosterChecksum.hash(key: uid, .object(entry)) }
        return sum
    }
}
