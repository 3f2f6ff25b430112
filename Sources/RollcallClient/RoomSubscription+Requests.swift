import JSONCoding

/// The requests about a subscription's room: the participant's own state, media, attributes and metadata, moderator
/// actions and permissions, the roster view, and leaving.
extension RoomSubscription {
    /// Sets the participant's own state; only the fields given are sent.
    ///
    /// - Parameters:
    ///   - fields: any of `audioMuted`, `videoPaused`, `presenting`, `handRaised` (booleans), `mid` and
    ///     `cameraFacing` (strings).
    /// - Returns: the acknowledgement; `changed` tells whether anything changed.
    /// - Throws: `RollcallError`, for example `ERR_NOT_IN_ROOM` for an observer.
    @discardableResult
    public func updateState(_ fields: JSONObject) async throws(RollcallError) -> RollcallAcknowledgement {
        try await self.acknowledged(.state, fields.entries.map { ($0.key, $0.value) })
    }

    /// Mutes or unmutes the microphone.
    ///
    /// - Parameters:
    ///   - muted: the new state.
    @discardableResult
    public func setAudioMuted(_ muted: Bool) async throws(RollcallError) -> RollcallAcknowledgement {
        try await self.updateState(["audioMuted": .bool(muted)])
    }

    /// Pauses or resumes the camera.
    ///
    /// - Parameters:
    ///   - paused: the new state.
    @discardableResult
    public func setVideoPaused(_ paused: Bool) async throws(RollcallError) -> RollcallAcknowledgement {
        try await self.updateState(["videoPaused": .bool(paused)])
    }

    /// Starts or stops sharing the screen.
    ///
    /// - Parameters:
    ///   - presenting: the new state.
    @discardableResult
    public func setPresenting(_ presenting: Bool) async throws(RollcallError) -> RollcallAcknowledgement {
        try await self.updateState(["presenting": .bool(presenting)])
    }

    /// Raises or lowers the hand.
    ///
    /// - Parameters:
    ///   - raised: the new state.
    @discardableResult
    public func setHandRaised(_ raised: Bool) async throws(RollcallError) -> RollcallAcknowledgement {
        try await self.updateState(["handRaised": .bool(raised)])
    }

    /// Raises the hand.
    @discardableResult
    public func raiseHand() async throws(RollcallError) -> RollcallAcknowledgement {
        try await self.setHandRaised(true)
    }

    /// Lowers the hand.
    @discardableResult
    public func lowerHand() async throws(RollcallError) -> RollcallAcknowledgement {
        try await self.setHandRaised(false)
    }

    /// Sets the media id the calls SDK gave the participant.
    ///
    /// - Parameters:
    ///   - mid: the media id.
    @discardableResult
    public func setMediaID(_ mid: String) async throws(RollcallError) -> RollcallAcknowledgement {
        try await self.updateState(["mid": .string(mid)])
    }

    /// Sets the camera in use.
    ///
    /// - Parameters:
    ///   - facing: `front` or `back`.
    @discardableResult
    public func setCameraFacing(_ facing: String) async throws(RollcallError) -> RollcallAcknowledgement {
        try await self.updateState(["cameraFacing": .string(facing)])
    }

    /// Reports whether this participant speaks, as its media stack detects it. Sent without waiting for an answer.
    /// The roster shows the active speaker by the room's speaker rule (docs/PROTOCOL.md, "speaker").
    ///
    /// - Parameters:
    ///   - speaking: true when it starts speaking, false when it stops.
    /// - Throws: `RollcallError` when the client is not connected.
    public func reportSpeaking(_ speaking: Bool) throws(RollcallError) {
        guard let client = self.client, let uid = client.uid else { throw RollcallError(.notConnected) }
        try client.sendUnanswered(.speaker, [("room", .string(self.room)), ("uid", speaking ? .string(uid) : .null)])
    }

