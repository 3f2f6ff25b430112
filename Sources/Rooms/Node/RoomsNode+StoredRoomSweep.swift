/// After a restart with a store (the log's, `LocalRoomLog`), every stored room is read back, a few per tick, not only those used again: the
/// devices that were connected when the process ended count as lost in each (`session.connection_lost`) and, unless
/// they come back within `reconnectGraceMilliseconds`, leave (`session.timed_out`), so the log, webhooks and the
/// listings never keep a participant of a process that is gone.
extension RoomsNode {
    /// How many stored rooms one tick reads back.
    static let storedRoomsReadPerTick = 32

    /// Reads the next stored rooms back. A room in which nobody was connected is dropped from memory again at once
    /// (the store holds it as it was; it is read again when used); one with lost devices stays, with their grace
    /// periods running. A room that cannot be read is counted and logged, and read again when first used.
    func readStoredRoomsBack() {
        guard !self.storedRoomsAllRead, let store = self.log.roomStore else { return }
        let page: [(room: String, sequence: UInt64)]
        do {
            page = try store.rooms(after: self.storedRoomsReadAfter, limit: Self.storedRoomsReadPerTick)
        } catch {
            // Rooms are then read back when first used, as a join, a query or the server API does anyway.
            self.storedRoomsAllRead = true
            self.roomLogStoreUnreadable("cannot list the stored rooms to read them back: \(error)")
            return
        }
        // With several rooms threads each reads back the stored rooms it owns (every thread lists every room).
        for (roomID, _) in page where self.rooms[roomID] == nil && self.owns(roomID) {
            guard (try? self.loadStoredRoom(roomID)) != nil, let room = self.rooms[roomID] else { continue }
            if room.lostDevices.isEmpty && room.subscribers.isEmpty {
                self.rooms[roomID] = nil
                self.sortedRoomIDs = nil
            }
        }
        self.storedRoomsReadAfter = page.last?.room ?? self.storedRoomsReadAfter
        self.storedRoomsAllRead = page.count < Self.storedRoomsReadPerTick
    }
}
