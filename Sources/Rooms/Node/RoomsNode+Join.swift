import JSONCoding
import TokenAuth

/// Joining, watching, resuming and leaving rooms.
extension RoomsNode {
    func room(_ id: String) -> HostedRoom {
        if let room = self.rooms[id] { return room }
        // With a store, a room used for the first time since the start is read back (the entry points already
        // tried, answering ERR_UNAVAILABLE when the store cannot be read).
        if self.log.roomStore != nil, (try? self.loadStoredRoom(id)) != nil, let room = self.rooms[id] { return room }
        // A room starts as the log has it: with a log that answers later, requests for it wait until it is loaded.
        let room = HostedRoom(
            id: id, retention: self.configuration.history, createdAt: self.clock(),
            phase: self.logTraits.answersLater ? .loading : .ready)
        self.rooms[id] = room
        self.sortedRoomIDs = nil
        self.log.follow(id)
        return room
    }

    func join(
        _ session: HostedSession,
        claims: TokenClaims,
        roomID: String,
        kind: ClientMessage.SubscriptionKind,
        deviceID: String,
        callType: String?,
        view: RosterViewSpec,
        events: EventMode,
        resume: ClientMessage.Resume?,
        requestID: JSONValue?
    ) throws(GatewayError) {
        guard let role = self.role(of: claims, in: roomID) else { throw .notGroupMember }
        if let existing = session.subscriptions[roomID] {
            guard existing.kind == kind, existing.deviceID == deviceID else {
                throw .badRequest("already in this room; leave it first to change how")
            }
        } else if self.roomsJoined(by: session) >= self.configuration.maximumRoomsPerSession {
            throw .tooManyRooms
        }
        let room = self.room(roomID)
        let uid = claims.subject
        // A banned user neither joins nor watches: the room's events are not theirs to see.
        if room.state.banned.contains(uid) { throw .banned }
        try Self.checkMayOpen(view, as: RoomActor(claims: claims, role: role), in: room.state)
        // A locked room takes no one new into the call but those who may lock it, and a room with its waiting room
        // on lets them wait for a moderator (`RoomActor.admission`); who is in (another device, a device coming
        // back) and those who watch are not held back.
        if kind == .participant {
            switch RoomActor(claims: claims, role: role).admission(in: room.state, claim: claims.admission[roomID]) {
            case .enters:
                break
            case .refusedLocked:
                throw .roomLocked
            case .waits:
                try self.wait(
                    session, claims: claims, role: role, room: room, deviceID: deviceID, callType: callType,
                    view: view, events: events, resume: resume, requestID: requestID)
                return
            }
        }
        if session.subscriptions[roomID] == nil, room.subscribers.count >= self.configuration.maximumSubscribersPerRoom
        {
            throw .roomFull
        }
        if session.subscriptions[roomID] == nil,
            room.subscriptionsByUser[uid, default: 0] >= self.configuration.maximumSubscriptionsPerUserPerRoom
        {
            // The same device joining again replaces its other session: that one does not count.
            let others = room.subscribers.filter { id in
                guard let other = self.sessions[id], other.claims?.subject == uid else { return false }
                return
                    !(kind == .participant && other.subscriptions[roomID]?.kind == .participant
                    && other.subscriptions[roomID]?.deviceID == deviceID)
            }
            if others.count >= self.configuration.maximumSubscriptionsPerUserPerRoom { throw .tooManySubscriptions }
        }
        var proposed: [ProposedEvent] = []
        if kind == .participant {
            let key = HostedRoom.DeviceKey(uid: uid, deviceID: deviceID)
            var participant = room.state.participants[uid]
            if let lost = room.lostDevices[key], lost.deadline <= self.clock() {
                // The grace period is over even if the tick that ends it has not run yet: leave, then join afresh.
                room.lostDevices[key] = nil
                let reason: LeaveReason = lost.closedCleanly ? .connectionClosed : .timedOut
                proposed.append(
                    ProposedEvent(.participantLeft(uid: uid, deviceID: deviceID, reason: reason), actor: nil))
                participant?.devices.removeAll { $0.deviceID == deviceID }
            }
            let device = participant?.devices.first { $0.deviceID == deviceID }
            if let device, room.lostDevices[key] != nil || !device.isConnected || self.logTraits.hasOtherWriters {
                // Back within the grace period (with other writers, possibly through another gateway, which this
                // one then takes the device over from).
                proposed.append(ProposedEvent(.connectionRestored(uid: uid, deviceID: deviceID), actor: uid))
            } else if device == nil {
                if participant?.isJoined != true, !self.logTraits.checksAdmission {
                    // A log that checks admission counts the seats itself, atomically for every writer.
                    try self.checkCapacity(room, role: role)
                }
                _ = try AttributeLimits.participant.checked(claims.attributes, what: "the token's attrs")
                proposed.append(
                    ProposedEvent(
                        .participantJoined(
                            uid: uid, deviceID: deviceID, name: claims.name ?? uid, avatar: claims.avatar,
                            role: role, callType: callType, attributes: claims.attributes,
                            hidden: role == .bot && claims.capabilities.contains("hidden")),
                        actor: uid
                    ))
            }
        }
        let deviceKey = HostedRoom.DeviceKey(uid: uid, deviceID: deviceID)
        if kind == .participant, !proposed.isEmpty { room.joiningDevices[deviceKey] = session.id }
        self.record(proposed, in: room) { result in
            if case .failure(let failure) = result {
                if room.joiningDevices[deviceKey] == session.id { room.joiningDevices[deviceKey] = nil }
                if case .refused(let error) = failure {
                    self.reply(session, ServerMessages.error(id: requestID, error))
                }
                // A join the log took without confirming it (too few replicas): no session holds its device here.
                if kind == .participant && !proposed.isEmpty { self.startGrace(ofUnheld: deviceKey, in: room) }
                return
            }
            self.completeJoin(
                session, claims: claims, room: room, kind: kind, deviceID: deviceID, view: view,
                events: events, resume: resume, requestID: requestID)
        }
    }

