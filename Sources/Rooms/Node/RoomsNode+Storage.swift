import JSONCoding
import TokenAuth

/// The gateway's side of its log's `RoomStore` (`LocalRoomLog`): rooms are read from the store when first used,
/// and history and audit read what memory no longer holds (the log writes every applied entry and the checkpoints).
extension RoomsNode {
    /// Makes sure the room is in memory when the store knows it, reading it from the store if needed (no-op when
    /// the log has no store).
    ///
    /// - Parameter roomID: the room.
    /// - Throws: `ERR_UNAVAILABLE` when the store cannot be read (the room is then not created empty).
    public func loadStoredRoom(_ roomID: String) throws(GatewayError) {
        guard let store = self.log.roomStore, self.rooms[roomID] == nil else { return }
        let stored: StoredRoom?
        do {
            stored = try store.loadRoom(roomID, maximumEntries: self.configuration.history.maximumEntries)
        } catch {
            self.roomLogStoreUnreadable("cannot load room '\(roomID)': \(error)")
            throw .storeUnreadable
        }
        guard let stored else { return }
        let room = HostedRoom(id: roomID, retention: self.configuration.history, createdAt: self.clock())
        var base = stored.checkpoint ?? RoomReplica(state: RoomState(id: roomID))
        base.state.id = roomID
        var replica = base
        var log = RoomLog(retention: self.configuration.history, after: base.state.sequence)
        for stored in stored.entries where stored.entry.sequence == log.lastSequence + 1 {
            log.insert(stored.entry)
            replica.apply(stored.entry, speakerRule: self.speakerRule)
            room.noteAudience(of: stored.entry, in: replica.state)
            room.messages[stored.entry.sequence] = stored.message
        }
        room.base = base
        room.replica = replica
        room.log = log
        self.rooms[roomID] = room
        self.sortedRoomIDs = nil
        self.statistics.roomsLoaded += 1
        self.trimLog(of: room, now: self.clock())
        self.expectReconnects(in: room)
    }

    /// While the store cannot commit, nothing a request changes could be acknowledged and what it reads may not be
    /// committed yet: a request about a room is refused with `ERR_UNAVAILABLE` (counted), a ping answered, both
    /// ahead of the output the transport holds back. Authentication goes the usual way.
    ///
    /// - Returns: true when the request was answered here.
    func refusedWhileTheStoreCannotCommit(_ request: ClientRequest, from session: HostedSession) -> Bool {
        let answer: JSONValue
        switch request.message {
        case .authenticate:
            return false
        case .ping:
            answer = ServerMessages.pong(id: request.id)
        default:
            self.statistics.storeRefusals += 1
            answer = ServerMessages.error(id: request.id, .storeCannotCommit)
        }
        self.transport.sendAhead(JSONWriter.bytes(answer), to: [session.id])
        return true
    }

    /// For the server API: refuses every call (counted) while the store cannot commit.
    ///
    /// - Throws: `ERR_UNAVAILABLE` while `storeCannotCommit` is set.
    public func refuseWhileTheStoreCannotCommit() throws(GatewayError) {
        guard self.storeCannotCommit else { return }
        self.statistics.storeRefusals += 1
        throw .storeCannotCommit
    }

    /// Loads the rooms a request is about from the store before it is handled.
    func loadStoredRooms(for request: ClientRequest, claims: TokenClaims?) throws(GatewayError) {
        var roomIDs = request.message.roomIDs
        if case .query(.rooms) = request.message, let claims {
            roomIDs = Set(claims.groups + Array(claims.rooms.keys)).sorted()
        }
        for roomID in roomIDs where self.rooms[roomID] == nil {
            try self.loadStoredRoom(roomID)
        }
    }

    /// A room read back after a restart still lists the devices that were connected when the process ended: they
    /// count as lost from now on, with the grace period to come back (a resume restores them) before they leave.
    private func expectReconnects(in room: HostedRoom) {
        let deadline = self.clock() + self.configuration.reconnectGraceMilliseconds
        var lost: [ProposedEvent] = []
        for participant in room.state.joinedParticipants {
            for device in participant.devices {
                let key = HostedRoom.DeviceKey(uid: participant.uid, deviceID: device.deviceID)
                room.lostDevices[key] = HostedRoom.LostDevice(deadline: deadline, closedCleanly: false)
                if device.isConnected {
                    lost.append(
                        ProposedEvent(.connectionLost(uid: participant.uid, deviceID: device.deviceID), actor: nil))
                }
            }
        }
        guard !room.lostDevices.isEmpty else { return }
        self.watchDeadlines(of: room)
        self.record(lost, in: room)
    }

