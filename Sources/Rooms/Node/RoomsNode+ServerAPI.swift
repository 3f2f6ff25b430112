import JSONCoding

/// The server API's entry points: backends and bots act on rooms through the same path as clients (validation by
/// the protocol decoder, the room's log and its sequence numbers, the reducer, fan-out to subscribers), with an
/// actor of their own (`api:NAME`) instead of a token's user.
extension RoomsNode {
    /// Subscriptions over all rooms (a connection in two rooms counts twice).
    public var subscriberCount: Int {
        self.rooms.values.reduce(0) { $0 + $1.subscribers.count }
    }

    /// A room's state and roster, as a subscriber's snapshot of the `all` view shows them, or nil when the room does
    /// not exist. In a cluster the room is loaded from the shared log first.
    ///
    /// - Parameters:
    ///   - id: the room.
    ///   - completion: the room, nil when it does not exist, or the error (the shared log cannot be reached).
    public func apiRoom(_ id: String, completion: @escaping (Result<RoomReport?, GatewayError>) -> Void) {
        self.readExistingRoom(id, completion: completion) { room in
            guard room.state.sequence > 0 || !room.subscribers.isEmpty else { return nil }
            let capacity = self.configuration.roomCapacity
            let roster = RosterView.render(room.state, spec: .all, speaker: room.heldSpeaker, capacity: capacity)
            return RoomReport(
                snapshot: ServerMessages.snapshot(room.state, capacity: capacity, now: self.clock(), recovered: nil),
                roster: roster.json, subscribers: room.subscribers.count)
        }
    }

    /// A page of a room's attendance (`RoomReplica.attendancePage`), or nil when the room does not exist. In a
    /// cluster the room is loaded from the shared log first.
    ///
    /// - Parameters:
    ///   - id: the room.
    ///   - after: the join-order cursor of the page before; nil for the first page.
    ///   - limit: at most this many records.
    ///   - completion: the page, nil when the room does not exist, or the error.
    public func apiAttendance(
        _ id: String, after: Int?, limit: Int, completion: @escaping (Result<JSONValue?, GatewayError>) -> Void
    ) {
        self.readExistingRoom(id, completion: completion) { room in
            guard room.state.sequence > 0 else { return nil }
            return .object(JSONObject(room.replica.attendancePage(after: after, limit: limit, asOf: self.clock())))
        }
    }

    /// A page of a room's waiting room (`RoomState.waitingPage`), or nil when the room does not exist. In a
    /// cluster the room is loaded from the shared log first.
    ///
    /// - Parameters:
    ///   - id: the room.
    ///   - after: the position of the last entry of the page before; nil for the first page.
    ///   - limit: at most this many entries.
    ///   - completion: the page, nil when the room does not exist, or the error.
    public func apiWaiting(
        _ id: String, after: Int?, limit: Int, completion: @escaping (Result<JSONValue?, GatewayError>) -> Void
    ) {
        self.readExistingRoom(id, completion: completion) { room in
            guard room.state.sequence > 0 else { return nil }
            return .object(JSONObject(room.state.waitingPage(after: after, limit: limit)))
        }
    }

    /// Answers with `read` of the room once it is idle (in a cluster, loaded from the shared log first), or nil
    /// when this node knows no such room and no other node writes rooms; `read` gives nil for a room that does not
    /// exist after all.
    private func readExistingRoom<Value>(
        _ id: String, completion: @escaping (Result<Value?, GatewayError>) -> Void,
        _ read: @escaping (HostedRoom) -> Value?
    ) {
        guard self.rooms[id] != nil || self.logTraits.hasOtherWriters else {
            completion(.success(nil))
            return
        }
        let room = self.room(id)
        self.whenIdle(room, { completion(.success(read(room))) }, fail: { completion(.failure($0)) })
    }

    /// Publishes a meeting message into a room (created when it does not exist, as for a client), to its subscribers
    /// and the group's members: `{"sessionId", "callType"?, "active"?, "text"?}` as in the `meeting` message.
    ///
    /// - Parameters:
    ///   - roomID: the room (the meeting's group).
    ///   - body: the request body.
    ///   - sender: recorded as the message's sender and the event's actor, e.g. `api:backend`.
    ///   - completion: the room, its sequence number after the event and whether it changed, or the error.
    public func apiPublishMeeting(
        room roomID: String,
        body: JSONValue,
        sender: String,
        completion: @escaping (Result<RoomChangeOutcome, GatewayError>) -> Void
    ) throws(GatewayError) {
        let command = try self.decodeAPICommand(body, type: "meeting", roomField: "group", roomID: roomID)
        self.perform(command, fromAPIAs: sender, in: self.room(roomID), requiringExistence: false, completion)
    }

    /// Publishes a room event, validated as the client messages are: `{"type":"media","recording":true}`,
    /// `{"type":"media","audioMode":"earpiece","uid":"alice"}`, `{"type":"speaker","uid":"alice"}` (`"uid":null`
    /// for nobody), `{"type":"attributes","uid":"alice","attributes":{"title":"CTO"}}` or
    /// `{"type":"metadata","metadata":{"topic":"Q3 planning"}}`.
    ///
    /// - Parameters:
    ///   - roomID: an existing room.
    ///   - body: the request body.
    ///   - actor: recorded as the events' actor.
    ///   - completion: the room, its sequence number after the call and whether it changed, or the error.
    public func apiPublishEvent(
        room roomID: String,
        body: JSONValue,
        actor: String,
        completion: @escaping (Result<RoomChangeOutcome, GatewayError>) -> Void
    ) throws(GatewayError) {
        let types = ["media", "speaker", "attributes", "metadata", "permissions"]
        guard case .object(let object) = body, case .string(let type)? = object["type"], types.contains(type) else {
            throw .badRequest(
                "the body must be a JSON object with a 'type' of media, speaker, attributes, metadata or permissions")
        }
        let command = try self.decodeAPICommand(body, type: type, roomField: "room", roomID: roomID)
        self.perform(command, fromAPIAs: actor, in: try self.existingRoom(roomID), requiringExistence: true, completion)
    }

