import JSONCoding
import TokenAuth

/// The waiting room: joins that wait for a moderator, their answers, and the waits that run out.
///
/// Who waits is room state (`RoomState.waiting`, from `waiting.*` entries in the log), so every node and a restarted
/// one agree on the queue; the joins themselves wait on the gateway that holds their connection
/// (`HostedRoom.waitingJoins`), which answers them when the log says so: an admitted join goes on as the join it
/// was, a denied or expired one gets its error.
extension RoomsNode {
    /// Puts a join in the waiting room: the user's arrival goes into the log (unless it already waits, from another
    /// connection or from before a restart), then the client is told its position.
    func wait(
        _ session: HostedSession,
        claims: TokenClaims,
        role: ParticipantRole,
        room: HostedRoom,
        deviceID: String,
        callType: String?,
        view: RosterViewSpec,
        events: EventMode,
        resume: ClientMessage.Resume?,
        requestID: JSONValue?
    ) throws(GatewayError) {
        let uid = claims.subject
        if room.waitingJoins.contains(where: { $0.session == session.id }) {
            throw .badRequest("already waiting to be let into this room's call")
        }
        // A wait holds a place like a room joined: a connection waits in as many rooms as it may be in.
        if session.waitingIn.count + self.roomsJoined(by: session) >= self.configuration.maximumRoomsPerSession {
            throw .tooManyRooms
        }
        var proposed: [ProposedEvent] = []
        if room.state.waitingPosition(of: uid) == nil {
            guard room.state.waiting.count < self.configuration.maximumWaitingPerRoom else {
                throw GatewayError(.waitingRoomFull)
            }
            _ = try AttributeLimits.participant.checked(claims.attributes, what: "the token's attrs")
            proposed.append(
                ProposedEvent(
                    .waitingEntered(
                        uid: uid, name: claims.name ?? uid, avatar: claims.avatar, role: role,
                        attributes: claims.attributes),
                    actor: uid))
        }
        self.record(proposed, in: room) { result in
            if case .failure(let failure) = result {
                if case .refused(let error) = failure {
                    self.reply(session, ServerMessages.error(id: requestID, error))
                }
                return
            }
            guard self.sessions[session.id] != nil else {
                if self.logTraits.hasOtherWriters { self.leaveWaitingRoomIfUnheld(uid, in: room) }
                return
            }
            room.waitingJoins.append(
                HostedRoom.WaitingJoin(
                    session: session.id, claims: claims, deviceID: deviceID, callType: callType, view: view,
                    events: events, resume: resume, requestID: requestID, position: 0))
            session.waitingIn.insert(room.state.id)
            room.unheldWaitingSince[uid] = nil
            room.waitingJoinsNeedAnswers = true
            self.answerWaitingJoins(room)
            self.watchDeadlines(of: room)
        }
    }

    /// Answers or updates the joins waiting here after entries that may concern them: an admitted user's joins go
    /// on into the call, a denied, expired or banned one's get their error, and the others learn their new
    /// position when it moved.
    func answerWaitingJoins(_ room: HostedRoom) {
        guard room.waitingJoinsNeedAnswers else { return }
        room.waitingJoinsNeedAnswers = false
        let state = room.state
        var admitted: [HostedRoom.WaitingJoin] = []
        var kept: [HostedRoom.WaitingJoin] = []
        for var join in room.waitingJoins {
            guard let session = self.sessions[join.session] else { continue }
            let uid = join.claims.subject
            // Unless it keeps waiting (below), the join's wait is over.
            session.waitingIn.remove(state.id)
            if state.banned.contains(uid) {
                self.reply(session, ServerMessages.error(id: join.requestID, .banned))
                continue
            }
            if let position = state.waitingPosition(of: uid) {
                if position != join.position {
                    let entry = state.waiting[position - 1]
                    join.position = position
                    self.reply(
                        session,
                        ServerMessages.waiting(
                            id: join.requestID, room: state.id, position: position, since: entry.since,
                            expiresAt: entry.since + self.configuration.maximumWaitMilliseconds))
                }
                session.waitingIn.insert(state.id)
                kept.append(join)
                continue
            }
            if state.admitted.contains(uid) || state.participants[uid]?.isJoined == true {
                admitted.append(join)
                continue
            }
            switch room.waitingOutcomes[uid] ?? .left {
            case .denied(let reason):
                self.reply(
                    session,
                    ServerMessages.error(
                        id: join.requestID,
                        GatewayError(.admissionDenied, reason.map { "a moderator did not let you in: \($0)" })))
            case .expired:
                self.reply(session, ServerMessages.error(id: join.requestID, GatewayError(.waitExpired)))
            case .left:
                // The user's wait ended without an answer (another of its connections left the waiting room).
                let error = GatewayError(.waitExpired, "your wait ended when you left the waiting room; join again")
                self.reply(session, ServerMessages.error(id: join.requestID, error))
            }
        }
        room.waitingJoins = kept
        let stillWaiting = Set(kept.map(\.claims.subject))
        room.waitingOutcomes = room.waitingOutcomes.filter { stillWaiting.contains($0.key) }
        for join in admitted {
            guard let session = self.sessions[join.session] else { continue }
            do throws(GatewayError) {
                // With the token the connection holds now: one refreshed while it waited may no longer name the room.
                try self.join(
                    session, claims: session.claims ?? join.claims, roomID: state.id, kind: .participant,
                    deviceID: join.deviceID, callType: join.callType, view: join.view, events: join.events,
                    resume: join.resume, requestID: join.requestID)
            } catch {
                self.reply(session, ServerMessages.error(id: join.requestID, error))
            }
        }
    }

