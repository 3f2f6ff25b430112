import JSONCoding

/// Roster views: patches when changes are flushed, snapshots, and the patches a resuming subscriber missed.
extension Gateway {
    /// The channel of a view in a room, created with the current roster when it does not exist yet.
    func channel(_ spec: RosterViewSpec, in room: GatewayRoom) -> ViewChannel {
        if let channel = room.channels[spec] { return channel }
        // A new view starts from the view as sent: pending changes (and a due speaker switch) go out first, or the
        // next flush would change the new view without moving its sequence number.
        self.flush(room)
        let view = RosterView.render(
            room.state, spec: spec, speaker: room.heldSpeaker,
            capacity: self.configuration.roomCapacity)
        let channel = ViewChannel(spec: spec, view: view, sequence: room.state.sequence)
        room.channels[spec] = channel
        return channel
    }

    /// Sends every view's patch for what changed since the last flush: computed and encoded once per view, and
    /// queued to each of the view's subscribers that is keeping up.
    func flush(_ room: GatewayRoom) {
        let now = self.clock()
        room.flushDue = nil
        guard room.hasPendingChanges else { return }
        let state = room.state
        let capacity = self.configuration.roomCapacity
        var entries: [String: JSONObject] = [:]
        let roomEntry = RosterView.roomEntry(state, speaker: room.heldSpeaker, capacity: capacity)
        for spec in room.channels.keys.sorted(by: { $0.description < $1.description }) {
            let channel = room.channels[spec]!
            let members = RosterView.members(state, spec: spec, speaker: room.heldSpeaker)
            let memberSet = Set(members)
            var candidates = room.dirtyUIDs
            if room.everythingDirty {
                candidates.formUnion(state.participants.keys)
                candidates.formUnion(state.banned)
            }
            for uid in channel.view.participants.keys where !memberSet.contains(uid) { candidates.insert(uid) }
            for uid in members where channel.view.participants[uid] == nil { candidates.insert(uid) }
            var participantsPatch = JSONObject()
            for uid in candidates.sorted(by: CanonicalJSON.keyPrecedes) {
                var entry: JSONObject?
                if memberSet.contains(uid) {
                    if let cached = entries[uid] {
                        entry = cached
                    } else {
                        let rendered = RosterView.entry(uid, in: state)
                        entries[uid] = rendered
                        entry = rendered
                    }
                }
                if let change = channel.update(uid, to: entry) { participantsPatch[uid] = change }
            }
            var patch = JSONObject()
            if let roomPatch = channel.updateRoom(roomEntry) { patch["room"] = .object(roomPatch) }
            if !participantsPatch.isEmpty { patch["participants"] = .object(participantsPatch) }
            guard !patch.isEmpty else { continue }
            let from = channel.sequence
            let message = JSONWriter.bytes(
                .object(
                    JSONObject([
                        ("type", .string("patch")), ("room", .string(state.id)), ("from", .int(Int64(from))),
                        ("seq", .int(Int64(state.sequence))), ("patch", .object(patch)),
                        ("checksum", .string(RosterChecksum.hex(channel.checksum))),
                    ])))
            channel.recordPatch(
                from: from, to: state.sequence, time: now, message: message,
                retention: self.configuration.history)
            var recipients: [SessionID] = []
            for id in channel.subscribers {
                guard let session = self.sessions[id] else { continue }
                if session.isWritable && !session.needsResync.contains(state.id) {
                    recipients.append(id)
                } else if !session.needsResync.contains(state.id) {
                    session.needsResync.insert(state.id)
                }
            }
            if !recipients.isEmpty {
                self.statistics.patches += 1
                self.statistics.patchBytes += message.count
                self.statistics.patchDeliveries += recipients.count
                self.transport.send(message, to: recipients)
            }
        }
        room.dirtyUIDs = []
        room.everythingDirty = false
        room.roomDirty = false
    }

    /// Sends a snapshot: the room's state, its roster view (the object patches apply to) and its checksum. The
    /// `all` view also carries the full participant list with time totals.
    func sendSnapshot(
        to session: GatewaySession,
        room: GatewayRoom,
        view spec: RosterViewSpec,
        recovered: Bool?,
        resync: Bool
    ) {
        let channel = self.channel(spec, in: room)
        let now = self.clock()
        let isPlain = recovered == nil && !resync
        // A plain snapshot is the same bytes for everyone until the room or the view changes or a participant's
        // minute totals tick over: a crowd joining at once costs one encoding, not one each.
        if isPlain, let cached = channel.cachedSnapshot, cached.stateSequence == room.state.sequence,
            cached.viewSequence == channel.sequence, now < cached.validUntil
        {
            self.transport.send(cached.bytes, to: [session.id])
            return
        }
        var message = ServerMessages.snapshot(
            room.state, capacity: self.configuration.roomCapacity,
            now: now, recovered: recovered,
            includeParticipants: spec == .all)
        if case .object(var object) = message {
            object["seq"] = .int(Int64(channel.sequence))
            object["view"] = ServerMessages.viewSpec(spec)
            object["roster"] = channel.view.json
            object["checksum"] = .string(RosterChecksum.hex(channel.checksum))
            if resync { object["resync"] = .bool(true) }
            message = .object(object)
        }
        let bytes = JSONWriter.bytes(message)
        if isPlain {
            let validUntil = spec == .all ? ServerMessages.nextTotalsChange(room.state, after: now) : Int64.max
            channel.cachedSnapshot = ViewChannel.CachedSnapshot(
                stateSequence: room.state.sequence, viewSequence: channel.sequence, validUntil: validUntil, bytes: bytes
            )
        }
        self.transport.send(bytes, to: [session.id])
    }

    /// The patch from a view as it was right after `sequence` to the view as the channel last sent it, rebuilt
    /// from the room's base and retained log; nil when that point is not retained.
    func patch(of channel: ViewChannel, in room: GatewayRoom, since sequence: UInt64) -> [UInt8]? {
        guard sequence < channel.sequence,
            let past = room.replica(at: sequence, speakerHold: self.speakerHold)
        else { return nil }
        let old = RosterView.render(
            past.state, spec: channel.spec, speaker: past.heldSpeaker,
            capacity: self.configuration.roomCapacity)
        let new = channel.view
        var patch = JSONObject()
        if let roomPatch = JSONMergePatch.diff(old.room, new.room) { patch["room"] = .object(roomPatch) }
        var participants = JSONObject()
        for uid in Set(old.participants.keys).union(new.participants.keys).sorted(by: CanonicalJSON.keyPrecedes) {
            switch (old.participants[uid], new.participants[uid]) {
            case (nil, nil): break
            case (.some, nil): participants[uid] = .null
            case (nil, let entry?): participants[uid] = .object(entry)
            case (let before?, let after?):
                if let change = JSONMergePatch.diff(before, after) { participants[uid] = .object(change) }
            }
        }
        if !participants.isEmpty { patch["participants"] = .object(participants) }
        return JSONWriter.bytes(
            .object(
                JSONObject([
                    ("type", .string("patch")), ("room", .string(room.state.id)), ("from", .int(Int64(sequence))),
                    ("seq", .int(Int64(channel.sequence))), ("patch", .object(patch)),
                    ("checksum", .string(RosterChecksum.hex(channel.checksum))),
                ])))
    }

    /// A stored patch or event message with `"recovered":true` added before its closing brace.
    static func markedRecovered(_ message: [UInt8]) -> [UInt8] {
        var bytes = message
        bytes.removeLast()
        bytes.append(contentsOf: Array(#","recovered":true}"#.utf8))
        return bytes
    }
}
