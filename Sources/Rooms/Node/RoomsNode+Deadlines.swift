import TokenAuth

/// What runs on time: authentication and token deadlines, slow subscribers, lost devices' grace periods, held
/// speaker switches, coalescing windows, and housekeeping.
extension RoomsNode {
    /// Sends the patches of every room whose coalescing window has closed; `tick()` does too, along with everything
    /// else that is due. Only the rooms with a deadline pending are looked at.
    public func flushDueRooms() {
        let now = self.clock()
        for room in self.roomsWithDeadlines {
            self.publisher.publishIfDue(room, now: now)
        }
    }

    /// Runs what is due: authentication deadlines, reconnect grace periods, token expiry.
    public func tick() {
        let now = self.clock()
        // The sessions are looked at only when the earliest of their deadlines has come; one pass then picks the
        // few with something due (only those are sorted, for a deterministic order) and finds the next deadline.
        var dueSessions: [HostedSession] = []
        if now >= self.nextSessionDeadline {
            var next = Int64.max
            for session in self.sessions.values {
                let deadline = self.deadline(of: session)
                if now >= deadline { dueSessions.append(session) } else { next = min(next, deadline) }
            }
            self.nextSessionDeadline = next
        }
        // With rooms threads, a session's deadlines are its home's: the others see its connection end.
        for session in dueSessions.sorted(by: { $0.id.rawValue < $1.id.rawValue }) where self.isHome(session.id) {
            switch session.auth {
            case .awaiting(let deadline) where now >= deadline:
                // With rooms threads, unless another rooms thread already took its authentication (which is on its way here).
                if self.roomThread?.authority.timeOut(session.id) ?? true {
                    self.closeSession(
                        session, code: GatewayCloseCode.unauthorized.rawValue, reason: "authentication timeout")
                }
            // Expired from the same instant the verifier refuses the token: exp + leeway <= now.
            case .authenticated(let claims) where now >= self.tokenExpiry(claims):
                self.reply(session, ServerMessages.error(id: nil, .tokenExpired))
                self.closeSession(session, code: GatewayCloseCode.tokenExpired.rawValue, reason: "token expired")
            default:
                break
            }
            if let since = session.unwritableSince,
                now - since >= self.configuration.slowSubscriberTimeoutMilliseconds
            {
                self.statistics.slowSubscribersClosed += 1
                self.closeSession(session, code: GatewayCloseCode.slowConsumer.rawValue, reason: "not reading")
            }
        }
        self.readStoredRoomsBack()
        // Between rounds of housekeeping only the rooms with a deadline of their own are looked at, so a server that
        // remembers thousands of quiet rooms does not walk them all every tick.
        let housekeeping = now >= self.nextHousekeeping
        if housekeeping {
            self.nextHousekeeping = now + self.configuration.housekeepingIntervalMilliseconds
            let roomIDs = self.sortedRoomIDs ?? self.rooms.keys.sorted()
            self.sortedRoomIDs = roomIDs
            for roomID in roomIDs {
                guard let room = self.rooms[roomID] else { continue }
                self.runDeadlines(of: room, now: now)
                self.keepHouse(room, now: now)
                self.watchDeadlines(of: room)
            }
        } else if !self.roomsWithDeadlines.isEmpty {
            for room in self.roomsWithDeadlines.sorted(by: { $0.state.id < $1.state.id }) {
                self.runDeadlines(of: room, now: now)
            }
        }
        self.roomsWithDeadlines.removeAll { room in
            guard !Self.hasDeadlines(room) || self.rooms[room.state.id] !== room else { return false }
            room.isWatchedForDeadlines = false
            return true
        }
    }

    /// Whether a room has a deadline of its own pending.
    static func hasDeadlines(_ room: HostedRoom) -> Bool {
        !room.lostDevices.isEmpty || room.replica.speakerDue != nil || room.replica.switchUnannounced
            || room.flushDue != nil || room.restrictionsEnd != nil || !room.state.waiting.isEmpty
    }

    /// Lists a room among those `tick()` looks at every time, if it has a deadline pending.
    func watchDeadlines(of room: HostedRoom) {
        guard !room.isWatchedForDeadlines, Self.hasDeadlines(room) else { return }
        room.isWatchedForDeadlines = true
        self.roomsWithDeadlines.append(room)
    }

    /// Runs what is due in a room: lost devices whose grace period is over leave, a held speaker switch is shown, a
    /// coalescing window that closed sends its patches.
    func runDeadlines(of room: HostedRoom, now: Int64) {
        guard room.isReady else { return }
        let due = room.lostDevices.filter { $0.value.deadline <= now }.keys.sorted {
            ($0.uid, $0.deviceID) < ($1.uid, $1.deviceID)
        }
        for key in due {
            guard let lost = room.lostDevices.removeValue(forKey: key) else { continue }
            let leave = RoomEvent.participantLeft(
                uid: key.uid, deviceID: key.deviceID, reason: lost.closedCleanly ? .connectionClosed : .timedOut
            )
            self.record([ProposedEvent(leave, actor: nil, requiresDeviceOwnership: true)], in: room) { result in
                // When the shared store could not be reached, try again shortly (unless the device came back).
                guard case .failure(.refused) = result,
                    room.state.participants[key.uid]?.devices.contains(where: {
                        $0.deviceID == key.deviceID && !$0.isConnected
                    }) == true
                else { return }
                room.lostDevices[key] = HostedRoom.LostDevice(
                    deadline: self.clock() + 1000, closedCleanly: lost.closedCleanly)
                self.watchDeadlines(of: room)
            }
        }
        self.logShownSpeaker(of: room, now: now)
        self.endOverdueWaits(of: room, now: now)
        if let end = room.restrictionsEnd, end <= now, !room.restrictionLiftProposed {
            // Timed hard mutes that ran out are lifted through the log, once, whichever node proposes it first.
            let lifts = room.state.joinOrder.compactMap { uid -> ProposedEvent? in
                guard var permissions = room.state.participants[uid]?.permissions,
                    let until = permissions.restrictedUntil, until <= now
                else { return nil }
                permissions.mayUnmute = true
                permissions.restrictedUntil = nil
                return ProposedEvent(.permissionsChanged(uid: uid, permissions: permissions), actor: nil)
            }
            room.restrictionLiftProposed = true
            self.record(lifts, in: room, expectedSequence: room.state.sequence) { _ in
                room.restrictionLiftProposed = false
                room.refreshRestrictionsEnd()
            }
        }
        self.publisher.publishIfDue(room, now: now)
    }

