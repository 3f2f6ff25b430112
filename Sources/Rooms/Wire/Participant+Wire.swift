import JSONCoding

/// The one definition of a participant on the wire, in its three forms: the entry of a roster view (what patches
/// apply to and the checksum covers), the entry of a snapshot's and an event's `participant` (with time totals),
/// and the entry of a checkpoint (everything the reducer needs to carry on). A new field is written here once,
/// and read back in `init(checkpoint:)`.
extension Participant {
    /// Which form of the participant to write.
    enum WireForm {
        /// The roster view's entry: no nulls (a null in a merge patch removes the member), devices by id, whether
        /// the participant operates the room.
        case roster(isOperator: Bool)
        /// A snapshot's or an event's entry: nulls for what is unset, devices with their state, the minute totals
        /// as of `now`.
        case snapshot(now: Int64)
        /// A checkpoint's entry: every field, exactly.
        case checkpoint
    }

    /// The participant as a JSON object in `form`.
    func wireObject(_ form: WireForm) -> JSONObject {
        var object = JSONObject()
        self.writeWire(form, into: &object)
        return object
    }

    /// Adds the participant's members in `form` to `sink`: a JSON object, or JSON text written straight into bytes
    /// (an event's `participant`), the same members in the same order either way.
    func writeWire<Sink: JSONMemberSink>(_ form: WireForm, into sink: inout Sink) {
        let omitsNulls: Bool
        if case .roster = form { omitsNulls = true } else { omitsNulls = false }
        func optional(_ key: String, _ value: JSONValue?) {
            if let value {
                sink.member(key, value)
            } else if !omitsNulls {
                sink.member(key, .null)
            }
        }
        sink.member("uid", .string(self.uid))
        sink.member("name", .string(self.name))
        optional("avatar", self.avatar.map { .string($0) })
        optional("mid", self.mid.map { .string($0) })
        sink.member("role", .string(self.role.rawValue))
        switch form {
        case .roster(let isOperator):
            sink.member("operator", .bool(isOperator))
            sink.member("state", .string(self.state))
            sink.member("order", .int(Int64(self.order)))
            sink.member("joinedAt", .int(self.joinedAt))
            sink.member("devices", .array(self.devices.map { .string($0.deviceID) }))
        case .snapshot:
            sink.member("state", .string(self.state))
            sink.member("isJoined", .bool(self.isJoined))
            sink.member("joinedAt", .int(self.joinedAt))
            optional("leftAt", self.leftAt.map { .int($0) })
            optional("deviceID", self.devices.first.map { .string($0.deviceID) })
            sink.member("devices", .array(self.devices.map { $0.wireValue(idKey: "deviceID") }))
        case .checkpoint:
            sink.member("order", .int(Int64(self.order)))
            sink.member("devices", .array(self.devices.map { $0.wireValue(idKey: "id") }))
            sink.member("joinedAt", .int(self.joinedAt))
            optional("leftAt", self.leftAt.map { .int($0) })
        }
        for flag in ParticipantFlag.ordered { sink.member(flag.rawValue, .bool(self.flags.contains(flag))) }
        optional("raisedAt", self.raisedAt.map { .int($0) })
        optional("lastSpokeAt", self.lastSpokeAt.map { .int($0) })
        sink.member("mutedByModerator", .bool(self.mutedByModerator))
        optional("cameraFacing", self.cameraFacing.map { .string($0) })
        optional("audioMode", self.audioMode.map { .string($0) })
        // Both are left out while empty or at their defaults, in every form: they are rare, and a snapshot of a
        // large room would otherwise carry them for everyone.
        if !self.attributes.isEmpty { sink.member("attributes", ServerMessages.strings(self.attributes)) }
        if !self.permissions.isDefault {
            sink.member("permissions", .object(self.permissions.wireObject(nonDefaultOnly: omitsNulls)))
        }
        switch form {
        case .roster:
            break
        case .snapshot(let now):
            var counted = self
            counted.account(until: now)
            sink.member("totalAudioMinutes", .int(counted.audioMilliseconds / 60_000))
            sink.member("totalVideoMinutes", .int(counted.videoMilliseconds / 60_000))
            sink.member("totalDurationInMinutes", .int(counted.durationMilliseconds / 60_000))
            if self.role == .bot { sink.member("bot", .bool(true)) }
        case .checkpoint:
            sink.member("audioMs", .int(self.audioMilliseconds))
            sink.member("videoMs", .int(self.videoMilliseconds))
            sink.member("durationMs", .int(self.durationMilliseconds))
            sink.member("presentingMs", .int(self.presentingMilliseconds))
            sink.member("speakingMs", .int(self.speakingMilliseconds))
            sink.member("handsRaised", .int(Int64(self.handsRaised)))
            sink.member("firstJoinedAt", .int(self.firstJoinedAt))
            sink.member("accountedUntil", .int(self.accountedUntil))
            sink.member("attributesSeq", .int(Int64(self.attributesSequence)))
            sink.member("permissionsSeq", .int(Int64(self.permissionsSequence)))
        }
    }

