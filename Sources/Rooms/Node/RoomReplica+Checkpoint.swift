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
            .object(participant.wireObject(.checkpoint))
        }
        return .object(
            JSONObject([
                ("room", .string(state.id)), ("seq", .int(Int64(state.sequence))),
                ("callType", .string(state.callType)),
                ("startedAt", optional(state.startedAt)), ("initiator", optional(state.initiator)),
                ("recording", .bool(state.isRecording)), ("speakers", .array(state.speakers.map { .string($0) })),
                ("participants", .array(participants)),
                ("operators", .array(state.operators.sorted().map { .string($0) })),
                ("banned", .array(state.banned.sorted().map { .string($0) })),
                ("metadata", ServerMessages.strings(state.metadata)),
                ("metadataSeq", .int(Int64(state.metadataSequence))), ("locked", .bool(state.isLocked)),
                ("floor", state.presenterLimit.map { .int(Int64($0)) } ?? .null),
                ("floorQueues", .bool(state.floorQueues)),
                ("floorQueue", .array(state.floorQueue.map { .string($0) })),
                ("admission", .bool(state.requiresAdmission)),
                ("waiting", .array(state.waiting.map { .object($0.wireObject) })),
                ("admitted", .array(state.admitted.sorted().map { .string($0) })),
                ("activeMeeting", state.activeMeeting.map { RoomEvent.meetingMessage($0).wireValue } ?? .null),
                ("heldSpeaker", optional(self.heldSpeaker)), ("heldSince", .int(self.heldSince)),
                ("speakerDue", optional(self.speakerDue)), ("pendingSpeaker", optional(self.pendingSpeaker)),
                ("switchUnannounced", .bool(self.switchUnannounced)),
            ]))
    }

    /// Reads a checkpoint written by `checkpoint`.
    ///
    /// - Parameter value: the JSON object.
    /// - Throws: `RoomLogWireError` naming what is missing.
    public init(checkpoint value: JSONValue) throws(RoomLogWireError) {
        let fields = CheckpointFields(value)
        var state = RoomState(id: try fields.string("room"))
        state.sequence = UInt64(max(0, try fields.int("seq")))
        state.callType = try fields.string("callType")
        state.startedAt = value["startedAt"]?.intValue
        state.initiator = value["initiator"]?.stringValue
        state.isRecording = fields.bool("recording")
        state.isLocked = fields.bool("locked")
        state.presenterLimit = value["floor"]?.intValue.map { Int($0) }
        state.floorQueues = fields.bool("floorQueues")
        state.floorQueue = value["floorQueue"]?.arrayValue?.compactMap(\.stringValue) ?? []
        state.metadataSequence = UInt64(max(0, value["metadataSeq"]?.intValue ?? 0))
        state.requiresAdmission = fields.bool("admission")
        state.waiting = try (value["waiting"]?.arrayValue ?? []).map { item throws(RoomLogWireError) in
            try WaitingEntry(wireObject: item)
        }
        state.admitted = Set((value["admitted"]?.arrayValue ?? []).compactMap(\.stringValue))
        for item in value["participants"]?.arrayValue ?? [] {
            let participant = try Participant(checkpoint: item)
            state.participants[participant.uid] = participant
            state.joinOrder.append(participant.uid)
        }
        if let speakers = value["speakers"]?.arrayValue {
            state.speakers = speakers.compactMap(\.stringValue)
        } else if let speaker = value["activeSpeaker"]?.stringValue {
            // Written before the speakers were kept as a list.
            state.speakers = [speaker]
        }
        state.operators = Set((value["operators"]?.arrayValue ?? []).compactMap(\.stringValue))
        state.banned = Set((value["banned"]?.arrayValue ?? []).compactMap(\.stringValue))
        for (key, item) in value["metadata"]?.objectValue?.entries ?? [] {
            if let text = item.stringValue { state.metadata[key] = text }
        }
        if let meeting = value["activeMeeting"], !meeting.isNull,
            case .meetingMessage(let message) = try RoomEvent(wireValue: meeting)
        {
            state.activeMeeting = message
        }
        self.init(
            state: state, heldSpeaker: value["heldSpeaker"]?.stringValue,
            heldSince: value["heldSince"]?.intValue ?? 0, speakerDue: value["speakerDue"]?.intValue,
            pendingSpeaker: value["pendingSpeaker"]?.stringValue,
            switchUnannounced: value["switchUnannounced"]?.boolValue ?? false)
    }
}
