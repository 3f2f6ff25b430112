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
        let window = Self.window(state, spec: spec, speaker: speaker)
        for uid in window.members {
            participants[uid] = Self.entry(uid, in: state, form: spec.filter.entryForm)
        }
        return RosterView(
            room: Self.roomEntry(state, speaker: speaker, capacity: capacity, total: window.total),
            participants: participants)
    }

    /// The uids in the view, in its order.
    static func members(_ state: RoomState, spec: RosterViewSpec, speaker: String?) -> [String] {
        Self.window(state, spec: spec, speaker: speaker).members
    }

    /// The uids in the view, in its order, and how many match its filter and query before its offset and limit
    /// (the room entry's `total`; for `banned`, the banned users the lists show).
    static func window(_ state: RoomState, spec: RosterViewSpec, speaker: String?) -> (members: [String], total: Int) {
        var uids: [String]
        if spec.filter == .banned {
            uids = state.listedBanned
        } else if spec.filter == .waiting {
            // Arrival order; a `query` narrows it by name.
            uids = state.waiting.filter { entry in
                guard let query = spec.query, !query.isEmpty else { return true }
                let name = entry.name.lowercased()
                return spec.match == .prefix ? name.hasPrefix(query) : name.contains(query)
            }.map(\.uid)
        } else {
            uids = []
            for uid in state.joinOrder {
                guard let participant = state.participants[uid], spec.includes(participant, in: state, speaker: speaker)
                else { continue }
                uids.append(uid)
            }
            Self.sort(&uids, by: spec.effectiveSort, in: state)
        }
        let total = uids.count
        if let offset = spec.offset { uids.removeFirst(min(offset, uids.count)) }
        if let limit = spec.limit, uids.count > limit { uids.removeLast(uids.count - limit) }
        return (uids, total)
    }

    /// Puts uids (in join order) in a view's order; ties keep join order.
    private static func sort(_ uids: inout [String], by order: RosterViewSpec.Sort, in state: RoomState) {
        switch order {
        case .join:
            return
        case .name:
            let names = uids.map { state.participants[$0]!.name.lowercased() }
            let sorted = zip(uids, names).enumerated().sorted { lhs, rhs in
                (lhs.element.1, lhs.element.0) < (rhs.element.1, rhs.element.0)
            }
            uids = sorted.map(\.element.0)
        case .raisedHand:
            // The hand queue: whose hand went up first; those without a raised hand after, in join order.
            uids = Self.stableSorted(uids) { state.participants[$0]!.raisedAt.map { -$0 } }
        case .recentSpeaking:
            uids = Self.stableSorted(uids) { state.participants[$0]!.lastSpokeAt }
        }
    }

    /// `uids` by `key` descending (nil last), keeping their order among equal keys.
    private static func stableSorted(_ uids: [String], key: (String) -> Int64?) -> [String] {
        uids.enumerated().map { (index: $0.offset, uid: $0.element, key: key($0.element)) }
            .sorted { lhs, rhs in
                switch (lhs.key, rhs.key) {
                case (let left?, let right?) where left != right: return left > right
                case (.some, nil): return true
                case (nil, .some): return false
                default: return lhs.index < rhs.index
                }
            }.map(\.uid)
    }

    /// One participant's entry; in the banned view, the uid and name only; in the waiting view, the waiting
    /// room's entry.
    static func entry(_ uid: String, in state: RoomState, form: RosterRecord.FormKind = .member) -> JSONObject {
        if form == .waiting, let entry = state.waiting.first(where: { $0.uid == uid }) { return entry.wireObject }
        guard form == .member, let participant = state.participants[uid] else {
            var object = JSONObject()
            object["uid"] = .string(uid)
            object["banned"] = .bool(true)
            if let name = state.participants[uid]?.name { object["name"] = .string(name) }
            return object
        }
        return participant.wireObject(.roster(isOperator: state.isOperator(uid)))
    }

    /// The room entry of a view with `total` entries before its window.
    static func roomEntry(_ state: RoomState, speaker: String?, capacity: Int, total: Int) -> JSONObject {
        var object = JSONObject()
        object["callType"] = .string(state.callType)
        if let startedAt = state.startedAt { object["startedAt"] = .int(startedAt) }
        if let initiator = state.initiator { object["initiator"] = .string(initiator) }
        object["recording"] = .bool(state.isRecording)
        // Only while locked: an unlocked room's entry is as it always was.
        if state.isLocked { object["locked"] = .bool(true) }
        // Only while the waiting room is on, and while someone waits (how many; who is in the `waiting` view).
        if state.requiresAdmission { object["admission"] = .bool(true) }
        if let limit = state.presenterLimit { object["floor"] = .int(Int64(limit)) }
        // Only while the floor queues: who waits to present, in order.
        if state.floorQueues { object["floorQueue"] = .array(state.floorQueue.map { .string($0) }) }
        if let speaker { object["activeSpeaker"] = .string(speaker) }
        if !state.metadata.isEmpty { object["metadata"] = ServerMessages.strings(state.metadata) }
        object["capacity"] = .int(Int64(capacity))
        object["participantCount"] = .int(Int64(state.listedCount))
        if !state.waiting.isEmpty { object["waiting"] = .int(Int64(state.waiting.count)) }
        object["total"] = .int(Int64(total))
        object["counts"] = .object(state.viewCounts.object)
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
