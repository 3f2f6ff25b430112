import JSONCoding
import TokenAuth

/// The connections that applied entries close: removals, bans and the end of the session.
extension RoomsNode {
    /// Closes the connections that the room's applied entries ended: a removed user's participant connections
    /// (4003), a banned user's connections including observers (4004), every participant connection when the
    /// session ended (4005). Runs after the answer to the request that caused them, on every node.
    func runPendingCloses(_ room: HostedRoom) {
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
        // The joins waiting here that the entries answered (admitted, denied, expired) or moved.
        if room.waitingJoinsNeedAnswers { self.answerWaitingJoins(room) }
    }

    func closeParticipantSessions(
        uid: String,
        in room: HostedRoom,
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
