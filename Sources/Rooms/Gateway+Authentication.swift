import JSONCoding
import TokenAuth

/// Authentication: tokens checked on open or with `auth`, refreshed on the same connection, and the rooms and
/// groups a token opens.
extension Gateway {
    @discardableResult
    func authenticate(_ session: GatewaySession, token: String, requestID: JSONValue?) -> Bool {
        let claims: TokenClaims
        do {
            claims = try self.verifier.verify(token, now: self.clock() / 1000)
        } catch {
            self.reply(session, ServerMessages.error(id: requestID, .unauthorized(error.description)))
            if session.claims == nil {
                self.closeSession(session, code: GatewayCloseCode.unauthorized, reason: "authentication failed")
            }
            return false
        }
        if session.claims == nil {
            guard self.connectionsByUser[claims.subject, default: 0] < self.configuration.maximumConnectionsPerUser
            else {
                self.reply(session, ServerMessages.error(id: requestID, .tooManyConnections))
                self.closeSession(session, code: GatewayCloseCode.tooManyConnections, reason: "too many connections")
                return false
            }
            self.countConnection(of: claims.subject, by: 1)
        }
        if let previous = session.claims {
            guard previous.subject == claims.subject else {
                self.reply(
                    session,
                    ServerMessages.error(id: requestID, .forbidden("a refreshed token must be for the same user")))
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
        self.reply(
            session,
            ServerMessages.welcome(id: requestID, claims: claims))
        return true
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
