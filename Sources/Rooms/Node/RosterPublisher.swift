import JSONCoding

/// The one place that decides when a room's roster goes out, and builds it: snapshots, patches and the patches a
/// resuming subscriber missed.
///
/// Each roster view of a room (`ViewChannel`) is computed and encoded once for all its subscribers. Changes are
/// marked as events are applied (`applied`) and go out as one patch per view when the room's coalescing window
/// closes (`publishIfDue`), at once for urgent events (`RoomEvent.isUrgent`), and before anything that must start
/// from the view as sent: a new view, a joiner's snapshot, a resync, a change of view.
final class RosterPublisher {
    private let configuration: RoomsConfiguration
    private unowned let transport: any RoomsTransport
    private let clock: () -> Int64
    /// Looks a session up (the gateway's sessions).
    var session: (SessionID) -> HostedSession? = { _ in nil }
    /// Told when a room's coalescing window opens, with the moment its patches are due.
    var windowOpened: (HostedRoom, Int64) -> Void = { _, _ in }
    /// What the publisher counts, for the gateway's statistics.
    enum Count {
        /// A change joined a coalescing window already open.
        case coalescedChange
        /// A patch of `bytes` went to `deliveries` subscribers.
        case patch(bytes: Int, deliveries: Int)
        /// A subscriber that fell behind got a fresh snapshot.
        case resyncSnapshot
    }

    /// Counts into the gateway's statistics.
    var count: (Count) -> Void = { _ in }
    /// How the shown active speaker follows the reports (for rebuilding past views).
    let speakerRule: SpeakerRule

    init(
        configuration: RoomsConfiguration,
        transport: any RoomsTransport,
        clock: @escaping () -> Int64,
        speakerRule: SpeakerRule
    ) {
        self.configuration = configuration
        self.transport = transport
        self.clock = clock
        self.speakerRule = speakerRule
    }

    // MARK: When patches go out

    /// An entry was applied to the room: marks what it may have changed in the roster, then sends the patches at
    /// once (an urgent event, or no coalescing window) or opens the room's coalescing window.
    ///
    /// - Parameters:
    ///   - event: the applied event.
    ///   - room: the room, with the event applied.
    ///   - startedCall: whether the event started a new call (which forgets who left the last one, and with them
    ///     the names the banned view shows).
    ///   - shownSpeakerChanges: the participants whose shown-speaker mark the event changed.
    func applied(_ event: RoomEvent, in room: HostedRoom, startedCall: Bool, shownSpeakerChanges: [String]) {
        if startedCall { room.dirtyUIDs.formUnion(room.state.banned) }
        room.dirtyUIDs.formUnion(shownSpeakerChanges)
        room.roomDirty = true
        if let uid = event.changedParticipant { room.dirtyUIDs.insert(uid) }
        if event.changesEveryParticipant { room.everythingDirty = true }
        if event.changesVersion { room.versionChanged = true }
        let window = self.configuration.patchWindowMilliseconds
        if window == 0 || (self.configuration.immediateLeaves && event.isUrgent) {
            self.publish(room)
        } else if room.flushDue == nil {
            let due = self.clock() + window
            room.flushDue = due
            self.windowOpened(room, due)
        } else {
            self.count(.coalescedChange)
        }
    }

    /// Sends the room's patches if its coalescing window has closed by `now`.
    func publishIfDue(_ room: HostedRoom, now: Int64) {
        if let due = room.flushDue, due <= now { self.publish(room) }
    }

    /// Sends the room's pending patches now (a switch of the shown speaker, which has a sequence number of its own).
    func publishNow(_ room: HostedRoom) {
        self.publish(room)
    }

    // MARK: Subscribers

    /// A subscriber is about to join or watch the room: what is pending goes out first, so the joiner starts where
    /// the others are and sees its own join, unless another join did so within the window (in a storm of joins
    /// they coalesce like any change: the snapshot is then the view as last sent, where the next patch starts).
    func joining(_ room: HostedRoom) {
        let now = self.clock()
        if room.lastJoinFlush.map({ now - $0 >= self.configuration.patchWindowMilliseconds }) ?? true {
            room.lastJoinFlush = now
            self.publish(room)
        }
    }

    /// Adds a subscriber to its view's channel.
    ///
    /// - Parameters:
    ///   - id: the session.
    ///   - spec: its view.
    ///   - room: the room.
    func subscribe(_ id: SessionID, to spec: RosterViewSpec, in room: HostedRoom) {
        let channel = self.channel(spec, in: room)
        channel.subscribers.append(id)
        channel.idleSince = nil
    }

    /// Removes a subscriber from its view's channel.
    func unsubscribe(_ id: SessionID, from spec: RosterViewSpec, in room: HostedRoom) {
        guard let channel = room.channels[spec] else { return }
        channel.subscribers.removeAll { $0 == id }
        if channel.subscribers.isEmpty { channel.idleSince = self.clock() }
    }

