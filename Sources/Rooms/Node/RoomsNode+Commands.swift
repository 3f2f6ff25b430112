import JSONCoding

/// Changes to rooms, from clients and from the server API alike: the command's rules give the events
/// (`RoomCommand.events(in:by:)`), the log records them, and the caller hears whether anything changed.
extension RoomsNode {
    /// Who hears how a command went.
    enum CommandAnswer {
        /// A client: an `ack` with its request id (`changed` tells whether anything did), or an `error`.
        case client(HostedSession, requestID: JSONValue?)
        /// The server API: `true` when events were recorded, `false` when there was nothing to change; or the error.
        case serverAPI((Result<Bool, GatewayError>) -> Void)

        func callAsFunction(_ gateway: RoomsNode, _ room: HostedRoom, _ result: Result<Bool, GatewayError>) {
            switch (self, result) {
            case (.client(let session, let id), .success(let changed)):
                gateway.ack(session, id, room: room, changed: changed)
            case (.client(let session, let id), .failure(let error)):
                gateway.reply(session, ServerMessages.error(id: id, error))
            case (.serverAPI(let completion), _):
                completion(result)
            }
        }
    }

    /// Carries out a command whose room is ready: its events go through the room's log, then `answer` hears whether
    /// anything changed (or why it failed), before any connection the events close is closed, so the actor's answer
    /// precedes a close (even the actor's own, at the end of the session).
    ///
    /// - Parameters:
    ///   - command: the change asked for.
    ///   - room: the room.
    ///   - actor: who asks.
    ///   - answer: who hears how it went.
    /// - Throws: the command's refusal (`ERR_FORBIDDEN`, `ERR_NOT_FOUND`), before anything is recorded.
    func perform(
        _ command: RoomCommand,
        in room: HostedRoom,
        by actor: RoomActor,
        answer: CommandAnswer
    ) throws(GatewayError) {
        let events = try command.events(in: room.state, by: actor)
        let reason = command.reason
        self.record(events.map { ProposedEvent($0, actor: actor.uid, reason: reason) }, in: room) { result in
            let changed: Bool
            switch result {
            case .success: changed = !events.isEmpty
            case .failure(.conditionFailed): changed = false
            case .failure(.refused(let error)):
                answer(self, room, .failure(error))
                return
            }
            if case .moderate(let action, let target, let reason, _) = command {
                self.onModeration?(
                    ModerationRecord(
                        room: room.state.id, action: action.rawValue, actor: actor.uid, target: target, reason: reason,
                        changed: changed))
            }
            answer(self, room, .success(changed))
        }
    }

    /// The room a client's command is for, once the connection is what the command needs it to be: in the call,
    /// subscribed, or a member of the room's group (for a meeting message, whose room is created when needed).
    func room(
        for command: RoomCommand,
        _ roomID: String,
        from session: HostedSession,
        role: ParticipantRole?
    ) throws(GatewayError) -> HostedRoom {
        switch command.presence {
        case .participant:
            guard session.subscriptions[roomID]?.kind == .participant, let room = self.rooms[roomID] else {
                throw .notInRoom
            }
            return room
        case .subscriber:
            guard session.subscriptions[roomID] != nil, let room = self.rooms[roomID] else { throw .notInRoom }
            return room
        case .member:
            guard role != nil else { throw .notGroupMember }
            return self.room(roomID)
        }
    }
}