    /// Performs a moderator action with the rights of an admin: `{"action", "target"?, "reason"?}` as in the
    /// `action` message.
    ///
    /// - Parameters:
    ///   - roomID: an existing room.
    ///   - body: the request body.
    ///   - actor: recorded as the actor, e.g. `api:backend`.
    ///   - completion: the room, its sequence number after the call and whether it changed, or the error.
    public func apiModerate(
        room roomID: String,
        body: JSONValue,
        actor: String,
        completion: @escaping (Result<RoomChangeOutcome, GatewayError>) -> Void
    ) throws(GatewayError) {
        let command = try self.decodeAPICommand(body, type: "action", roomField: "room", roomID: roomID)
        self.perform(command, fromAPIAs: actor, in: try self.existingRoom(roomID), requiringExistence: true, completion)
    }

    /// Carries out a command from the server API, with an admin's rights, once the room is loaded and idle.
    private func perform(
        _ command: RoomCommand,
        fromAPIAs actor: String,
        in room: HostedRoom,
        requiringExistence: Bool,
        _ completion: @escaping (Result<RoomChangeOutcome, GatewayError>) -> Void
    ) {
        self.whenIdle(
            room,
            {
                do throws(GatewayError) {
                    if requiringExistence, room.state.sequence == 0 { throw .notFound("no room '\(room.state.id)'") }
                    let answer = RoomsNode.CommandAnswer.serverAPI { result in
                        completion(
                            result.map { changed in
                                RoomChangeOutcome(room: room.state.id, sequence: room.state.sequence, changed: changed)
                            })
                    }
                    try self.perform(command, in: room, by: RoomActor(serverAPI: actor), answer: answer)
                } catch {
                    completion(.failure(error))
                }
            }, fail: { completion(.failure($0)) })
    }

    /// A room that exists here, or in a cluster one to load from the shared log (whether it exists is known once
    /// it is loaded).
    private func existingRoom(_ roomID: String) throws(GatewayError) -> HostedRoom {
        if let room = self.rooms[roomID] { return room }
        guard self.logTraits.hasOtherWriters else { throw .notFound("no room '\(roomID)'") }
        return self.room(roomID)
    }

    /// Closes every connection of a user with `GatewayCloseCode.disconnected` (4009). Their rooms see the
    /// connections close as for any clean close: the participant is reconnecting for the grace period, then leaves.
    ///
    /// - Parameters:
    ///   - uid: the user.
    ///   - reason: the close reason sent to the client.
    /// - Returns: the number of connections closed on this node (in a cluster every other node closes the user's
    ///   connections too).
    @discardableResult
    public func apiDisconnect(uid: String, reason: String?) -> Int {
        let closed = self.disconnectLocally(uid: uid, reason: reason)
        self.log.disconnect(uid: uid, reason: reason)
        return closed
    }

    /// Closes the user's connections to this node with `GatewayCloseCode.disconnected` (4009); returns how many.
    @discardableResult
    func disconnectLocally(uid: String, reason: String?) -> Int {
        let sessions = self.sessions.values.filter { $0.claims?.subject == uid }
            .sorted { $0.id.rawValue < $1.id.rawValue }
        for session in sessions {
            self.closeSession(
                session, code: GatewayCloseCode.disconnected.rawValue, reason: reason ?? "disconnected by the server")
        }
        return sessions.count
    }

    /// Closes every connection that is a participant in some room, with `code` (a cluster node whose lease ran out
    /// uses 1012, "service restart": its participants reconnect, to any node, and restore their devices).
    ///
    /// - Parameters:
    ///   - code: the close code.
    ///   - reason: the close reason.
    /// - Returns: the number of connections closed.
    @discardableResult
    public func closeParticipantSessions(code: UInt16, reason: String) -> Int {
        let sessions = self.sessions.values.filter { session in
            session.subscriptions.values.contains { $0.kind == .participant }
        }.sorted { $0.id.rawValue < $1.id.rawValue }
        for session in sessions { self.closeSession(session, code: code, reason: reason) }
        return sessions.count
    }

    /// Decodes an API body as the client message `type`, with the room from the URL, into its command.
    private func decodeAPICommand(
        _ body: JSONValue,
        type: String,
        roomField: String,
        roomID: String
    ) throws(GatewayError) -> RoomCommand {
        guard case .object(var object) = body else { throw .badRequest("the body must be a JSON object") }
        for reserved in ["id", "room", "group"] where object[reserved] != nil {
            throw .badRequest("'\(reserved)' comes from the URL, not the body")
        }
        object["type"] = .string(type)
        object[roomField] = .string(roomID)
        guard case .command(_, let command) = try self.decoder.decode(.object(object)).message else {
            throw .badRequest("not a '\(type)' message")
        }
        return command
    }
}