    /// Reports who speaks, for a bot with the `speaker` capability: anyone in the call, or nil for nobody.
    /// Participants report themselves with `reportSpeaking(_:)`. Sent without waiting for an answer.
    ///
    /// - Parameters:
    ///   - uid: the speaker, or nil for nobody.
    /// - Throws: `RollcallError` when the client is not connected.
    public func reportActiveSpeaker(_ uid: String?) throws(RollcallError) {
        guard let client = self.client else { throw RollcallError(.notConnected) }
        try client.sendUnanswered(
            .speaker, [("room", .string(self.room)), ("uid", uid.map(JSONValue.string) ?? .null)])
    }

    /// Starts or stops recording (moderators, or bots with the `record` capability).
    ///
    /// - Parameters:
    ///   - recording: the new state.
    @discardableResult
    public func setRecording(_ recording: Bool) async throws(RollcallError) -> RollcallAcknowledgement {
        try await self.acknowledged(.media, [("recording", .bool(recording))])
    }

    /// Sets this participant's audio output (its own device's; nobody else's changes).
    ///
    /// - Parameters:
    ///   - mode: `speaker`, `earpiece`, `bluetooth` or `headphones`.
    @discardableResult
    public func setAudioMode(_ mode: String) async throws(RollcallError) -> RollcallAcknowledgement {
        try await self.acknowledged(.media, [("audioMode", .string(mode))])
    }

    /// Sets or removes this participant's attributes (a nil value removes the key); keys its token set are the
    /// backend's and cannot be changed here.
    ///
    /// - Parameters:
    ///   - changes: the keys to set, and those to remove (nil).
    ///   - ifSeq: a version check: refused with `ERR_CONFLICT`, changing nothing, if the attributes changed after
    ///     this sequence number (the `rosterSequence` they were read at, or an earlier ack's `sequence`).
    @discardableResult
    public func setAttributes(
        _ changes: [String: String?], ifSeq: UInt64? = nil
    ) async throws(RollcallError) -> RollcallAcknowledgement {
        try await self.acknowledged(.attributes, [("attributes", Self.changes(changes))] + Self.version(ifSeq))
    }

    /// Sets or removes the room's metadata (moderators, bots with the `metadata` capability).
    ///
    /// - Parameters:
    ///   - changes: the keys to set, and those to remove (nil).
    ///   - ifSeq: a version check: refused with `ERR_CONFLICT`, changing nothing, if the metadata changed after this
    ///     sequence number (the `rosterSequence` it was read at, or an earlier ack's `sequence`).
    @discardableResult
    public func setMetadata(
        _ changes: [String: String?], ifSeq: UInt64? = nil
    ) async throws(RollcallError) -> RollcallAcknowledgement {
        try await self.acknowledged(.metadata, [("metadata", Self.changes(changes))] + Self.version(ifSeq))
    }

    /// Locks the room (moderators, bots with `lock`): new joins into the call are refused with `ERR_ROOM_LOCKED`
    /// but for those who may lock it; who is in stays.
    ///
    /// - Parameters:
    ///   - reason: recorded with the action.
    @discardableResult
    public func lock(reason: String? = nil) async throws(RollcallError) -> RollcallAcknowledgement {
        try await self.perform(action: "lock", reason: reason)
    }

    /// Unlocks the room (moderators, bots with `lock`).
    ///
    /// - Parameters:
    ///   - reason: recorded with the action.
    @discardableResult
    public func unlock(reason: String? = nil) async throws(RollcallError) -> RollcallAcknowledgement {
        try await self.perform(action: "unlock", reason: reason)
    }

    /// Turns the room's waiting room on (moderators, bots with `admit`): a join into the call by a user who may not
    /// bypass it waits until admitted.
    @discardableResult
    public func requireAdmission() async throws(RollcallError) -> RollcallAcknowledgement {
        try await self.perform(action: "require_admission")
    }

