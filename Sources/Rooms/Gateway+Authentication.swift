import JSONCoding
import TokenAuth

/// Authentication: tokens checked on open or with `auth`, refreshed on the same connection, and the rooms and
/// groups a token opens.
extension Gateway {
    @discardableResult
    func authenticate(_ session: GatewaySession, token: String, requestID: JSONValue?) -> Bool {
        session.authenticationAttempts += 1
        // With shards, only the session's home answers; every shard takes the same decision.
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
            // Another shard's home closed the session first; its connection's end follows.
            self.closeSessionFromHome(
                session, code: GatewayCloseCode.unauthorized.rawValue, reason: "authentication timeout")
            return false
        case .accepted(let accepted):
            claims = accepted
        }
        if let previous = session.claims {
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
            // In a cluster this node follows the rooms of its members' groups, so their meeting messages reach
            // members connected here who are not in the room.
            if self.sharedLog != nil { _ = self.room(group) }
        }
        if speaks { self.reply(session, ServerMessages.welcome(id: requestID, claims: claims)) }
        return true
    }

    /// Checks a token and, for a session's first accepted token, the user's connection limit: here, or with shards
    /// once for all of them (`SessionAuthority`).
    private func decideAuthentication(_ session: GatewaySession, token: String) -> SessionAuthority.Decision {
        let now = self.clock() / 1000
        let verifier = self.verifier
        let verify = { () -> Result<TokenClaims, TokenError> in
            Result { () throws(TokenError) in try verifier.verify(token, now: now) }
        }
        let limit = self.configuration.maximumConnectionsPerUser
        if let shard = self.shard {
            return shard.authority.decide(
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
