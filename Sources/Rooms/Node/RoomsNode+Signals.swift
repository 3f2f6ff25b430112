import JSONCoding
import TokenAuth

/// Ephemeral signals (`RoomSignal`): checked, acknowledged without a sequence number and fanned out at once, past
/// the room's log: nothing of them is recorded, stored, resumed, replayed in the history or sent to webhooks, and
/// the room's `seq` does not move. In a cluster the log port carries them to the other nodes (`publishSignal`),
/// which hand them to their own subscribers.
extension RoomsNode {
    /// Sends a client's signal: the sender must be in the call (any role but viewer) or the room's operator
    /// (admin or moderator by token or promoted, joined or watching); a signal for one participant needs that participant in the call.
    ///
    /// - Throws: `ERR_NOT_IN_ROOM` (not subscribed), `ERR_FORBIDDEN` (an observer, a viewer, a hidden participant), `ERR_NOT_FOUND` (the
    ///   target is not in the call), `ERR_RATE_LIMITED` (past `signalsPerSecond`); nobody sees a refused signal.
    func send(
        _ signal: RoomSignal,
        to roomID: String,
        from session: HostedSession,
        claims: TokenClaims,
        requestID: JSONValue?
    ) throws(GatewayError) {
        guard let subscription = session.subscriptions[roomID], let room = self.rooms[roomID] else {
            throw .notInRoom
        }
        let role = self.role(of: claims, in: roomID)
        let isOperator = RoomActor(claims: claims, role: role).isOperator(in: room.state)
        guard isOperator || (subscription.kind == .participant && role != .viewer) else {
            throw .forbidden("signals are sent by participants in the call and by moderators")
        }
        // A hidden participant's presence reaches no one else (`EventAudience`), so neither does a signal from it.
        if room.state.participants[claims.subject]?.permissions.hidden == true {
            throw .forbidden("a hidden participant sends no signals")
        }
        if let target = signal.to {
            let participant = room.state.participants[target]
            guard let participant, !participant.permissions.hidden || isOperator || target == claims.subject else {
                throw .notFound("'\(target.prefix(32))' is not in the call")
            }
        }
        try self.spendSignal(of: claims.subject, in: room)
        var signal = signal
        signal.from = claims.subject
        self.reply(session, ServerMessages.ack(id: requestID, [("room", .string(roomID))]))
        self.deliver(signal, in: room, except: session.id)
        self.log.publishSignal(signal, room: roomID)
    }

    /// A signal another node of the cluster received for a room this node follows: its subscribers here get it.
    ///
    /// - Parameters:
    ///   - signal: the signal, its sender set.
    ///   - roomID: the room.
    public func sharedLogReceived(_ signal: RoomSignal, room roomID: String) {
        guard let room = self.rooms[roomID] else { return }
        self.deliver(signal, in: room, except: nil)
    }

    /// Hands a signal to the room's subscribers here (or the target's connections), but not to the sending
    /// connection, nor to a connection behind on its writes: a signal is never queued for later.
    func deliver(_ signal: RoomSignal, in room: HostedRoom, except sender: SessionID?) {
        let recipients = room.subscribers.filter { id in
            guard id != sender, let session = self.sessions[id], session.isWritable else { return false }
            return signal.to == nil || session.claims?.subject == signal.to
        }
        guard !recipients.isEmpty else { return }
        self.transport.send(JSONWriter.bytes(signal.message(room: room.state.id)), to: recipients)
    }

    /// Takes one signal from the user's allowance in the room, or refuses it with `ERR_RATE_LIMITED`.
    private func spendSignal(of uid: String, in room: HostedRoom) throws(GatewayError) {
        let rate = self.configuration.signalsPerSecond
        let now = self.clock()
        if room.signalBudgets.count > room.subscriptionsByUser.count {
            room.signalBudgets = room.signalBudgets.filter { room.subscriptionsByUser[$0.key] != nil }
        }
        var budget = room.signalBudgets[uid] ?? SignalBudget(perSecond: rate, now: now)
        let allowed = budget.spend(perSecond: rate, now: now)
        room.signalBudgets[uid] = budget
        guard allowed else {
            throw GatewayError(.rateLimited, "at most \(rate) signals per second in a room; wait a moment")
        }
    }
}