    /// Reads a participant written in the checkpoint form.
    ///
    /// - Parameter value: the JSON object.
    /// - Throws: `RoomLogWireError` naming what is missing.
    init(checkpoint value: JSONValue) throws(RoomLogWireError) {
        let fields = CheckpointFields(value)
        guard let role = ParticipantRole(rawValue: try fields.string("role")) else {
            throw RoomLogWireError("checkpoint with an unknown role")
        }
        self.init(
            uid: try fields.string("uid"), name: try fields.string("name"), avatar: value["avatar"]?.stringValue,
            role: role, joinedAt: try fields.int("joinedAt"), order: Int(try fields.int("order")))
        self.mid = value["mid"]?.stringValue
        for device in value["devices"]?.arrayValue ?? [] {
            let deviceFields = CheckpointFields(device)
            self.devices.append(
                ParticipantDevice(
                    deviceID: try deviceFields.string("id"), joinedAt: try deviceFields.int("joinedAt"),
                    isConnected: deviceFields.bool("connected")))
        }
        self.leftAt = value["leftAt"]?.intValue
        for flag in ParticipantFlag.ordered { self.flags[flag] = fields.bool(flag.rawValue) }
        self.raisedAt = value["raisedAt"]?.intValue
        self.lastSpokeAt = value["lastSpokeAt"]?.intValue
        self.mutedByModerator = fields.bool("mutedByModerator")
        self.cameraFacing = value["cameraFacing"]?.stringValue
        self.audioMode = value["audioMode"]?.stringValue
        for (key, item) in value["attributes"]?.objectValue?.entries ?? [] {
            if let text = item.stringValue { self.attributes[key] = text }
        }
        self.permissions = ParticipantPermissions(wireObject: value["permissions"]?.objectValue)
        self.audioMilliseconds = try fields.int("audioMs")
        self.videoMilliseconds = try fields.int("videoMs")
        self.durationMilliseconds = try fields.int("durationMs")
        self.accountedUntil = try fields.int("accountedUntil")
        // Checkpoints written before attendance was kept have none of its totals: they count from then on.
        self.presentingMilliseconds = value["presentingMs"]?.intValue ?? 0
        self.speakingMilliseconds = value["speakingMs"]?.intValue ?? 0
        self.handsRaised = Int(value["handsRaised"]?.intValue ?? 0)
        self.firstJoinedAt = value["firstJoinedAt"]?.intValue ?? self.joinedAt
        // Checkpoints written before versions were kept have none: 0, which no version-checked write is older than.
        self.attributesSequence = UInt64(max(0, value["attributesSeq"]?.intValue ?? 0))
        self.permissionsSequence = UInt64(max(0, value["permissionsSeq"]?.intValue ?? 0))
    }
}

extension ParticipantDevice {
    /// The device as a JSON object, its id under `idKey`.
    func wireValue(idKey: String) -> JSONValue {
        .object(
            JSONObject([
                (idKey, .string(self.deviceID)), ("joinedAt", .int(self.joinedAt)),
                ("connected", .bool(self.isConnected)),
            ]))
    }
}

/// Reads the members of a checkpoint object, naming what is missing.
struct CheckpointFields {
    let value: JSONValue

    init(_ value: JSONValue) {
        self.value = value
    }

    func string(_ key: String) throws(RoomLogWireError) -> String {
        guard let text = self.value[key]?.stringValue else { throw RoomLogWireError("checkpoint without '\(key)'") }
        return text
    }

    func int(_ key: String) throws(RoomLogWireError) -> Int64 {
        guard let number = self.value[key]?.intValue else { throw RoomLogWireError("checkpoint without '\(key)'") }
        return number
    }

    func bool(_ key: String) -> Bool { self.value[key]?.boolValue ?? false }
}
