import JSONCoding

/// A participant's entry in a roster view as typed fields: what a view channel keeps per participant, compared,
/// diffed and hashed field by field instead of as a JSON object.
///
/// The entry itself is still defined once (`Participant.writeWire(.roster)`, and `RosterView.entry` for the banned
/// form): `object` builds it from there. What is typed here is the merge patch between two entries (`patch(from:)`)
/// and the entry's canonical JSON and checksum hash (`checksumHash`), each exactly what the general path
/// (`JSONMergePatch.diff`, `RosterChecksum.hash`) gives for the objects; tests hold the two paths to the same bytes.
struct RosterRecord: Equatable {
    /// The entry's form.
    enum Form {
        /// A participant in the room (every view but `banned`), with whether it operates the room.
        case member(Participant, isOperator: Bool)
        /// The banned view's entry: the uid, and the name while the participant is in the room.
        case banned(name: String?)
        /// The waiting view's entry: who waits, since when.
        case waiting(WaitingEntry)
    }

    /// Which form a view's entries take (`RosterViewSpec.Filter.entryForm`); each has its own cache of rendered
    /// entries and checksum hashes in a round of patches.
    enum FormKind: Int, Hashable, CaseIterable {
        case member
        case banned
        case waiting
    }

    /// The participant's uid (the entry's key in the view).
    let uid: String
    /// The fields.
    let form: Form

    init(uid: String, form: Form) {
        self.uid = uid
        self.form = form
    }

    /// The entry of `uid` in `state` (in the banned view, the uid and name only; in the waiting view, the waiting
    /// room's entry), as `RosterView.entry` builds it.
    init(_ uid: String, in state: RoomState, form: FormKind) {
        self.uid = uid
        if form == .waiting, let entry = state.waiting.first(where: { $0.uid == uid }) {
            self.form = .waiting(entry)
        } else if form == .member, let participant = state.participants[uid] {
            self.form = .member(participant, isOperator: state.isOperator(uid))
        } else {
            self.form = .banned(name: state.participants[uid]?.name)
        }
    }

    /// The entry as a JSON object (for snapshots and rebuilt patches).
    var object: JSONObject {
        switch self.form {
        case .member(let participant, let isOperator):
            return participant.wireObject(.roster(isOperator: isOperator))
        case .banned(let name):
            var object = JSONObject()
            object["uid"] = .string(self.uid)
            object["banned"] = .bool(true)
            if let name { object["name"] = .string(name) }
            return object
        case .waiting(let entry):
            return entry.wireObject
        }
    }

    /// Whether the two entries are the same on the wire (a participant's time totals, its devices' join times and
    /// when it left are not in the roster).
    static func == (lhs: RosterRecord, rhs: RosterRecord) -> Bool {
        guard lhs.uid == rhs.uid else { return false }
        switch (lhs.form, rhs.form) {
        case (.banned(let left), .banned(let right)):
            return left == right
        case (.waiting(let left), .waiting(let right)):
            return left == right
        case (.member(let left, let leftOperator), .member(let right, let rightOperator)):
            return leftOperator == rightOperator && Self.sameRosterFields(left, right)
        default:
            return false
        }
    }

    private static func sameRosterFields(_ lhs: Participant, _ rhs: Participant) -> Bool {
        lhs.flags == rhs.flags && lhs.mid == rhs.mid && lhs.raisedAt == rhs.raisedAt
            && lhs.lastSpokeAt == rhs.lastSpokeAt && lhs.mutedByModerator == rhs.mutedByModerator
            && lhs.name == rhs.name && lhs.avatar == rhs.avatar && lhs.role == rhs.role && lhs.order == rhs.order
            && lhs.joinedAt == rhs.joinedAt && lhs.state == rhs.state && Self.sameDeviceIDs(lhs, rhs)
            && lhs.cameraFacing == rhs.cameraFacing && lhs.audioMode == rhs.audioMode
            && lhs.permissions == rhs.permissions && lhs.attributes == rhs.attributes
    }

