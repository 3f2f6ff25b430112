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
        }
        output[start] = UInt8(ascii: "{")
        output.append(UInt8(ascii: "}"))
    }

    private static func writeCanonical(_ participant: Participant, isOperator: Bool, into output: inout [UInt8]) {
        if !participant.attributes.isEmpty {
            Self.member(Keys.attributes, into: &output)
            CanonicalJSON.write(ServerMessages.strings(participant.attributes), into: &output)
        }
        if let mode = participant.audioMode { Self.string(Keys.audioMode, mode, into: &output) }
        Self.bool(Keys.audioMuted, participant.flags[.audioMuted], into: &output)
        if let avatar = participant.avatar { Self.string(Keys.avatar, avatar, into: &output) }
        if let facing = participant.cameraFacing { Self.string(Keys.cameraFacing, facing, into: &output) }
        Self.member(Keys.devices, into: &output)
        output.append(UInt8(ascii: "["))
        for (index, device) in participant.devices.enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            JSONWriter.appendString(device.deviceID, to: &output)
        }
        output.append(UInt8(ascii: "]"))
        Self.bool(Keys.handRaised, participant.flags[.handRaised], into: &output)
        Self.int(Keys.joinedAt, participant.joinedAt, into: &output)
        if let spokeAt = participant.lastSpokeAt { Self.int(Keys.lastSpokeAt, spokeAt, into: &output) }
        if let mid = participant.mid { Self.string(Keys.mid, mid, into: &output) }
        Self.bool(Keys.mutedByModerator, participant.mutedByModerator, into: &output)
        Self.string(Keys.name, participant.name, into: &output)
        Self.bool(Keys.operator, isOperator, into: &output)
        Self.int(Keys.order, Int64(participant.order), into: &output)
        if !participant.permissions.isDefault {
            Self.member(Keys.permissions, into: &output)
            CanonicalJSON.write(.object(participant.permissions.wireObject(nonDefaultOnly: true)), into: &output)
        }
        Self.bool(Keys.pinned, participant.flags[.pinned], into: &output)
        Self.bool(Keys.presenting, participant.flags[.presenting], into: &output)
        if let raisedAt = participant.raisedAt { Self.int(Keys.raisedAt, raisedAt, into: &output) }
        Self.string(Keys.role, participant.role.rawValue, into: &output)
        Self.string(Keys.state, participant.state, into: &output)
        Self.string(Keys.uid, participant.uid, into: &output)
        Self.bool(Keys.videoPaused, participant.flags[.videoPaused], into: &output)
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
    private enum Keys {
        static func encoded(_ name: String) -> [UInt8] { Array(",\"\(name)\":".utf8) }
        static let attributes = encoded("attributes")
        static let audioMode = encoded("audioMode")
        static let audioMuted = encoded("audioMuted")
        static let avatar = encoded("avatar")
        static let banned = encoded("banned")
        static let cameraFacing = encoded("cameraFacing")
        static let devices = encoded("devices")
        static let handRaised = encoded("handRaised")
        static let joinedAt = encoded("joinedAt")
        static let lastSpokeAt = encoded("lastSpokeAt")
        static let mid = encoded("mid")
        static let mutedByModerator = encoded("mutedByModerator")
        static let name = encoded("name")
        static let `operator` = encoded("operator")
        static let order = encoded("order")
        static let permissions = encoded("permissions")
        static let pinned = encoded("pinned")
        static let presenting = encoded("presenting")
        static let raisedAt = encoded("raisedAt")
        static let role = encoded("role")
        static let state = encoded("state")
        static let uid = encoded("uid")
        static let videoPaused = encoded("videoPaused")
        static let trueBytes = Array("true".utf8)
        static let falseBytes = Array("false".utf8)
    }
}
