import JSONCoding

/// The server API's room listing, one path whatever the log: the rooms the log lists (every room of a shared log,
/// whichever node holds it; the rooms a local log's store knows) merged with the rooms in memory here.
extension RoomsNode {
    /// Rooms with their occupancy, paged by id: those the log lists and those in memory here (a room this gateway
    /// holds counts what the lists show, hidden participants left out, with its subscribers and active meeting
    /// here; one it does not hold shows the log's sequence number and seats, none for a store's).
    ///
    /// - Parameters:
    ///   - after: only rooms whose id sorts after this one; nil from the start.
    ///   - limit: the most rooms to return.
    ///   - completion: the page, or `ERR_UNAVAILABLE` when the store or the shared log cannot be read; on the gateway's thread, inline
    ///     with a log that answers inline.
    public func apiRooms(
        after: String?, limit: Int, completion: @escaping (Result<RoomListingPage, GatewayError>) -> Void
    ) {
        // Held strongly until the log answers: a weak reference would give the gateway a side table, making every
        // retain and release of it take the slow path from then on.
        self.log.listRooms(after: after, limit: limit) { result in
            completion(result.map { self.roomListing(after: after, limit: limit, listed: $0) })
        }
    }

    /// The same listing at once, from a log that answers inline (a process's own log: one rooms thread of several
    /// asks each this way).
    ///
    /// - Parameters:
    ///   - after: only rooms whose id sorts after this one; nil from the start.
    ///   - limit: the most rooms to return.
    /// - Returns: as `apiRooms(after:limit:completion:)`.
    /// - Throws: `ERR_UNAVAILABLE` when the store cannot be read, or when the log answers later.
    public func apiRooms(after: String?, limit: Int) throws(GatewayError) -> RoomListingPage {
        var answer: Result<RoomListingPage, GatewayError>?
        self.apiRooms(after: after, limit: limit) { answer = $0 }
        switch answer {
        case .success(let listing): return listing
        case .failure(let error): throw error
        case nil: throw .unavailable
        }
    }

    /// One page of the listing: the rooms the log listed and those in memory, after `after`, in id order.
    private func roomListing(after: String?, limit: Int, listed: [SharedRoomSummary]) -> RoomListingPage {
        var summaries: [String: SharedRoomSummary] = [:]
        // One rooms thread of several lists the stored rooms it owns: every thread reads the same page of the store,
        // so the threads' parts together hold that page once, and its first `limit` rooms are the listing's.
        for summary in listed where self.owns(summary.room) { summaries[summary.room] = summary }
        var ids = Set(summaries.keys)
        for id in self.rooms.keys where id > (after ?? "") { ids.insert(id) }
        let page = ids.sorted().prefix(limit)
        let entries = page.map { id -> RoomListingEntry in
            let room = self.rooms[id]
            let summary = summaries[id]
            let shown = room.flatMap { $0.hasLoaded ? $0.state.listedCount : nil }
            return RoomListingEntry(
                room: id, sequence: max(room?.state.sequence ?? 0, summary?.sequence ?? 0),
                participants: shown ?? summary?.participants ?? 0, subscribers: room?.subscribers.count ?? 0,
                activeMeeting: room?.state.activeMeeting, loaded: room != nil)
        }
        return RoomListingPage(entries: entries, limit: limit)
    }
}