    /// A room's events after `after`, oldest first: from memory while it holds them, else from the store.
    ///
    /// - Parameters:
    ///   - roomID: the room.
    ///   - after: the last sequence number the caller has.
    ///   - eventNames: only these event names; nil for every event.
    ///   - limit: the most events to return.
    ///   - viewer: the user who reads the history, who gets only the events it may receive (none about a hidden
    ///     participant but itself, none of the waiting room's, which are for webhooks and the server API); nil for
    ///     every event (the server API).
    /// - Returns: the events as sent live, and the first sequence number memory retains (0 when none).
    /// - Throws: `ERR_UNAVAILABLE` when the store cannot be read.
    public func storedHistory(
        _ roomID: String, after: UInt64, eventNames: Set<String>?, limit: Int, viewer: String? = nil
    ) throws(GatewayError) -> (events: [JSONValue], firstRetained: UInt64) {
        try self.loadStoredRoom(roomID)
        let room = self.rooms[roomID]
        let firstInMemory = room?.log.entries.first?.sequence ?? (room.map { $0.log.lastSequence + 1 } ?? 1)
        var events: [JSONValue] = []
        if let store = self.log.roomStore, after + 1 < firstInMemory {
            let stored: [StoredLogEntry]
            do {
                stored = try store.history(room: roomID, after: after, eventNames: eventNames, limit: limit)
            } catch {
                self.roomLogStoreUnreadable("cannot read the history of '\(roomID)': \(error)")
                throw .storeUnreadable
            }
            for item in stored where item.entry.sequence < firstInMemory {
                if viewer != nil && item.entry.event.isForOperatorsOnly { continue }
                if let value = try? JSONParser.parse(item.message, limits: Self.storedMessageLimits),
                    viewer == nil || Self.storedEvent(value, item.entry, in: room, reaches: viewer)
                {
                    events.append(value)
                }
            }
        }
        if let room {
            for entry in room.log.retained(after: after) where events.count < limit {
                if let viewer, !room.event(entry.sequence, reaches: viewer) || entry.event.isForOperatorsOnly {
                    continue
                }
                let message =
                    room.messages[entry.sequence] ?? ServerMessages.event(entry, room: room.state)
                if let names = eventNames, let value = try? JSONParser.parse(message, limits: Self.storedMessageLimits)
                {
                    if case .string(let name)? = value["event"], names.contains(name) { events.append(value) }
                } else if eventNames == nil,
                    let value = try? JSONParser.parse(message, limits: Self.storedMessageLimits)
                {
                    events.append(value)
                }
            }
        }
        return (Array(events.prefix(limit)), room?.log.entries.first?.sequence ?? 0)
    }

    /// Whether an entry read back from the store (older than memory holds) may reach `viewer`, as `storedEvent`
    /// judges it; its message is read only when the entry is about a participant other than the viewer.
    static func storedEntry(_ item: StoredLogEntry, in room: HostedRoom?, reaches viewer: String?) -> Bool {
        guard let subject = item.entry.event.subject, subject != viewer else { return true }
        guard let message = try? JSONParser.parse(item.message, limits: Self.storedMessageLimits) else { return false }
        return Self.storedEvent(message, item.entry, in: room, reaches: viewer)
    }

    /// Whether an event read back from the store (older than memory holds) may reach `viewer`: not when it is
    /// about a hidden participant other than the viewer, as its message's participant entry shows it then or the
    /// room shows the participant now.
    private static func storedEvent(
        _ message: JSONValue, _ entry: RoomLogEntry, in room: HostedRoom?, reaches viewer: String?
    ) -> Bool {
        guard let subject = entry.event.subject, subject != viewer else { return true }
        let hiddenThen = message["data"]?["participant"]?["permissions"]?["hidden"] == true
        return !hiddenThen && room?.state.isHidden(subject) != true
    }

    /// Moderation actions, newest first: from the store when there is one, else from what memory retains.
    ///
    /// - Parameters:
    ///   - roomID: only this room; nil for every room.
    ///   - before: only actions older than this time (milliseconds), for paging; nil for the newest.
    ///   - limit: the most actions to return.
    /// - Returns: `{"room","seq","time","action","actor","target","reason"}` objects.
    /// - Throws: `ERR_UNAVAILABLE` when the store cannot be read.
    public func auditLog(room roomID: String?, before: Int64?, limit: Int) throws(GatewayError) -> [JSONValue] {
        var found: [(room: String, entry: RoomLogEntry, name: String)] = []
        if let store = self.log.roomStore {
            do {
                // One rooms thread of several answers for the rooms it owns (each reads the same page of the store).
                found = try store.audit(room: roomID, before: before, limit: limit).filter { self.owns($0.room) }.map {
                    ($0.room, $0.entry.entry, $0.entry.eventName)
                }
            } catch {
                self.roomLogStoreUnreadable("cannot read the audit log: \(error)")
                throw .storeUnreadable
            }
        } else {
            let rooms = roomID.map { id in self.rooms[id].map { [$0] } ?? [] } ?? Array(self.rooms.values)
            for room in rooms {
                for entry in room.log.entries
                where entry.retentionClass == .moderation && entry.time < (before ?? Int64.max) {
                    let name = ServerMessages.eventName(entry.event)
                    found.append((room.state.id, entry, name))
                }
            }
            found.sort { ($0.entry.time, $0.room, $0.entry.sequence) > ($1.entry.time, $1.room, $1.entry.sequence) }
            found = Array(found.prefix(limit))
        }
        return found.map { item in
            .object(
                JSONObject([
                    ("room", .string(item.room)), ("seq", .int(Int64(item.entry.sequence))),
                    ("time", .int(item.entry.time)), ("action", .string(item.name)),
                    ("actor", item.entry.actor.map { .string($0) } ?? .null),
                    ("target", item.entry.target.map { .string($0) } ?? .null),
                    ("reason", item.entry.reason.map { .string($0) } ?? .null),
                ]))
        }
    }
}
