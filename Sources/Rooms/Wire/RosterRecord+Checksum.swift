import JSONCoding

/// A roster entry's canonical JSON and its hash in the roster checksum, written field by field: the members of an
/// entry are fixed per form, so their canonical order is too (by the names' UTF-8 bytes), and each name is written
/// from bytes encoded once.
extension RosterRecord {
    /// The entry's hash in the roster checksum: `RosterChecksum.hash(key: uid, .object(object))`.
    var checksumHash: UInt64 {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(384)
        bytes.append(contentsOf: self.uid.utf8)
        bytes.append(0)
        self.writeCanonical(into: &bytes)
        return RosterChecksum.fnv1a(bytes)
    }

    /// Appends the entry's canonical JSON (`CanonicalJSON.write(.object(object))`) to `output`.
    func writeCanonical(into output: inout [UInt8]) {
        if case .waiting = self.form {
            // A view for moderators only, with few entries: written the general way.
            CanonicalJSON.write(.object(self.object), into: &output)
            return
        }
        // Every member is written after a comma; the first one's comma becomes the opening brace.
        let start = output.count
        switch self.form {
        case .banned(let name):
            Self.member(Keys.banned, into: &output)
            Self.literal(true, into: &output)
            if let name { Self.string(Keys.name, name, into: &output) }
            Self.string(Keys.uid, self.uid, into: &output)
        case .member(let participant, let isOperator):
            Self.writeCanonical(participant, isOperator: isOperator, into: &output)
        case .waiting:
            break
        }
        output[start] = UInt8(ascii: "{")
        output.append(UInt8(ascii: "}"))
    }

    private static func writeCanonical(_ participant: Participant, isOperator: Bool, into output: inout [UInt8]) {
        let order = CanonicalMember.order
        for index in order.indices {
            let key = order[index].key
            switch order[index].member {
            case .flag(let ordinal):
                Self.bool(key, participant.flags.contains(ordinal: ordinal), into: &output)
            case .field(.attributes):
                guard !participant.attributes.isEmpty else { continue }
                Self.member(key, into: &output)
                CanonicalJSON.write(ServerMessages.strings(participant.attributes), into: &output)
            case .field(.audioMode):
                if let mode = participant.audioMode { Self.string(key, mode, into: &output) }
            case .field(.avatar):
                if let avatar = participant.avatar { Self.string(key, avatar, into: &output) }
            case .field(.cameraFacing):
                if let facing = participant.cameraFacing { Self.string(key, facing, into: &output) }
            case .field(.devices):
                Self.member(key, into: &output)
                output.append(UInt8(ascii: "["))
                for (position, device) in participant.devices.enumerated() {
                    if position > 0 { output.append(UInt8(ascii: ",")) }
                    JSONWriter.appendString(device.deviceID, to: &output)
                }
                output.append(UInt8(ascii: "]"))
            case .field(.joinedAt):
                Self.int(key, participant.joinedAt, into: &output)
            case .field(.lastSpokeAt):
                if let spokeAt = participant.lastSpokeAt { Self.int(key, spokeAt, into: &output) }
            case .field(.mid):
                if let mid = participant.mid { Self.string(key, mid, into: &output) }
            case .field(.mutedByModerator):
                Self.bool(key, participant.mutedByModerator, into: &output)
            case .field(.name):
                Self.string(key, participant.name, into: &output)
            case .field(.operator):
                Self.bool(key, isOperator, into: &output)
            case .field(.order):
                Self.int(key, Int64(participant.order), into: &output)
            case .field(.permissions):
                guard !participant.permissions.isDefault else { continue }
                Self.member(key, into: &output)
                CanonicalJSON.write(.object(participant.permissions.wireObject(nonDefaultOnly: true)), into: &output)
            case .field(.raisedAt):
                if let raisedAt = participant.raisedAt { Self.int(key, raisedAt, into: &output) }
            case .field(.role):
                Self.string(key, participant.role.rawValue, into: &output)
            case .field(.state):
                Self.string(key, participant.state, into: &output)
            case .field(.uid):
                Self.string(key, participant.uid, into: &output)
            }
        }
    }

    private static func member(_ key: [UInt8], into output: inout [UInt8]) {
        output.append(contentsOf: key)
    }

    private static func string(_ key: [UInt8], _ value: String, into output: inout [UInt8]) {
        output.append(contentsOf: key)
        JSONWriter.appendString(value, to: &output)
    }

    private static func int(_ key: [UInt8], _ value: Int64, into output: inout [UInt8]) {
        output.append(contentsOf: key)
        JSONWriter.appendInteger(value, to: &output)
    }

    private static func bool(_ key: [UInt8], _ value: Bool, into output: inout [UInt8]) {
        output.append(contentsOf: key)
        Self.literal(value, into: &output)
    }

    private static func literal(_ value: Bool, into output: inout [UInt8]) {
        output.append(contentsOf: value ? Keys.trueBytes : Keys.falseBytes)
    }

    /// The members' names as `,"name":`, encoded once.
    fileprivate enum Keys {
        static func encoded(_ name: String) -> [UInt8] { Array(",\"\(name)\":".utf8) }
        static let banned = encoded("banned")
        static let name = encoded("name")
        static let uid = encoded("uid")
        static let trueBytes = Array("true".utf8)
        static let falseBytes = Array("false".utf8)
    }
}

/// A member of a participant's roster entry: a fixed one, or a flag by its ordinal (`ParticipantFlag.ordered`).
private enum CanonicalMember {
    /// The members that are not flags, named as on the wire (`Participant.writeWire(.roster)`).
    enum Field: String, CaseIterable {
        case attributes, audioMode, avatar, cameraFacing, devices, joinedAt, lastSpokeAt, mid, mutedByModerator, name
        case `operator`, order, permissions, raisedAt, role, state, uid
    }

    case field(Field)
    case flag(ordinal: Int)

    /// Every member in canonical order (by the names' UTF-8 bytes) with its name as `,"name":`, sorted once: a new
    /// flag takes its place among the others by its name.
    static let order: [(member: CanonicalMember, key: [UInt8])] = {
        let fields = Field.allCases.map { (CanonicalMember.field($0), $0.rawValue) }
        let flags = ParticipantFlag.ordered.enumerated().map {
            (CanonicalMember.flag(ordinal: $0.offset), $0.element.rawValue)
        }
        return (fields + flags).sorted { Array($0.1.utf8).lexicographicallyPrecedes(Array($1.1.utf8)) }
            .map { ($0.0, RosterRecord.Keys.encoded($0.1)) }
    }()
}