    /// Moves a subscriber to another view (it then needs that view's snapshot); pending changes go out first, to
    /// the old view's subscribers.
    func move(_ id: SessionID, from old: RosterViewSpec, to new: RosterViewSpec, in room: HostedRoom) {
        self.publish(room)
        guard old != new else { return }
        self.unsubscribe(id, from: old, in: room)
        let channel = self.channel(new, in: room)
        channel.subscribers.append(id)
        channel.idleSince = nil
    }

    /// Sends a fresh snapshot to a subscriber whose patches were skipped while it did not read; pending changes go
    /// out first, while it still skips them, so the snapshot includes them.
    func resync(_ session: HostedSession, view: RosterViewSpec, in room: HostedRoom) {
        self.publish(room)
        session.needsResync.remove(room.state.id)
        self.count(.resyncSnapshot)
        self.sendSnapshot(to: session, room: room, view: view, recovered: nil, resync: true)
    }

    /// Starts every view of a room again from the room as it is now, with a fresh snapshot to each subscriber (the
    /// room was reloaded from a cluster's shared log after a gap).
    func restartViews(of room: HostedRoom) {
        let subscribers = room.channels.values.flatMap(\.subscribers)
        room.channels = [:]
        room.dirtyUIDs = []
        room.everythingDirty = false
        room.roomDirty = false
        room.flushDue = nil
        for id in subscribers {
            guard let session = self.session(id), let subscription = session.subscriptions[room.state.id] else {
                continue
            }
            self.channel(subscription.view, in: room).subscribers.append(id)
            self.count(.resyncSnapshot)
            self.sendSnapshot(to: session, room: room, view: subscription.view, recovered: nil, resync: true)
        }
    }

    // MARK: Snapshots, patches, resume

    /// Sends a snapshot: the room's state, its roster view (the object patches apply to) and its checksum. The
    /// `all` view also carries the full participant list with time totals.
    func sendSnapshot(
        to session: HostedSession,
        room: HostedRoom,
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
        let bytes = JSONWriter.bytes(
            ServerMessages.snapshot(
                room.state, capacity: self.configuration.roomCapacity, now: now, recovered: recovered,
                includeParticipants: spec == .all,
                roster: ServerMessages.RosterSnapshot(
                    sequence: channel.sequence, spec: spec, view: channel.view.json, checksum: channel.checksum,
                    resync: resync)))
        if isPlain {
            let validUntil = spec == .all ? ServerMessages.nextTotalsChange(room.state, after: now) : Int64.max
            channel.cachedSnapshot = ViewChannel.CachedSnapshot(
                stateSequence: room.state.sequence, viewSequence: channel.sequence, validUntil: validUntil, bytes: bytes
            )
        }
        self.transport.send(bytes, to: [session.id])
    }

    /// Sends a resuming subscriber what it missed, each message marked recovered, in log order (a patch goes out
    /// after the events its roster change follows), then the `resumed` answer. The caller has found all of it
    /// (`RoomsNode+Resume.swift`): nothing is sent before everything is known, so a recovery is never partial.
    ///
    /// - Parameters:
    ///   - patches: the view's patches since the subscriber's roster, oldest first, with the sequence number each
    ///     brings the roster to.
    ///   - events: the events its subscription takes since its position, oldest first, as they were sent live.
    ///   - session: the subscriber.
    ///   - room: the room.
    func replay(
        patches: [(to: UInt64, message: [UInt8])],
        events: [(sequence: UInt64, message: [UInt8])],
        to session: HostedSession,
        in room: HostedRoom
    ) {
        var patchIndex = 0
        var eventIndex = 0
        while patchIndex < patches.count || eventIndex < events.count {
            let takePatch =
                eventIndex >= events.count
                || (patchIndex < patches.count && patches[patchIndex].to < events[eventIndex].sequence)
            if takePatch {
                self.transport.send(ServerMessages.markedRecovered(patches[patchIndex].message), to: [session.id])
                patchIndex += 1
            } else {
                self.transport.send(ServerMessages.markedRecovered(events[eventIndex].message), to: [session.id])
                eventIndex += 1
            }
        }
        self.transport.send(
            JSONWriter.bytes(ServerMessages.resumed(room: room.state.id, sequence: room.state.sequence)),
            to: [session.id])
    }

    /// The roster view `spec` of a room as a snapshot rendered now would carry it, with the held active speaker.
    func renderedView(of room: HostedRoom, spec: RosterViewSpec) -> RosterView {
        RosterView.render(
            room.state, spec: spec, speaker: room.heldSpeaker, capacity: self.configuration.roomCapacity)
    }

    /// The channel of a view in a room, created with the current roster when it does not exist yet.
    private func channel(_ spec: RosterViewSpec, in room: HostedRoom) -> ViewChannel {
        if let channel = room.channels[spec] { return channel }
        // A new view starts from the view as sent: pending changes (and a due speaker switch) go out first, or the
        // next patch would change the new view without moving its sequence number.
        self.publish(room)
        let state = room.state
        var records: [String: RosterRecord] = [:]
        let window = RosterView.window(state, spec: spec, speaker: room.heldSpeaker)
        for uid in window.members {
            records[uid] = RosterRecord(uid, in: state, form: spec.filter.entryForm)
        }
        let channel = ViewChannel(
            spec: spec,
            room: RoomRecord(
                state, speaker: room.heldSpeaker, capacity: self.configuration.roomCapacity, total: window.total),
            records: records, sequence: state.sequence)
        room.channels[spec] = channel
        return channel
    }