    /// Turns the room's waiting room off, letting in everyone waiting.
    @discardableResult
    public func openAdmission() async throws(RollcallError) -> RollcallAcknowledgement {
        try await self.perform(action: "open_admission")
    }

    /// Lets a waiting user into the call: its join goes on (moderators, bots with `admit`).
    ///
    /// - Parameters:
    ///   - uid: the waiting user; `ERR_NOT_FOUND` when it does not wait.
    @discardableResult
    public func admit(_ uid: String) async throws(RollcallError) -> RollcallAcknowledgement {
        try await self.perform(action: "admit", target: uid)
    }

    /// Lets everyone waiting into the call.
    @discardableResult
    public func admitAll() async throws(RollcallError) -> RollcallAcknowledgement {
        try await self.perform(action: "admit_all")
    }

    /// Turns a waiting user away: its join fails with `ERR_ADMISSION_DENIED`, carrying `reason`.
    ///
    /// - Parameters:
    ///   - uid: the waiting user; `ERR_NOT_FOUND` when it does not wait.
    ///   - reason: sent to the user and recorded with the action.
    @discardableResult
    public func deny(_ uid: String, reason: String? = nil) async throws(RollcallError) -> RollcallAcknowledgement {
        try await self.perform(action: "deny", target: uid, reason: reason)
    }

    /// Turns everyone waiting away.
    @discardableResult
    public func denyAll(reason: String? = nil) async throws(RollcallError) -> RollcallAcknowledgement {
        try await self.perform(action: "deny_all", reason: reason)
    }

    /// Who waits in the waiting room, a page in arrival order (moderators, bots with `admit`).
    ///
    /// - Parameters:
    ///   - after: the `next` of the page before (a position from 1); nil for the first page.
    ///   - limit: at most this many entries (1 to 1000).
    /// - Returns: the entries and the position to ask after for the next page (nil on the last).
    public func waiting(
        after: Int? = nil, limit: Int = 100
    ) async throws(RollcallError)
        -> (entries: [RollcallWaitingEntry], next: Int?)
    {
        guard let client = self.client else { throw RollcallError(.notConnected) }
        var parameters = JSONObject()
        parameters["room"] = .string(self.room)
        parameters["limit"] = .int(Int64(limit))
        if let after { parameters["after"] = .int(Int64(after)) }
        let result = try await client.query("waiting", parameters)
        let entries = (result["waiting"]?.arrayValue ?? []).compactMap(RollcallWaitingEntry.init(json:))
        return (entries, result["next"]?.intValue.map { Int($0) })
    }

    /// Hard-mutes a participant (moderators, bots with `mute`): muted, and unable to unmute itself for `duration`
    /// seconds, or until `ask_unmute` or a permission change gives the right back (nil).
    ///
    /// - Parameters:
    ///   - uid: the participant.
    ///   - duration: how long, in seconds (1 s to a day), or nil until lifted.
    ///   - reason: recorded with the action.
    @discardableResult
    public func hardMute(
        _ uid: String, for duration: Int? = nil, reason: String? = nil
    ) async throws(RollcallError)
        -> RollcallAcknowledgement
    {
        var fields: [(String, JSONValue)] = [("action", "mute"), ("target", .string(uid)), ("hard", true)]
        if let duration { fields.append(("durationMs", .int(Int64(duration) * 1000))) }
        if let reason { fields.append(("reason", .string(reason))) }
        return try await self.acknowledged(.action, fields)
    }

