import JSONCoding

/// The log path: every change to a room is recorded in its log, applied by the reducer and fanned out.
extension RoomsNode {
    /// Records events in the room's log, all or none, then runs `then`: with a log that answers inline at once,
    /// each event numbered and applied in turn; else once the log has numbered them and this gateway has applied
    /// them (or with the failure).
    ///
    /// - Parameters:
    ///   - events: the events, in order.
    ///   - room: the room.
    ///   - expectedSequence: append only if the log still ends at this sequence number (a log with other writers).
    ///   - then: what to do once the events are applied.
    func record(
        _ events: [ProposedEvent],
        in room: HostedRoom,
        expectedSequence: UInt64? = nil,
        then: @escaping (Result<Void, LogAppendFailure>) -> Void = { _ in }
    ) {
        guard !events.isEmpty else {
            then(.success(()))
            return
        }
        guard self.logTraits.answersLater else {
            let now = self.clock()
            for index in events.indices {
                self.appendInline(events[index], to: room, time: now)
                if room.replica.switchUnannounced {
                    // The shown speaker switched at once (it left, say): the switch is logged right after its cause.
                    self.appendInline(
                        ProposedEvent(.activeSpeakerShown(uid: room.heldSpeaker), actor: nil), to: room, time: now)
                }
            }
            then(.success(()))
            self.runPendingCloses(room)
            return
        }
        room.backlog.appendsInFlight += 1
        self.log.append(LogProposal(room: room.state.id, events: events, expectedSequence: expectedSequence)) {
            [weak self] result in
            guard let self else { return }
            switch result {
            case .success(let sequence):
                self.whenApplied(room, through: sequence) {
                    room.backlog.appendsInFlight -= 1
                    then(.success(()))
                    self.runPendingCloses(room)
                    self.runWaitingRequests(of: room)
                }
            case .failure(let failure):
                room.backlog.appendsInFlight -= 1
                if case .refused(let error) = failure, error == .unavailable { self.statistics.sharedLogFailures += 1 }
                then(.failure(failure))
                self.runPendingCloses(room)
                self.runWaitingRequests(of: room)
            }
        }
    }

    /// Has the log number one event inline, in the room's log in memory, and applies it.
    @inline(__always)
    private func appendInline(_ proposed: ProposedEvent, to room: HostedRoom, time: Int64) {
        guard let entry = self.log.appendInline(proposed, to: &room.log, time: time) else {
            preconditionFailure("a room log that answers inline numbers every event")
        }
        self.apply(entry, to: room)
    }

    /// Runs `action` once the room's state has reached `sequence` (at once when it has).
    func whenApplied(_ room: HostedRoom, through sequence: UInt64, _ action: @escaping () -> Void) {
        if room.isReady && room.state.sequence >= sequence {
            action()
        } else {
            room.sequenceWaiters.append((sequence, action))
        }
    }

