import JSONCoding

/// Inspection, for tests, metrics and the server API.
extension RoomsNode {
    /// A room's current state, if the room exists.
    public func roomState(_ id: String) -> RoomState? {
        self.rooms[id]?.state
    }

    /// A room's log, if the room exists (for checking the reducer against the log).
    func roomLog(_ id: String) -> RoomLog? {
        self.rooms[id]?.log
    }

    /// The roster view `spec` of a room as a snapshot rendered now would carry it (`{"room":...,"participants":...}`),
    /// with the held active speaker; nil when the room does not exist. For checking mirrors against the server.
    func renderedView(room id: String, spec: RosterViewSpec) -> JSONValue? {
        guard let room = self.rooms[id] else { return nil }
        return self.publisher.renderedView(of: room, spec: spec).json
    }

    /// Whether a retained event of a room may reach a subscriber who is `uid` (false for an event about another,
    /// hidden participant), for checking resumes against the log.
    func event(_ sequence: UInt64, in room: String, reaches uid: String) -> Bool {
        self.rooms[room]?.event(sequence, reaches: uid) ?? true
    }

    /// Whether a room has roster changes (or a held speaker change) that have not gone out in patches yet.
    func hasPendingRosterChanges(room id: String) -> Bool {
        guard let room = self.rooms[id] else { return false }
        return room.flushDue != nil || room.replica.speakerDue != nil || room.hasPendingChanges
    }

    /// Ids of rooms that exist.
    public var roomIDs: [String] { self.rooms.keys.sorted() }

    /// Open sessions.
    public var sessionCount: Int { self.sessions.count }
}