    /// Changes a participant's permissions (moderators, bots with `permissions`): the ones given, the others as they
    /// are.
    ///
    /// - Parameters:
    ///   - uid: the participant.
    ///   - unmute: whether it may unmute itself.
    ///   - share: whether it may share its screen.
    ///   - meetings: whether it may send group meeting messages.
    ///   - hidden: whether it is left out of every roster view and count.
    ///   - ifSeq: a version check: refused with `ERR_CONFLICT`, changing nothing, if the participant's permissions
    ///     changed after this sequence number.
    @discardableResult
    public func setPermissions(
        of uid: String, unmute: Bool? = nil, share: Bool? = nil, meetings: Bool? = nil, hidden: Bool? = nil,
        ifSeq: UInt64? = nil
    ) async throws(RollcallError) -> RollcallAcknowledgement {
        let values: [(String, JSONValue)] = [
            ("unmute", unmute.map(JSONValue.bool)), ("share", share.map(JSONValue.bool)),
            ("meetings", meetings.map(JSONValue.bool)), ("hidden", hidden.map(JSONValue.bool)),
        ].compactMap { key, value in value.map { (key, $0) } }
        return try await self.acknowledged(
            .permissions,
            [("uid", .string(uid)), ("permissions", .object(JSONObject(uniqueKeysWithValues: values)))]
                + Self.version(ifSeq))
    }

    /// The `ifSeq` member of a version-checked write, none without one.
    private static func version(_ ifSeq: UInt64?) -> [(String, JSONValue)] {
        ifSeq.map { [("ifSeq", .int(Int64(clamping: $0)))] } ?? []
    }

    private static func changes(_ changes: [String: String?]) -> JSONValue {
        .object(
            JSONObject(
                uniqueKeysWithValues: changes.sorted { $0.key < $1.key }.map {
                    ($0.key, $0.value.map { .string($0) } ?? .null)
                }))
    }

    /// Performs a moderator action (`mute`, `mute_all`, `lower_hand`, `spotlight`, `unspotlight`, `promote`,
    /// `demote`, `remove`, `ban`, `unban`, `end_session`, `lock`, `unlock`, the presenter floor's `floor`,
    /// `open_floor`, `stop_share` and `hand_floor`, and the waiting room's `require_admission`, `open_admission`,
    /// `admit`, `admit_all`, `deny` and `deny_all`).
    ///
    /// - Parameters:
    ///   - action: the action's name.
    ///   - target: the uid it applies to; nil for `mute_all` and `end_session`.
    ///   - reason: a reason shown with the event.
    /// - Throws: `RollcallError` with `ERR_FORBIDDEN` when not allowed, `ERR_NOT_FOUND` for a target not in the call.
    @discardableResult
    public func perform(
        action: String, target: String? = nil, reason: String? = nil
    ) async throws(RollcallError)
        -> RollcallAcknowledgement
    {
        var fields: [(String, JSONValue)] = [("action", .string(action))]
        if let target { fields.append(("target", .string(target))) }
        if let reason { fields.append(("reason", .string(reason))) }
        return try await self.acknowledged(.action, fields)
    }

    /// Switches the roster view without leaving the room; returns once the new view's snapshot is applied.
    ///
    /// - Parameters:
    ///   - view: the new view.
    public func changeView(_ view: RollcallView) async throws(RollcallError) {
        guard let client = self.client else { throw RollcallError(.notConnected) }
        _ = try await client.request(
            .view, [("room", .string(self.room)), ("view", view.json)], room: self.room, completesOnRoster: true
        )
        self.lock.withLock { self.mirror.view = view }
    }

    /// Leaves the room (a participant leaves the call at once); the subscription ends.
    public func leave() async throws(RollcallError) {
        guard let client = self.client else { throw RollcallError(.notConnected) }
        _ = try await client.request(.leave, [("room", .string(self.room))])
        client.removeSubscription(self)
        self.end(nil)
    }

    private func acknowledged(
        _ type: RollcallClientMessageType, _ fields: [(String, JSONValue)]
    ) async throws(RollcallError)
        -> RollcallAcknowledgement
    {
        guard let client = self.client else { throw RollcallError(.notConnected) }
        let answer = try await client.request(type, [("room", .string(self.room))] + fields)
        return RollcallAcknowledgement(message: answer)
    }
}
