import JSONCoding
import TokenAuth

/// Authentication: tokens checked on open or with `auth`, refreshed on the same connection, and the rooms and
/// groups a token opens.
extension RoomsNode {
    @discardableResult
    func authenticate(_ session: HostedSession, token: String, requestID: JSONValue?) -> Bool {
        session.authenticationAttempts += 1
        // With rooms threads, only the session's home answers; every rooms thread takes the same decision.
        let speaks = self.isHome(session.id)
        let claims: TokenClaims
        switch self.decideAuthentication(session, token: token) {
        case .refused(let description):
            if speaks { self.reply(session, ServerMessages.error(id: requestID, .unauthorized(description))) }
            if session.claims == nil {
                self.closeSessionFromHome(
                    session, code: GatewayCloseCode.unauthorized.rawValue, reason: "authentication failed")
            }
            return false
        case .tooManyConnections:
            if speaks { self.reply(session, ServerMessages.error(id: requestID, .tooManyConnections)) }
            self.closeSessionFromHome(
                session, code: GatewayCloseCode.tooManyConnections.rawValue, reason: "too many connections")
            return false
        case .timedOut:
            // Another rooms thread's home closed the session first; its connection's end follows.
            self.closeSessionFromHome(
                session, code: GatewayCloseCode.unauthorized.rawValue, reason: "authentication timeout")
            return false
        case .accepted(let accepted):
            claims = accepted
        }
        let previous = session.claims
        if let previous {
            guard previous.subject == claims.subject else {
                if speaks {
                    self.reply(
                        session,
                        ServerMessages.error(id: requestID, .forbidden("a refreshed token must be for the same user")))
                }
                return false
            }
            self.removeFromGroups(session.id, claims: previous)
        }
        session.auth = .authenticated(claims)
        self.watchDeadline(of: session)
        for group in Set(claims.groups + Array(claims.rooms.keys)).sorted() {
            self.groupSessions[group, default: []].append(session.id)
            // With other writers this gateway follows the rooms of its members' groups, so their meeting messages
            // reach members connected here who are not in the room.
            if self.logTraits.hasOtherWriters { _ = self.room(group) }
        }
        if speaks { self.reply(session, ServerMessages.welcome(id: requestID, claims: claims)) }
        if previous != nil { self.followRefreshedToken(of: session, claims: claims) }
        return true
    }

    /// A refreshed token takes effect in the rooms the session is in (those this gateway owns): a room the token no
    /// longer names takes the connection out (`unsubscribed`, and its device leaves the call with the reason
    /// `access_revoked`); a role it changes goes through the log (`participant.role_changed`), so the roster's role
    /// and operator mark, the queries and the rights follow the token. The seat taken at the join stays.
    private func followRefreshedToken(of session: HostedSession, claims: TokenClaims) {
        let uid = claims.subject
        for (roomID, subscription) in session.subscriptions.sorted(by: { $0.key < $1.key }) {
            guard let room = self.rooms[roomID] else { continue }
            let participant = room.state.participants[uid]
            let holdsDevice =
                subscription.kind == .participant
                && participant?.devices.contains { $0.deviceID == subscription.deviceID } == true
            guard let role = self.role(of: claims, in: roomID) else {
                self.takeOut(session, of: room, reason: .accessRevoked)
                guard holdsDevice else { continue }
                let left = RoomEvent.participantLeft(uid: uid, deviceID: subscription.deviceID, reason: .accessRevoked)
                self.record([ProposedEvent(left, actor: nil)], in: room)
                continue
            }
            if holdsDevice, let participant, participant.role != role {
                self.record([ProposedEvent(.roleChanged(uid: uid, role: role), actor: nil)], in: room)
            }
        }
    }

    /// Checks a token and, for a session's first accepted token, the user's connection limit: here, or with rooms threads
    /// once for all of them (`SessionAuthority`).
    private func decideAuthentication(_ session: HostedSession, token: String) -> SessionAuthority.Decision {
        let now = self.clock() / 1000
        let verifier = self.verifier
        let verify = { () -> Result<TokenClaims, TokenError> in
            Result { () throws(TokenError) in try verifier.verify(token, now: now) }
        }
        let limit = self.configuration.maximumConnectionsPerUser
        if let roomThread = self.roomThread {
            return roomThread.authority.decide(
                session.id, attempt: session.authenticationAttempts, isFirst: session.claims == nil, limit: limit,
                verify: verify)
        }
        switch verify() {
        case .failure(let error):
            return .refused(error.description)
        case .success(let claims):
            if session.claims == nil {
                guard self.connectionsByUser[claims.subject, default: 0] < limit else { return .tooManyConnections }
                self.countConnection(of: claims.subject, by: 1)
            }
            return .accepted(claims)
        }
    }

    /// Counts a user's authenticated connections up or down.
    func countConnection(of uid: String, by change: Int) {
        let count = self.connectionsByUser[uid, default: 0] + change
        self.connectionsByUser[uid] = count > 0 ? count : nil
    }

    func removeFromGroups(_ id: SessionID, claims: TokenClaims) {
        for group in Set(claims.groups + Array(claims.rooms.keys)) {
            self.groupSessions[group]?.removeAll { $0 == id }
            if self.groupSessions[group]?.isEmpty == true { self.groupSessions[group] = nil }
        }
    }

    /// The role a token gives in a room: from `rooms`, or `participant` for a member of the room's group.
    func role(of claims: TokenClaims, in roomID: String) -> ParticipantRole? {
        if let role = claims.rooms[roomID] { return ParticipantRole(rawValue: role.rawValue) }
        if claims.groups.contains(roomID) { return .participant }
        return nil
    }
}