    /// Logs the switch of the shown speaker once the rule lets it happen (`speakerDue`), or the switch that already
    /// happened at once without an event of its own (`switchUnannounced`, in a cluster; a single process logs it
    /// right after its cause). The switch gets a sequence number of its own: patches always move the roster forward
    /// in the log (`from` < `seq`), so a view never changes without one and resume stays exact. In a cluster every
    /// node may propose it at the same moment: only the first proposal at this sequence number wins.
    func logShownSpeaker(of room: HostedRoom, now: Int64) {
        let isDue = room.replica.speakerDue.map { $0 <= now } ?? false
        guard isDue || room.replica.switchUnannounced, !room.speakerSwitchProposed else { return }
        let shown = isDue ? room.state.shownSpeakerCandidate : room.heldSpeaker
        room.speakerSwitchProposed = true
        self.record(
            [ProposedEvent(.activeSpeakerShown(uid: shown), actor: nil)], in: room,
            expectedSequence: room.state.sequence
        ) { result in
            room.speakerSwitchProposed = false
            if case .success = result { self.publisher.publishNow(room) }
        }
    }

    /// Housekeeping for a room: history past its age goes, views nobody used for that long go, and a room nobody is
    /// in or watching is forgotten once its history has aged out.
    func keepHouse(_ room: HostedRoom, now: Int64) {
        guard room.isReady else { return }
        let roomID = room.state.id
        self.trimLog(of: room, now: now)
        let maximumAge = self.configuration.history.maximumAgeMilliseconds
        for (spec, channel) in room.channels where spec != .all && channel.subscribers.isEmpty {
            if let idle = channel.idleSince, now - idle > maximumAge { room.channels[spec] = nil }
        }
        self.forgetTrimmedMessages(room)
        // A room nobody is in or watching is forgotten once its history has aged out (bounded memory for
        // servers that see many one-off rooms); it starts afresh if someone comes back.
        let lastActivity = room.log.entries.last?.time ?? room.createdAt
        if !room.subscribers.isEmpty || !room.lostDevices.isEmpty || self.groupSessions[roomID] != nil
            || !room.waitingJoins.isEmpty
        {
            room.lastLocalUse = now
        }
        guard
            room.subscribers.isEmpty && room.lostDevices.isEmpty && room.backlog.isEmpty
                && room.sequenceWaiters.isEmpty && room.waitingJoins.isEmpty && room.state.waiting.isEmpty
        else { return }
        if self.logTraits.hasOtherWriters {
            // The room lives in the shared log: this gateway forgets it when nobody here has used it for the
            // history age (its shared records expire on their own once no node keeps them alive).
            if now - room.lastLocalUse > self.configuration.history.maximumAgeMilliseconds {
                self.rooms[roomID] = nil
                self.sortedRoomIDs = nil
                self.log.unfollow(roomID)
                self.statistics.roomsExpired += 1
            }
        } else if room.state.joinedParticipants.isEmpty && room.state.banned.isEmpty && room.state.operators.isEmpty
            && !room.state.isLocked && now - lastActivity > self.configuration.history.maximumAgeMilliseconds
        {
            self.rooms[roomID] = nil
            self.sortedRoomIDs = nil
            self.log.unfollow(roomID)
            self.statistics.roomsExpired += 1
        }
    }

    /// When something is next due for a session: the end of its authentication time, its token's expiry (with the
    /// leeway), or the slow-subscriber timeout while it is not writable.
    func deadline(of session: HostedSession) -> Int64 {
        var deadline: Int64
        switch session.auth {
        case .awaiting(let end): deadline = end
        case .authenticated(let claims): deadline = self.tokenExpiry(claims)
        }
        if let since = session.unwritableSince {
            deadline = min(deadline, since + self.configuration.slowSubscriberTimeoutMilliseconds)
        }
        return deadline
    }

    /// When a token stops being accepted, in milliseconds: its expiry plus the leeway (saturating: a token may
    /// carry any expiry its signer put in it).
    func tokenExpiry(_ claims: TokenClaims) -> Int64 {
        let seconds = claims.expiresAt.addingReportingOverflow(self.verifier.leeway)
        let milliseconds = seconds.partialValue.multipliedReportingOverflow(by: 1000)
        return seconds.overflow || milliseconds.overflow ? Int64.max : milliseconds.partialValue
    }

    /// Notes a session's deadline, so the next tick looks at the sessions when it comes.
    func watchDeadline(of session: HostedSession) {
        self.nextSessionDeadline = min(self.nextSessionDeadline, self.deadline(of: session))
    }
}