    /// Notes what an applied entry means for the joins waiting here; they are answered once the entry's request
    /// has its own answer (`runPendingCloses`).
    func noteWaitingRoomEffects(of entry: RoomLogEntry, in room: HostedRoom) {
        guard !room.waitingJoins.isEmpty else { return }
        room.waitingJoinsNeedAnswers = true
        // Why a wait held here ended, for its answer (only for users waiting here: nothing to keep for others).
        switch entry.event {
        case .waitingDenied(let uid) where room.waitingJoins.contains(where: { $0.claims.subject == uid }):
            room.waitingOutcomes[uid] = .denied(reason: entry.reason)
        case .waitingLeft(let uid, let reason) where room.waitingJoins.contains(where: { $0.claims.subject == uid }):
            room.waitingOutcomes[uid] = reason == .expired ? .expired : .left
        default:
            break
        }
    }

    /// A connection that waited in the room went: its join is dropped, and when no other connection here waits
    /// for the same user, the user leaves the waiting room: at once when it left the room (`leave`), or when its
    /// connection closed in a cluster; in a single process a closed connection's place is kept for the reconnect
    /// grace period, so a client that comes back and joins again keeps it (`endOverdueWaits`).
    ///
    /// - Parameters:
    ///   - session: the connection.
    ///   - room: the room it waited in.
    ///   - leaving: whether the client asked to leave (rather than its connection closing).
    func endWaits(of session: SessionID, in room: HostedRoom, leaving: Bool) {
        guard let index = room.waitingJoins.firstIndex(where: { $0.session == session }) else { return }
        let uid = room.waitingJoins.remove(at: index).claims.subject
        self.sessions[session]?.waitingIn.remove(room.state.id)
        if leaving || self.logTraits.hasOtherWriters {
            self.leaveWaitingRoomIfUnheld(uid, in: room)
        } else if !room.waitingJoins.contains(where: { $0.claims.subject == uid }) {
            room.unheldWaitingSince[uid] = self.clock()
            self.watchDeadlines(of: room)
        }
    }

    /// Logs that `uid` left the waiting room, when it waits and no connection here waits for it.
    private func leaveWaitingRoomIfUnheld(_ uid: String, in room: HostedRoom) {
        guard room.state.waitingPosition(of: uid) != nil,
            !room.waitingJoins.contains(where: { $0.claims.subject == uid })
        else { return }
        self.record([ProposedEvent(.waitingLeft(uid: uid, reason: .left), actor: uid)], in: room)
    }

    /// How often the waits of a room with someone waiting are looked at: a wait ends at most this much after its
    /// bound.
    static let waitCheckIntervalMilliseconds: Int64 = 500

    /// Ends the waits that ran out, and in a single process the waits no connection holds any more (after a
    /// restart) once the reconnect grace period has passed. In a cluster the node that holds a wait ends it; one
    /// that nobody holds (its node went away) is ended by any node a grace period after it ran out, the first
    /// proposal at the room's sequence number winning.
    func endOverdueWaits(of room: HostedRoom, now: Int64) {
        guard !room.state.waiting.isEmpty, !room.waitExpiryProposed, now >= room.nextWaitCheck else { return }
        room.nextWaitCheck = now + Self.waitCheckIntervalMilliseconds
        let maximumWait = self.configuration.maximumWaitMilliseconds
        let grace = self.configuration.reconnectGraceMilliseconds
        var ends: [ProposedEvent] = []
        let held = Set(room.waitingJoins.map(\.claims.subject))
        for entry in room.state.waiting {
            let isHeld = held.contains(entry.uid)
            if entry.since + maximumWait + (isHeld ? 0 : grace) <= now {
                ends.append(ProposedEvent(.waitingLeft(uid: entry.uid, reason: .expired), actor: nil))
            } else if !isHeld && !self.logTraits.hasOtherWriters {
                let since = room.unheldWaitingSince[entry.uid] ?? now
                room.unheldWaitingSince[entry.uid] = since
                if now - since >= grace {
                    ends.append(ProposedEvent(.waitingLeft(uid: entry.uid, reason: .left), actor: nil))
                }
            }
        }
        let waiting = Set(room.state.waiting.map(\.uid))
        room.unheldWaitingSince = room.unheldWaitingSince.filter { waiting.contains($0.key) && !held.contains($0.key) }
        guard !ends.isEmpty else { return }
        room.waitExpiryProposed = true
        self.record(ends, in: room, expectedSequence: room.state.sequence) { _ in
            room.waitExpiryProposed = false
        }
    }
}