    /// The rest of a join once its events are in the log: replaces another live session of the same device,
    /// subscribes, answers, and sends the snapshot or the resumed changes.
    func completeJoin(
        _ session: HostedSession,
        claims: TokenClaims,
        room: HostedRoom,
        kind: ClientMessage.SubscriptionKind,
        deviceID: String,
        view: RosterViewSpec,
        events: EventMode,
        resume: ClientMessage.Resume?,
        requestID: JSONValue?
    ) {
        let uid = claims.subject
        let roomID = room.state.id
        let deviceKey = HostedRoom.DeviceKey(uid: uid, deviceID: deviceID)
        if kind == .participant, room.joiningDevices[deviceKey] == session.id { room.joiningDevices[deviceKey] = nil }
        guard self.sessions[session.id] != nil else {
            // The connection ended while the join was on its way through the shared log: its device gets the
            // grace period like any other dropped device.
            if kind == .participant { self.startGrace(ofUnheld: deviceKey, in: room) }
            return
        }
        if kind == .participant {
            // Another live session of the same device is replaced by this one.
            self.replaceSessions(of: deviceKey, in: room, by: session.id)
        }
        guard
            session.subscriptions[roomID] != nil || self.reserveRoom(for: session)
        else {
            self.reply(session, ServerMessages.error(id: requestID, .tooManyRooms))
            return
        }
        self.publisher.joining(room)
        let alreadySubscribed = session.subscriptions[roomID] != nil
        if !alreadySubscribed {
            session.subscriptions[roomID] = HostedSession.Subscription(
                kind: kind, deviceID: deviceID, view: view, events: events
            )
            room.subscribers.append(session.id)  // Also drops room.subscriberEventModes.
            room.countSubscription(of: uid, by: 1)
            self.publisher.subscribe(session.id, to: view, in: room)
        }
        let rights = RoomActor(claims: claims, role: self.role(of: claims, in: roomID))
            .rights(in: room.state, joinedAs: kind)
        self.reply(
            session,
            ServerMessages.ack(
                id: requestID,
                [
                    ("room", .string(roomID)), ("seq", .int(Int64(room.state.sequence))),
                    ("changed", .bool(!alreadySubscribed)), ("rights", ServerMessages.rights(rights)),
                ]))
        let subscription = session.subscriptions[roomID]!
        if let resume, self.resume(session, room: room, subscription: subscription, from: resume) {
            self.statistics.resumesRecovered += 1
            return
        }
        if resume != nil { self.statistics.resumesNotRecovered += 1 }
        self.publisher.sendSnapshot(
            to: session, room: room, view: subscription.view, recovered: resume == nil ? nil : false,
            resync: false)
    }

    /// Refuses a view the actor may not see: the `waiting` view is for those who may admit.
    static func checkMayOpen(_ view: RosterViewSpec, as actor: RoomActor, in state: RoomState) throws(GatewayError) {
        if view.filter == .waiting, !actor.mayAdmit(in: state) {
            throw .forbidden("the waiting view is for moderators and bots with 'admit'")
        }
    }

