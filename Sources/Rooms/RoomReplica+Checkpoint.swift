import JSONCoding

/// A replica as JSON, for the checkpoints a cluster keeps next to each room's log: a node that starts following a
/// room loads the latest checkpoint and replays the entries after it.
extension RoomReplica {
    /// The replica as a JSON object; `RoomReplica(checkpoint:)` reads it back equal.
    public var checkpoint: JSONValue {
        let state = self.state
        func optional(_ text: String?) -> JSONValue { text.map { .string($0) } ?? .null }
        func optional(_ number: Int64?) -> JSONValue { number.map { .int($0) } ?? .null }
        let participants = state.joinOrder.compactMap { state.participants[$0] }.map { participant -> JSONValue in
            .object(
                JSONObject([
                    ("uid", .string(participant.uid)), ("name", .string(participant.name)),
                    ("avatar", optional(participant.avatar)), ("mid", optional(participant.mid)),
                    ("role", .string(participant.role.rawValue)), ("order", .int(Int64(participant.order))),
                    (
                        "devices",
                        .array(
                            participant.devices.map { device in
                                .object(
                                    JSONObject([
                                        ("id", .string(device.deviceID)), ("joinedAt", .int(device.joinedAt)),
                                        ("connected", .bool(device.isConnected)),
                                    ]))
                            })
                    ),
                    ("joinedAt", .int(participant.joinedAt)), ("leftAt", optional(participant.leftAt)),
                    ("audioMuted", .bool(participant.audioMuted)), ("videoPaused", .bool(participant.videoPaused)),
                    ("presenting", .bool(participant.presenting)), ("handRaised", .bool(participant.handRaised)),
                    ("pinned", .bool(participant.pinned)), ("mutedByModerator", .bool(participant.mutedByModerator)),
                    ("cameraFacing", optional(participant.cameraFacing)),
                    ("audioMs", .int(participant.audioMilliseconds)), ("videoMs", .int(participant.videoMilliseconds)),
                    ("durationMs", .int(participant.durationMilliseconds)),
                    ("accountedUntil", .int(participant.accountedUntil)),
                ]))
        }
        return .object(
            JSONObject([
                ("room", .string(state.id)), ("seq", .int(Int64(state.sequence))),
                ("callType", .string(state.callType)),
                ("startedAt", optional(state.startedAt)), ("initiator", optional(state.initiator)),
                ("recording", .bool(state.isRecording)), ("audioMode", optional(state.audioMode)),
                ("activeSpeaker", optional(state.activeSpeaker)), ("participants", .array(participants)),
                ("operators", .array(state.operators.sorted().map { .string($0) })),
                ("banned", .array(state.banned.sorted().map { .string($0) })),
                ("activeMeeting", state.activeMeeting.map { RoomEvent.meetingMessage($0).wireValue } ?? .null),
                ("heldSpeaker", optional(self.heldSpeaker)), ("heldSince", .int(self.heldSince)),
                ("speakerDue", optional(self.speakerDue)),
            ]))
    }

    /// Reads a checkpoint written by `checkpoint`.
    ///
    /// - Parameter value: the JSON object.
    /// - Throws: `RoomLogWireError` naming what is missing.
    public init(checkpoint value: JSONValue) throws(RoomLogWireError) {
        func string(_ object: JSONValue, _ key: String) throws(RoomLogWireError) -> String {
            guard let text = object[key]?.stringValue else { throw RoomLogWireError("checkpoint without '\(key)'") }
            return text
        }
        func int(_ object: JSONValue, _ key: String) throws(RoomLogWireError) -> Int64 {
            guard let number = object[key]?.intValue else { throw RoomLogWireError("checkpoint without '\(key)'") }
            return number
        }
        func bool(_ object: JSONValue, _ key: String) -> Bool { object[key]?.boolValue ?? false }
        var state = RoomState(id: try string(value, "room"))
        state.sequence = UInt64(max(0, try int(value, "seq")))
        state.callType = try string(value, "callType")
        state.startedAt = value["startedAt"]?.intValue
        state.initiator = value["initiator"]?.stringValue
        state.isRecording = bool(value, "recording")
        state.audioMode = value["audioMode"]?.stringValue
        state.activeSpeaker = value["activeSpeaker"]?.stringValue
        for item in value["participants"]?.arrayValue ?? [] {
            guard let role = ParticipantRole(rawValue: try string(item, "role")) else {
                throw RoomLogWireError("checkpoint with an unknown role")
            }
            var participant = Participant(
                uid: try string(item, "uid"), name: try string(item, "name"),
                avatar: item["avatar"]?.stringValue, role: role,
                joinedAt: try int(item, "joinedAt"), order: Int(try int(item, "order")))
            participant.mid = item["mid"]?.stringValue
            for device in item["devices"]?.arrayValue ?? [] {
                participant.devices.append(
                    ParticipantDevice(
                        deviceID: try string(device, "id"),
                        joinedAt: try int(device, "joinedAt"),
                        isConnected: bool(device, "connected")))
            }
            participant.leftAt = item["leftAt"]?.intValue
            participant.audioMuted = bool(item, "audioMuted")
            participant.videoPaused = bool(item, "videoPaused")
            participant.presenting = bool(item, "presenting")
            participant.handRaised = bool(item, "handRaised")
            participant.pinned = bool(item, "pinned")
            participant.mutedByModerator = bool(item, "mutedByModerator")
            participant.cameraFacing = item["cameraFacing"]?.stringValue
            participant.audioMilliseconds = try int(item, "audioMs")
            participant.videoMilliseconds = try int(item, "videoMs")
            participant.durationMilliseconds = try int(item, "durationMs")
            participant.accountedUntil = try int(item, "accountedUntil")
            state.participants[participant.uid] = participant
            state.joinOrder.append(participant.uid)
        }
        state.operators = Set((value["operators"]?.arrayValue ?? []).compactMap(\.stringValue))
        state.banned = Set((value["banned"]?.arrayValue ?? []).compactMap(\.stringValue))
        if let meeting = value["activeMeeting"], !meeting.isNull,
            case .meetingMessage(let message) = try RoomEvent(wireValue: meeting)
        {
            state.activeMeeting = message
        }
        self.init(
            state: state, heldSpeaker: value["heldSpeaker"]?.stringValue,
            heldSince: value["heldSince"]?.intValue ?? 0, speakerDue: value["speakerDue"]?.intValue)
    }
}
