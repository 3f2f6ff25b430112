/// Resuming a subscription after a reconnect: what the subscriber missed is found in memory and, with a store,
/// read back from it, and sent only when all of it is found (never a partial recovery).
///
/// Everything on one connection goes out in log order, so a client that received a snapshot, patch, event or
/// `resumed` at some `seq` has everything its subscription takes up to that `seq`: its position, the larger of
/// `resume` and `resumeEvents`. Only what the subscription takes after that position must still be at hand: the
/// events of its mode (the log keeps, per mode, the newest such entry it dropped) and its view's roster at `resume`,
/// which the view's sent patches give, or the room rebuilt from the log or the store.
extension RoomsNode {
    /// Most entries a resume reads back from the store, for the events missed and for rebuilding the roster view a
    /// client holds; a resume that would need more gets a fresh snapshot.
    static let maximumStoredResumeEntries: UInt64 = 10_000

    /// Sends exactly what a resuming subscriber missed (its view's roster patches since `resume.roster`, the events
    /// its subscription takes after its position, in log order) and the `resumed` answer, or returns false when
    /// not all of it can be found; the caller then sends a fresh snapshot.
    ///
    /// - Parameters:
    ///   - session: the subscriber, subscribed to the room already.
    ///   - room: the room.
    ///   - subscription: its subscription (view and event mode).
    ///   - resume: where it left off.
    func resume(
        _ session: HostedSession,
        room: HostedRoom,
        subscription: HostedSession.Subscription,
        from resume: ClientMessage.Resume
    ) -> Bool {
        let position = resume.position
        guard position <= room.state.sequence, let channel = room.channels[subscription.view] else { return false }
        do throws(RoomStoreError) {
            guard let patches = try self.missedPatches(of: channel, in: room, since: resume.roster),
                let events = try self.missedEvents(
                    in: room, mode: subscription.events, uid: session.claims?.subject, after: position)
            else { return false }
            self.publisher.replay(patches: patches, events: events, to: session, in: room)
            return true
        } catch {
            self.roomLogStoreUnreadable("cannot read '\(room.state.id)' back for a resume: \(error)")
            return false
        }
    }

    /// The patches that bring a view's roster from `sequence` to the view as last sent: those sent, while retained;
    /// else one patch from the view rebuilt as it was then (from the room's base and retained log, or from the
    /// store's checkpoint and entries) to the view now. Nil when the view at `sequence` cannot be rebuilt.
    private func missedPatches(
        of channel: ViewChannel, in room: HostedRoom, since sequence: UInt64
    ) throws(RoomStoreError) -> [(to: UInt64, message: [UInt8])]? {
        if let sent = channel.patches(after: sequence) { return sent.map { ($0.to, $0.message) } }
        // The view's patches since then were not sent from here (another node, before a restart, or before this
        // node loaded the room), or are no longer retained.
        let past: RoomReplica
        if let replica = room.replica(at: sequence, speakerRule: self.speakerRule) {
            past = replica
        } else if let stored = try self.storedReplica(of: room.state.id, at: sequence) {
            past = stored
        } else {
            return nil
        }
        return [(channel.sequence, self.publisher.patch(of: channel, in: room, from: past))]
    }

    /// The events a subscriber in `mode` of user `uid` is sent, after `position`, as they were sent live (none about
    /// a hidden participant but itself, `RoomEvent.audience`): from memory when it has dropped none of them since
    /// (of those only one participant could receive, none of that participant's), else with those before memory's
    /// first entry read back from the store, which must then hold every entry in between. Nil when some may be lost.
    private func missedEvents(
        in room: HostedRoom, mode: EventMode, uid: String?, after position: UInt64
    ) throws(RoomStoreError) -> [(sequence: UInt64, message: [UInt8])]? {
        let rule = self.speakerRule
        var missed: [(sequence: UInt64, message: [UInt8])] = []
        let dropped = max(room.log.droppedThrough(takenBy: mode), uid.flatMap { room.droppedRestricted[$0] } ?? 0)
        if position < dropped {
            guard
                let stored = try self.storedEntries(
                    of: room.state.id, after: position, through: room.log.firstSequence - 1)
            else { return nil }
            for item in stored
            where mode.delivers(item.entry.event, to: uid, speakerRule: rule)
                && Self.storedEntry(item, in: room, reaches: uid)
            {
                missed.append((item.entry.sequence, item.message))
            }
        }
        for entry in room.log.retained(after: position)
        where mode.delivers(entry.event, to: uid, speakerRule: rule) && room.event(entry.sequence, reaches: uid) {
            let message = room.messages[entry.sequence] ?? ServerMessages.event(entry, room: room.state)
            missed.append((entry.sequence, message))
        }
        return missed
    }

    /// The room as it was right after `sequence`, rebuilt from the store's newest checkpoint at or before it and
    /// the entries after that; nil without a store (a log in memory, or a shared one), or when the store no longer
    /// holds them all.
    private func storedReplica(of roomID: String, at sequence: UInt64) throws(RoomStoreError) -> RoomReplica? {
        guard let store = self.log.roomStore else { return nil }
        var replica =
            try store.checkpoint(room: roomID, atOrBefore: sequence) ?? RoomReplica(state: RoomState(id: roomID))
        replica.state.id = roomID
        guard replica.state.sequence <= sequence,
            let entries = try self.storedEntries(of: roomID, after: replica.state.sequence, through: sequence)
        else { return nil }
        for item in entries { replica.apply(item.entry, speakerRule: self.speakerRule) }
        return replica
    }

    /// Every committed entry of a room after `first` through `last`, oldest first; nil without a store (a log in
    /// memory, or a shared one), past `maximumStoredResumeEntries`, or when the store no longer holds all of them
    /// (its retention per class of event leaves gaps).
    private func storedEntries(
        of roomID: String, after first: UInt64, through last: UInt64
    ) throws(RoomStoreError) -> [StoredLogEntry]? {
        guard last > first else { return [] }
        let count = last - first
        guard let store = self.log.roomStore, count <= Self.maximumStoredResumeEntries else {
            return nil
        }
        let entries = try store.history(room: roomID, after: first, eventNames: nil, limit: Int(count))
        guard entries.count == Int(count) else { return nil }
        for (offset, item) in entries.enumerated() where item.entry.sequence != first + 1 + UInt64(offset) {
            return nil
        }
        return entries
    }
}