    private static func sameDeviceIDs(_ lhs: Participant, _ rhs: Participant) -> Bool {
        guard lhs.devices.count == rhs.devices.count else { return false }
        for index in lhs.devices.indices where lhs.devices[index].deviceID != rhs.devices[index].deviceID {
            return false
        }
        return true
    }

    /// The merge patch from `old` to this entry, nil when they are the same on the wire: exactly what
    /// `JSONMergePatch.diff(old.object, self.object)` gives (members that went away as `null` first, then those
    /// added or changed, each in the entry's order), without building either object.
    func patch(from old: RosterRecord) -> JSONObject? {
        guard case .member(let new, let newOperator) = self.form, case .member(let before, let oldOperator) = old.form
        else {
            return JSONMergePatch.diff(old.object, self.object)
        }
        var patch = JSONObject()
        // Members that went away: the optional ones, in the entry's order.
        if before.avatar != nil && new.avatar == nil { patch["avatar"] = .null }
        if before.mid != nil && new.mid == nil { patch["mid"] = .null }
        if before.raisedAt != nil && new.raisedAt == nil { patch["raisedAt"] = .null }
        if before.lastSpokeAt != nil && new.lastSpokeAt == nil { patch["lastSpokeAt"] = .null }
        if before.cameraFacing != nil && new.cameraFacing == nil { patch["cameraFacing"] = .null }
        if before.audioMode != nil && new.audioMode == nil { patch["audioMode"] = .null }
        if !before.attributes.isEmpty && new.attributes.isEmpty { patch["attributes"] = .null }
        if !before.permissions.isDefault && new.permissions.isDefault { patch["permissions"] = .null }
        // Members added or changed, in the entry's order.
        if new.name != before.name { patch["name"] = .string(new.name) }
        if let avatar = new.avatar, avatar != before.avatar { patch["avatar"] = .string(avatar) }
        if let mid = new.mid, mid != before.mid { patch["mid"] = .string(mid) }
        if new.role != before.role { patch["role"] = .string(new.role.rawValue) }
        if newOperator != oldOperator { patch["operator"] = .bool(newOperator) }
        if new.state != before.state { patch["state"] = .string(new.state) }
        if new.order != before.order { patch["order"] = .int(Int64(new.order)) }
        if new.joinedAt != before.joinedAt { patch["joinedAt"] = .int(new.joinedAt) }
        if !Self.sameDeviceIDs(new, before) { patch["devices"] = .array(new.devices.map { .string($0.deviceID) }) }
        if new.flags != before.flags {
            for flag in ParticipantFlag.ordered where new.flags[flag] != before.flags[flag] {
                patch[flag.rawValue] = .bool(new.flags[flag])
            }
        }
        if let raisedAt = new.raisedAt, raisedAt != before.raisedAt { patch["raisedAt"] = .int(raisedAt) }
        if let spokeAt = new.lastSpokeAt, spokeAt != before.lastSpokeAt { patch["lastSpokeAt"] = .int(spokeAt) }
        if new.mutedByModerator != before.mutedByModerator {
            patch["mutedByModerator"] = .bool(new.mutedByModerator)
        }
        if let facing = new.cameraFacing, facing != before.cameraFacing { patch["cameraFacing"] = .string(facing) }
        if let mode = new.audioMode, mode != before.audioMode { patch["audioMode"] = .string(mode) }
        if !new.attributes.isEmpty && new.attributes != before.attributes {
            let value = ServerMessages.strings(new.attributes)
            if before.attributes.isEmpty {
                patch["attributes"] = value
            } else if case .object(let newObject) = value,
                case .object(let oldObject) = ServerMessages.strings(before.attributes),
                let inner = JSONMergePatch.diff(oldObject, newObject)
            {
                patch["attributes"] = .object(inner)
            }
        }
        if !new.permissions.isDefault && new.permissions != before.permissions {
            let newObject = new.permissions.wireObject(nonDefaultOnly: true)
            if before.permissions.isDefault {
                patch["permissions"] = .object(newObject)
            } else if let inner = JSONMergePatch.diff(before.permissions.wireObject(nonDefaultOnly: true), newObject) {
                patch["permissions"] = .object(inner)
            }
        }
        return patch.isEmpty ? nil : patch
    }
}
