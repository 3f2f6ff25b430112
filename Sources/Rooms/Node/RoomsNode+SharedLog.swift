/// The gateway's side of the shared log of a cluster: requests that wait for a room, and what the shared log
/// reports as its delegate (a room loaded, entries delivered, a reload, a failure, a user to disconnect, a lease
/// lost).
extension RoomsNode: SharedRoomLogDelegate {
    /// Handles the requests that waited for a room, in order, until one of them makes the room wait again.
    func runWaitingRequests(of room: HostedRoom) {
        while room.isReady, let next = room.backlog.waiting.first {
            if room.backlog.appendsInFlight > 0 {
                guard case .request(_, let request) = next, request.message.isIndependentOfRoomState else { return }
            }
            switch room.backlog.waiting.removeFirst() {
            case .request(let id, let request):
                guard let session = self.sessions[id] else { continue }
                do {
                    try self.dispatch(request, from: session, resuming: room)
                } catch {
                    self.reply(session, ServerMessages.error(id: request.id, error))
                }
            case .call(let run, _):
                run()
            }
        }
    }

    /// Runs `body` with the room once it is loaded and no earlier work of this node waits for it (at once in a
    /// single process); in a cluster, `fail` gets the error when the room cannot be loaded or too much waits.
    func whenIdle(_ room: HostedRoom, _ body: @escaping () -> Void, fail: @escaping (GatewayError) -> Void) {
        guard room.isBusy else {
            body()
            return
        }
        guard room.backlog.waiting.count < Self.maximumWaitingRequests else {
            fail(.busy)
            return
        }
        room.backlog.waiting.append(.call(run: body, fail: fail))
    }

    /// The shared log loaded a room this gateway follows: its latest checkpoint (nil when the room's log starts at
    /// 1) and the retained entries (oldest first; they may start before the checkpoint, for history). When the room
    /// was loaded before (the shared log lost entries this node had not applied), its subscribers get a fresh
    /// snapshot.
    ///
    /// - Parameters:
    ///   - roomID: the room.
    ///   - checkpoint: the replica at the checkpoint's sequence number, if there is one.
    ///   - entries: the retained entries, contiguous, reaching at least from the checkpoint on.
    public func sharedLogLoaded(room roomID: String, checkpoint: RoomReplica?, entries: [RoomLogEntry]) {
        guard let room = self.rooms[roomID] else { return }
        let isReload = room.hasLoaded
        var replica = checkpoint ?? RoomReplica(state: RoomState(id: roomID))
        replica.state.id = roomID
        let firstSequence = entries.first?.sequence ?? replica.state.sequence + 1
        var log = RoomLog(retention: self.configuration.history, after: firstSequence - 1)
        let rule = self.speakerRule
        room.restrictedEvents = [:]
        for entry in entries where entry.sequence == log.lastSequence + 1 {
            log.insert(entry)
            if entry.sequence == replica.state.sequence + 1 {
                replica.apply(entry, speakerRule: rule)
                room.noteAudience(of: entry, in: replica.state)
            }
        }
        room.replica = replica
        room.base = checkpoint ?? RoomReplica(state: RoomState(id: roomID))
        room.base.state.id = roomID
        room.log = log
        room.messages = [:]
        room.lostDevices = room.lostDevices.filter { key, _ in
            room.state.participants[key.uid]?.devices.contains { $0.deviceID == key.deviceID } == true
        }
        room.phase = .ready
        room.refreshRestrictionsEnd()
        self.watchDeadlines(of: room)
        if isReload {
            // Reloaded after a gap: every view starts again from the room as it is now.
            self.statistics.sharedLogReloads += 1
            self.publisher.restartViews(of: room)
            let waiters = room.sequenceWaiters
            room.sequenceWaiters = []
            for waiter in waiters { waiter.action() }
        }
        self.runWaitingRequests(of: room)
    }

