import JSONCoding
import TokenAuth

/// Moderator actions and the connections they close.
extension Gateway {
    func moderate(
        _ session: GatewaySession,
        claims: TokenClaims,
        roomID: String,
        action: ModeratorAction,
        target: String?,
        reason: String?,
        requestID: JSONValue?
    ) throws(GatewayError) {
        guard session.subscriptions[roomID] != nil, let room = self.rooms[roomID] else { throw .notInRoom }
        let actor = claims.subject
        let tokenRole = self.role(of: claims, in: roomID)
        let allowed: Bool
        if tokenRole == .bot {
            allowed = claims.capabilities.contains(action.capability)
        } else {
            allowed = tokenRole?.isOperator == true || room.state.operators.contains(actor)
        }
        guard allowed else { throw .forbidden("'\(action.rawValue)' needs a moderator of this room") }
        try self.performModeration(
            action, target: target, reason: reason, in: room, actor: actor,
            actorIsAdmin: tokenRole == .admin
        ) { result in
            switch result {
            case .success(let changed): self.ack(session, requestID, room: room, changed: changed)
            case .failure(let error): self.reply(session, ServerMessages.error(id: requestID, error))
            }
        }
    }

    /// Carries out a moderator action whose permission was checked, through the room's log, and tells
    /// `acknowledge` whether it changed anything (or why it failed) before any connection is closed, so the
    /// actor's answer precedes a close.
    func performModeration(
        _ action: ModeratorAction,
        target: String?,
        reason: String?,
        in room: GatewayRoom,
        actor: String,
        actorIsAdmin: Bool,
        acknowledge: @escaping (Result<Bool, GatewayError>) -> Void
    ) throws(GatewayError) {
        let state = room.state
        let targetParticipant = target.flatMap { state.participants[$0] }
        if let target, action != .ban, action != .unban, action != .promote, action != .demote,
            targetParticipant?.isJoined != true
        {
            throw .notFound("'\(target)' is not in the call")
        }
        if action == .demote || action == .remove || action == .ban, let targetParticipant,
            targetParticipant.role == .admin, !actorIsAdmin
        {
            throw .forbidden("only an admin can \(action.rawValue) an admin")
        }
        var events: [RoomEvent] = []
        func record(_ event: RoomEvent) {
            events.append(event)
        }
        switch action {
        case .mute:
            if targetParticipant?.audioMuted == false { record(.mutedByModerator(uid: target!)) }
        case .muteAll:
            for participant in state.joinedParticipants
            where !participant.audioMuted && !state.isOperator(participant.uid)
                && participant.uid != actor
            {
                record(.mutedByModerator(uid: participant.uid))
            }
        case .lowerHand:
            if targetParticipant?.handRaised == true {
                record(.flagChanged(uid: target!, flag: .handRaised, value: false))
            }
        case .spotlight, .unspotlight:
            let value = action == .spotlight
            if targetParticipant?.pinned != value { record(.flagChanged(uid: target!, flag: .pinned, value: value)) }
        case .promote, .demote:
            let value = action == .promote
            if state.operators.contains(target!) != value { record(.operatorChanged(uid: target!, isOperator: value)) }
        case .unban:
            if state.banned.contains(target!) { record(.banChanged(uid: target!, isBanned: false)) }
        case .remove, .ban:
            let uid = target!
            if action == .ban && !state.banned.contains(uid) { record(.banChanged(uid: uid, isBanned: true)) }
            if let participant = state.participants[uid], participant.isJoined {
                let leaveReason: LeaveReason = action == .ban ? .banned : .removed
                record(
                    .participantLeft(
                        uid: uid, deviceID: participant.devices.first?.deviceID ?? "default",
                        reason: leaveReason))
            }
        case .endSession:
            if state.joinedParticipants.isEmpty == false || state.startedAt != nil {
                record(.sessionEnded)
            }
        }
        // The connections these events close (the removed or banned user's, everyone's at the end of the session)
        // are closed by every node as it applies them, after this node has answered the actor.
        self.record(events.map { ProposedEvent($0, actor: actor, reason: reason) }, in: room) { result in
            if case .failure(.refused(let error)) = result {
                acknowledge(.failure(error))
                return
            }
            let changed = !events.isEmpty && result.isSuccess
            self.onModeration?(
                ModerationRecord(
                    room: room.state.id, action: action.rawValue, actor: actor,
                    target: target, reason: reason, changed: changed))
            // The actor's answer goes out before any close, even when the actor is among those closed
            // (end_session).
            acknowledge(.success(changed))
        }
    }

    /// Closes the connections that the room's applied entries ended: a removed user's participant connections
    /// (4003), a banned user's connections including observers (4004), every participant connection when the
    /// session ended (4005). Runs after the answer to the request that caused them, on every node.
    func runPendingCloses(_ room: GatewayRoom) {
        while !room.pendingCloses.isEmpty {
            let close = room.pendingCloses.removeFirst()
            if let uid = close.uid {
                self.closeParticipantSessions(
                    uid: uid, in: room, code: close.code, reason: close.reason,
                    includeObservers: close.includesObservers)
                continue
            }
            for id in room.subscribers {
                guard let session = self.sessions[id], session.subscriptions[room.state.id]?.kind == .participant
                else { continue }
                self.unsubscribe(session, from: room)
                self.closeSession(session, code: close.code, reason: close.reason)
            }
        }
    }

    func closeParticipantSessions(
        uid: String,
        in room: GatewayRoom,
        code: UInt16,
        reason: String,
        includeObservers: Bool = false
    ) {
        for id in room.subscribers {
            guard let session = self.sessions[id], session.claims?.subject == uid,
                includeObservers || session.subscriptions[room.state.id]?.kind == .participant
            else { continue }
            self.unsubscribe(session, from: room)
            self.closeSession(session, code: code, reason: reason)
        }
    }
}