    /// Applies one entry of the room's log, numbered inline or delivered by a log that answers later: the reducer and the
    /// speaker hold, then the event to every subscriber whose event mode takes it (and a meeting message to every
    /// member of the group connected here), then the roster patches: at once for leaves, removals and moderation
    /// when so configured, else at the end of the coalescing window.
    func apply(_ entry: RoomLogEntry, to room: HostedRoom) {
        let event = entry.event
        var startsCall = false
        if case .participantJoined = event, room.state.startedAt == nil { startsCall = true }
        let shownSpeakerChanges = room.replica.apply(entry, speakerRule: self.speakerRule)
        if room.replica.speakerDue != nil { self.watchDeadlines(of: room) }
        switch event.seatEffect {
        case .takeSeat(let uid, let deviceID, _), .restoreDevice(let uid, let deviceID):
            let key = HostedRoom.DeviceKey(uid: uid, deviceID: deviceID)
            room.lostDevices[key] = nil
            // With other writers the device may have joined through another gateway: its connection here is replaced.
            if self.logTraits.hasOtherWriters {
                self.replaceSessions(of: key, in: room, by: room.joiningDevices[key])
            }
        case .releaseDevice(let uid, let deviceID):
            room.lostDevices[HostedRoom.DeviceKey(uid: uid, deviceID: deviceID)] = nil
        case .releaseUser(let uid, _):
            room.lostDevices = room.lostDevices.filter { $0.key.uid != uid }
        case .releaseEveryone:
            room.lostDevices = [:]
        case .keepDevice, .none:
            break
        }
        self.statistics.events += 1
        let message = ServerMessages.event(entry, room: room.state)
        room.messages[entry.sequence] = message
        self.log.applied(entry, message: message, room: room.state.id) { room.replica }
        self.trimLog(of: room, now: entry.time)
        var recipients: [SessionID] = []
        // With the stable speaker rule, subscribers hear of the switch once the reports held, not of each report.
        if !(event.isSpeakerReport && self.speakerRule.isStable) {
            let modes = room.subscriberEventModes ?? self.subscriberEventModes(of: room)
            recipients.reserveCapacity(modes.count)
            for (id, events) in modes where events.includes(event) {
                recipients.append(id)
            }
        }
        if case .unmuteRequested(let uid) = event {
            // The request is for the participant to answer, whatever events it asked for.
            for id in room.subscribers where !recipients.contains(id) && self.sessions[id]?.claims?.subject == uid {
                recipients.append(id)
            }
        }
        if case .meetingMessage = event {
            for id in self.groupSessions[room.state.id] ?? [] where !recipients.contains(id) { recipients.append(id) }
        }
        if let only = room.noteAudience(of: entry, in: room.state) {
            // About a hidden participant: for its own connections only, now and when resumed or read back.
            recipients.removeAll { self.sessions[$0]?.claims?.subject != only }
        }
        if !recipients.isEmpty {
            self.transport.send(message, to: recipients)
        }
        if let closure = event.closedConnections { room.pendingCloses.append(closure) }
        switch event {
        case .hardMuted, .permissionsChanged, .participantLeft, .sessionEnded:
            room.refreshRestrictionsEnd()
            if room.restrictionsEnd != nil { self.watchDeadlines(of: room) }
        default:
            break
        }
        if event.concernsWaitingRoom { self.noteWaitingRoomEffects(of: entry, in: room) }
        self.publisher.applied(event, in: room, startedCall: startsCall, shownSpeakerChanges: shownSpeakerChanges)
        if !room.sequenceWaiters.isEmpty {
            let sequence = room.state.sequence
            let ready = room.sequenceWaiters.filter { $0.sequence <= sequence }
            room.sequenceWaiters.removeAll { $0.sequence <= sequence }
            for waiter in ready { waiter.action() }
        }
    }

    /// Drops what the retention no longer keeps, moving the base replica forward over it.
    func trimLog(of room: HostedRoom, now: Int64) {
        if room.log.isOverRetention(now: now) {
            let rule = self.speakerRule
            room.log.trim(now: now, restricted: room.restrictedEvents) { entry in
                if entry.sequence == room.base.state.sequence + 1 { room.base.apply(entry, speakerRule: rule) }
                if let only = room.restrictedEvents[entry.sequence] { room.droppedRestricted[only] = entry.sequence }
            }
        }
        if room.messages.count > room.log.entries.count { self.forgetTrimmedMessages(room) }
    }

    /// Builds and keeps `room.subscriberEventModes`: the subscribers that have a session and a subscription to
    /// the room, with its event mode.
    func subscriberEventModes(of room: HostedRoom) -> [(id: SessionID, events: EventMode)] {
        let roomID = room.state.id
        var modes: [(id: SessionID, events: EventMode)] = []
        modes.reserveCapacity(room.subscribers.count)
        for id in room.subscribers {
            guard let subscription = self.sessions[id]?.subscriptions[roomID] else { continue }
            modes.append((id, subscription.events))
        }
        room.subscriberEventModes = modes
        return modes
    }

    /// Drops the live messages of entries the log no longer retains.
    func forgetTrimmedMessages(_ room: HostedRoom) {
        // The messages' sequence numbers are contiguous and end at the log's last: drop from below its first.
        var sequence = room.log.firstSequence
        while room.messages.count > room.log.entries.count, sequence > 1 {
            sequence -= 1
            room.messages[sequence] = nil
        }
        if let oldest = room.restrictedEvents.keys.min(), oldest < room.log.firstSequence {
            room.restrictedEvents = room.restrictedEvents.filter { $0.key >= room.log.firstSequence }
        }
    }
}