    /// The shared log found that a loaded room must be loaded again (its records started afresh, or a gap cannot
    /// be filled): requests and acknowledgements for it wait until `sharedLogLoaded` or `sharedLogReloadFailed`.
    ///
    /// - Parameter roomID: the room.
    public func sharedLogReloading(room roomID: String) {
        guard let room = self.rooms[roomID], room.isReady else { return }
        room.phase = .reloading
    }

    /// Reloading a room failed (the store became unreachable): the room stays as this node last knew it, and the
    /// requests that waited for it are handled (changes then fail with `ERR_UNAVAILABLE` until the store is back).
    ///
    /// - Parameter roomID: the room.
    public func sharedLogReloadFailed(room roomID: String) {
        guard let room = self.rooms[roomID], case .reloading = room.phase else { return }
        room.phase = .ready
        self.runWaitingRequests(of: room)
    }

    /// The shared log delivers the next entries of a room this gateway follows, in order.
    ///
    /// - Parameters:
    ///   - roomID: the room.
    ///   - entries: entries that follow the room's last applied one without a gap (older ones are ignored).
    public func sharedLogReceived(room roomID: String, entries: [RoomLogEntry]) {
        guard let room = self.rooms[roomID], room.isReady else { return }
        for entry in entries where entry.sequence == room.log.lastSequence + 1 {
            room.log.insert(entry)
            self.statistics.sharedLogEntries += 1
            self.apply(entry, to: room)
        }
        // While this node's own append is in flight, its answer goes out first (its continuation runs them).
        if room.backlog.appendsInFlight == 0 { self.runPendingCloses(room) }
        // A switch of the shown speaker at once (it left, say) is logged right after, by whichever node is first.
        if room.replica.switchUnannounced { self.logShownSpeaker(of: room, now: self.clock()) }
    }

    /// The shared log could not load a room: the requests waiting for it are answered with `ERR_UNAVAILABLE` and
    /// the room is forgotten here, so the next request tries again.
    ///
    /// - Parameter roomID: the room.
    public func sharedLogFailed(room roomID: String) {
        guard let room = self.rooms[roomID], !room.isReady else { return }
        self.rooms[roomID] = nil
        self.sortedRoomIDs = nil
        self.log.unfollow(roomID)
        self.statistics.sharedLogFailures += 1
        for work in room.backlog.waiting {
            switch work {
            case .request(let id, let request):
                guard let session = self.sessions[id] else { continue }
                self.reply(session, ServerMessages.error(id: request.id, .unavailable))
            case .call(_, let fail):
                fail(.unavailable)
            }
        }
        room.backlog.waiting = []
    }

    /// Another node of the cluster was asked to disconnect a user: closes the user's connections to this node with
    /// `GatewayCloseCode.disconnected` (4009).
    ///
    /// - Parameters:
    ///   - uid: the user.
    ///   - reason: the close reason sent to the client.
    public func sharedLogDisconnect(uid: String, reason: String?) {
        self.disconnectLocally(uid: uid, reason: reason)
    }

    /// This node found, on renewing its lease, that it had been declared dead while it could not reach the shared
    /// store (the other nodes took over its devices): closes its participants' connections with 1012 ("service
    /// restart"), so they reconnect, to any node, and their joins restore their devices. Observers stay.
    public func sharedLogLeaseLost() {
        self.closeParticipantSessions(code: 1012, reason: "node rejoined the cluster; reconnect")
    }

    /// The room's replica as it was right after `sequence`, for the shared log's checkpoints; nil when the room is
    /// not loaded here or that point is not retained.
    ///
    /// - Parameters:
    ///   - roomID: the room.
    ///   - sequence: the sequence number.
    public func replica(of roomID: String, at sequence: UInt64) -> RoomReplica? {
        guard let room = self.rooms[roomID], room.isReady else { return nil }
        return room.replica(at: sequence, speakerRule: self.speakerRule)
    }

    /// The log's store could not be read: counted (`storeFailures`) and told to `onStoreFailure`.
    ///
    /// - Parameter message: what could not be read, and the store's error.
    public func roomLogStoreUnreadable(_ message: String) {
        self.statistics.storeFailures += 1
        self.onStoreFailure?(message)
    }
}
