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
        answer: CommandAnswer,
        attempt: Int = 1
    ) throws(GatewayError) {
        let events = try command.events(in: room.state, by: actor)
        let reason = command.reason
        // A version-checked write is appended only if no other gateway appended to the room since this one checked
        // the version; if one did, it is checked again against the room as it is then.
        let checked = command.ifSeq != nil && self.logTraits.hasOtherWriters
        let proposed = events.map { ProposedEvent($0, actor: actor.uid, reason: reason) }
        let sequence = room.state.sequence
        self.record(proposed, in: room, expectedSequence: checked ? sequence : nil) { result in
            let changed: Bool
            switch result {
            case .success: changed = !events.isEmpty
            case .failure(.conditionFailed) where checked:
                guard attempt < Self.maximumVersionCheckAttempts else {
                    answer(self, room, .failure(GatewayError(.conflict, "the room changes too fast; try again")))
                    return
                }
                self.whenApplied(room, through: sequence + 1) {
                    do throws(GatewayError) {
                        try self.perform(command, in: room, by: actor, answer: answer, attempt: attempt + 1)
                    } catch {
                        answer(self, room, .failure(error))
                    }
                }
                return
            case .failure(.conditionFailed): changed = false
            case .failure(.refused(let error)):
                answer(self, room, .failure(error))
                return
            }
            if case .moderate(let action, let target, let reason, _, _) = command {
                self.onModeration?(
                    ModerationRecord(
                        room: room.state.id, action: action.rawValue, actor: actor.uid, target: target, reason: reason,
                        changed: changed))
            }
            answer(self, room, .success(changed))
        }
    }

    /// How many times a version-checked write is tried against a room other gateways keep changing before it is
    /// refused with `ERR_CONFLICT`.
    static let maximumVersionCheckAttempts = 4

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