    /// Sends every view's patch for what changed since the last one: computed and encoded once per view, and
    /// queued to each of the view's subscribers that is keeping up (the others get a snapshot when they are).
    private func publish(_ room: HostedRoom) {
        let now = self.clock()
        room.flushDue = nil
        guard room.hasPendingChanges else { return }
        let state = room.state
        var entries: [String: RosterRecord] = [:]
        // Checksum hashes of changed entries, computed once for all views; the banned and waiting forms have their
        // own entries and hashes.
        var hashes: [String: UInt64] = [:]
        var otherFormEntries: [RosterRecord.FormKind: [String: RosterRecord]] = [:]
        var otherFormHashes: [RosterRecord.FormKind: [String: UInt64]] = [:]
        // The room entry is the same for every view but for its `total`; the counts are computed once here.
        var roomEntry = RoomRecord(
            state, speaker: room.heldSpeaker, capacity: self.configuration.roomCapacity, total: 0)
        for spec in room.channels.keys.sorted(by: { $0.description < $1.description }) {
            let channel = room.channels[spec]!
            let window = RosterView.window(state, spec: spec, speaker: room.heldSpeaker)
            let members = window.members
            roomEntry.total = window.total
            let memberSet = Set(members)
            var candidates = room.dirtyUIDs
            if room.everythingDirty {
                candidates.formUnion(state.participants.keys)
                candidates.formUnion(state.banned)
                for entry in state.waiting { candidates.insert(entry.uid) }
            }
            for uid in channel.records.keys where !memberSet.contains(uid) { candidates.insert(uid) }
            for uid in members where channel.records.index(forKey: uid) == nil { candidates.insert(uid) }
            let form = spec.filter.entryForm
            var participantsPatch = JSONObject()
            for uid in candidates.sorted(by: CanonicalJSON.keyPrecedes) {
                var record: RosterRecord?
                if memberSet.contains(uid) {
                    if let cached = form == .member ? entries[uid] : otherFormEntries[form]?[uid] {
                        record = cached
                    } else {
                        let rendered = RosterRecord(uid, in: state, form: form)
                        if form == .member {
                            entries[uid] = rendered
                        } else {
                            otherFormEntries[form, default: [:]][uid] = rendered
                        }
                        record = rendered
                    }
                }
                let change: JSONValue?
                if form == .member {
                    change = channel.update(uid, to: record, hashes: &hashes)
                } else {
                    change = channel.update(uid, to: record, hashes: &otherFormHashes[form, default: [:]])
                }
                if let change { participantsPatch[uid] = change }
            }
            var patch = JSONObject()
            if let roomPatch = channel.updateRoom(roomEntry) { patch["room"] = .object(roomPatch) }
            if !participantsPatch.isEmpty { patch["participants"] = .object(participantsPatch) }
            guard !patch.isEmpty || room.versionChanged else { continue }
            let from = channel.sequence
            let message = ServerMessages.patchMessage(
                room: state.id, from: from, to: state.sequence, patch: patch, checksum: channel.checksum)
            channel.recordPatch(
                from: from, to: state.sequence, time: now, message: message, retention: self.configuration.history)
            var recipients: [SessionID] = []
            for id in channel.subscribers {
                guard let session = self.session(id) else { continue }
                let skipping = !session.needsResync.isEmpty && session.needsResync.contains(state.id)
                if session.isWritable && !skipping {
                    recipients.append(id)
                } else if !skipping {
                    session.needsResync.insert(state.id)
                }
            }
            if !recipients.isEmpty {
                self.count(.patch(bytes: message.count, deliveries: recipients.count))
                self.transport.send(message, to: recipients)
            }
        }
        room.dirtyUIDs = []
        room.everythingDirty = false
        room.roomDirty = false
        room.versionChanged = false
    }

    /// The patch from a view as it was in `past` (the room right after `past.state.sequence`, rebuilt from the log
    /// or the store) to the view as the channel last sent it.
    ///
    /// - Parameters:
    ///   - channel: the view.
    ///   - room: the room.
    ///   - past: the room's replica at the subscriber's roster sequence number, before the channel's.
    func patch(of channel: ViewChannel, in room: HostedRoom, from past: RoomReplica) -> [UInt8] {
        let old = RosterView.render(
            past.state, spec: channel.spec, speaker: past.heldSpeaker, capacity: self.configuration.roomCapacity)
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
        return ServerMessages.patchMessage(
            room: room.state.id, from: past.state.sequence, to: channel.sequence, patch: patch,
            checksum: channel.checksum)
    }
}

@available(*, unavailable) extension RosterPublisher: Sendable {}