    func checkCapacity(_ room: HostedRoom, role: ParticipantRole) throws(GatewayError) {
        let joined = room.state.participants.values.filter(\.isJoined)
        if role.countsAgainstCapacity {
            let taken = joined.filter { $0.role.countsAgainstCapacity }.count
            if taken >= self.configuration.roomCapacity { throw .callFull }
        } else {
            let taken = joined.filter { !$0.role.countsAgainstCapacity }.count
            if taken >= self.configuration.reservedSeats { throw .callFull }
        }
    }

    func leave(
        _ session: HostedSession, claims: TokenClaims, roomID: String, requestID: JSONValue?
    ) throws(GatewayError) {
        if session.subscriptions[roomID] == nil, let room = self.rooms[roomID],
            room.waitingJoins.contains(where: { $0.session == session.id })
        {
            // Leaving the waiting room: the join that waited is over.
            self.endWaits(of: session.id, in: room, leaving: true)
            self.ack(session, requestID, room: room, changed: true)
            return
        }
        guard let subscription = session.subscriptions[roomID], let room = self.rooms[roomID] else {
            throw .notInRoom
        }
        self.unsubscribe(session, from: room)
        var events: [RoomEvent] = []
        if subscription.kind == .participant,
            room.state.participants[claims.subject]?.devices.contains(where: { $0.deviceID == subscription.deviceID })
                == true
        {
            events.append(.participantLeft(uid: claims.subject, deviceID: subscription.deviceID, reason: .left))
        }
        self.record(events.map { ProposedEvent($0, actor: claims.subject) }, in: room) { result in
            if case .failure(.refused(let error)) = result {
                self.reply(session, ServerMessages.error(id: requestID, error))
            } else {
                self.ack(session, requestID, room: room, changed: true)
            }
        }
    }

    /// A device the log has in the call that no session here holds (its connection ended while the join was on
    /// its way, or the join was taken without being confirmed): it gets the grace period like any dropped device,
    /// and leaves unless it joins again.
    func startGrace(ofUnheld device: HostedRoom.DeviceKey, in room: HostedRoom) {
        guard
            room.state.participants[device.uid]?.devices.contains(where: {
                $0.deviceID == device.deviceID && $0.isConnected
            }) == true,
            !room.subscribers.contains(where: { id in
                self.sessions[id]?.claims?.subject == device.uid
                    && self.sessions[id]?.subscriptions[room.state.id]?.deviceID == device.deviceID
            })
        else { return }
        room.lostDevices[device] = HostedRoom.LostDevice(
            deadline: self.clock() + self.configuration.reconnectGraceMilliseconds, closedCleanly: false)
        self.watchDeadlines(of: room)
        let lost = RoomEvent.connectionLost(uid: device.uid, deviceID: device.deviceID)
        self.record([ProposedEvent(lost, actor: nil, requiresDeviceOwnership: true)], in: room)
    }

    /// Takes every other connection holding a device in the room as a participant out of it, telling each it was
    /// replaced: the device joined again through `newer` (nil: through another node of the cluster).
    func replaceSessions(of device: HostedRoom.DeviceKey, in room: HostedRoom, by newer: SessionID?) {
        let roomID = room.state.id
        for id in room.subscribers where id != newer {
            guard let other = self.sessions[id], other.claims?.subject == device.uid,
                let subscription = other.subscriptions[roomID], subscription.kind == .participant,
                subscription.deviceID == device.deviceID
            else { continue }
            self.takeOut(other, of: room, reason: .replaced)
        }
    }

    /// Takes a connection out of a room on the gateway's initiative and tells it why (`unsubscribed`), so the
    /// client does not join again on its own; its other rooms stay as they are.
    func takeOut(_ session: HostedSession, of room: HostedRoom, reason: UnsubscribeReason) {
        guard session.subscriptions[room.state.id] != nil else { return }
        self.unsubscribe(session, from: room)
        self.reply(session, ServerMessages.unsubscribed(room: room.state.id, reason: reason))
    }

    func unsubscribe(_ session: HostedSession, from room: HostedRoom) {
        guard let subscription = session.subscriptions.removeValue(forKey: room.state.id) else { return }
        self.roomThread?.authority.releaseRooms(of: session.id, count: 1)
        room.subscribers.removeAll { $0 == session.id }
        if let uid = session.claims?.subject { room.countSubscription(of: uid, by: -1) }
        session.needsResync.remove(room.state.id)
        self.publisher.unsubscribe(session.id, from: subscription.view, in: room)
    }
}
