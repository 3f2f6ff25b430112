import JSONCoding

/// The participant's entry in an event message, written straight into bytes with names encoded once: the same
/// members, values and order as `writeWire(.snapshot(now:))` (tests compare the two byte for byte), without a
/// `JSONValue` per member or a name escaped per message. Every state change writes it once per event.
extension Participant {
    /// Adds the participant's members in the snapshot form (minute totals as of `now`) to `writer`.
    func writeEventEntry(now: Int64, into writer: inout JSONByteWriter) {
        typealias Key = EventEntryKeys
        writer.member(Key.uid, string: self.uid)
        writer.member(Key.name, string: self.name)
        writer.member(Key.avatar, optionalString: self.avatar)
        writer.member(Key.mid, optionalString: self.mid)
        writer.member(Key.role, string: self.role.rawValue)
        writer.member(Key.state, string: self.state)
        writer.member(Key.isJoined, bool: self.isJoined)
        writer.member(Key.joinedAt, int: self.joinedAt)
        writer.member(Key.leftAt, optionalInt: self.leftAt)
        writer.member(Key.deviceID, optionalString: self.devices.first?.deviceID)
        writer.key(Key.devices)
        writer.beginArray()
        for device in self.devices {
            writer.element()
            writer.beginObject()
            writer.member(Key.deviceID, string: device.deviceID)
            writer.member(Key.joinedAt, int: device.joinedAt)
            writer.member(Key.connected, bool: device.isConnected)
            writer.endObject()
        }
        writer.endArray()
        let flagKeys = Key.flags
        for ordinal in flagKeys.indices {
            writer.member(flagKeys[ordinal], bool: self.flags.contains(ordinal: ordinal))
        }
        writer.member(Key.raisedAt, optionalInt: self.raisedAt)
        writer.member(Key.lastSpokeAt, optionalInt: self.lastSpokeAt)
        writer.member(Key.mutedByModerator, bool: self.mutedByModerator)
        writer.member(Key.cameraFacing, optionalString: self.cameraFacing)
        writer.member(Key.audioMode, optionalString: self.audioMode)
        if !self.attributes.isEmpty { writer.member(Key.attributes, ServerMessages.strings(self.attributes)) }
        if !self.permissions.isDefault {
            writer.member(Key.permissions, .object(self.permissions.wireObject(nonDefaultOnly: false)))
        }
        var counted = self
        counted.account(until: now)
        writer.member(Key.totalAudioMinutes, int: counted.audioMilliseconds / 60_000)
        writer.member(Key.totalVideoMinutes, int: counted.videoMilliseconds / 60_000)
        writer.member(Key.totalDurationInMinutes, int: counted.durationMilliseconds / 60_000)
        if self.role == .bot { writer.member(Key.bot, bool: true) }
    }
}

/// The names of the event entry's members, encoded once.
private enum EventEntryKeys {
    static let uid = JSONEncodedKey("uid")
    static let name = JSONEncodedKey("name")
    static let avatar = JSONEncodedKey("avatar")
    static let mid = JSONEncodedKey("mid")
    static let role = JSONEncodedKey("role")
    static let state = JSONEncodedKey("state")
    static let isJoined = JSONEncodedKey("isJoined")
    static let joinedAt = JSONEncodedKey("joinedAt")
    static let leftAt = JSONEncodedKey("leftAt")
    static let deviceID = JSONEncodedKey("deviceID")
    static let devices = JSONEncodedKey("devices")
    static let connected = JSONEncodedKey("connected")
    /// Each flag's name, by ordinal (`ParticipantFlag.ordered`).
    static let flags = ParticipantFlag.ordered.map { JSONEncodedKey($0.rawValue) }
    static let raisedAt = JSONEncodedKey("raisedAt")
    static let lastSpokeAt = JSONEncodedKey("lastSpokeAt")
    static let mutedByModerator = JSONEncodedKey("mutedByModerator")
    static let cameraFacing = JSONEncodedKey("cameraFacing")
    static let audioMode = JSONEncodedKey("audioMode")
    static let attributes = JSONEncodedKey("attributes")
    static let permissions = JSONEncodedKey("permissions")
    static let totalAudioMinutes = JSONEncodedKey("totalAudioMinutes")
    static let totalVideoMinutes = JSONEncodedKey("totalVideoMinutes")
    static let totalDurationInMinutes = JSONEncodedKey("totalDurationInMinutes")
    static let bot = JSONEncodedKey("bot")
}
