import JSONCoding

extension Gateway {
    /// Rooms with their occupancy, paged by id. In cluster mode every room in the shared log, whichever node holds
    /// it (with this node's subscribers and active meeting where it holds the room), merged with the rooms this
    /// node holds that have no entry yet; in a single process `apiRooms(after:limit:)`.
    ///
    /// - Parameters:
    ///   - after: only rooms whose id sorts after this one; nil from the start.
    ///   - limit: the most rooms to return.
    ///   - completion: `{"rooms":[{"room","seq","participants","subscribers","activeMeeting","loaded"}],"next"}`,
    ///     or `ERR_UNAVAILABLE` when the store or the shared log cannot be read; on the gateway's thread.
    public func apiRooms(
        after: String?, limit: Int, completion: @escaping (Result<JSONValue, GatewayError>) -> Void
    ) {
        guard self.logTraits.hasOtherWriters else {
            do {
                completion(.success(try self.apiRooms(after: after, limit: limit)))
            } catch {
                completion(.failure(error))
            }
            return
        }
        self.log.listRooms(after: after, limit: limit) { [weak self] result in
            guard let self else { return }
            switch result {
            case .failure(let error):
                completion(.failure(error))
            case .success(let shared):
                var summaries: [String: SharedRoomSummary] = [:]
                for summary in shared { summaries[summary.room] = summary }
                var ids = Set(summaries.keys)
                for id in self.rooms.keys where id > (after ?? "") { ids.insert(id) }
                let page = ids.sorted().prefix(limit)
                let rooms = page.map { id -> JSONValue in
                    let room = self.rooms[id]
                    let summary = summaries[id]
                    let sequence = max(room?.state.sequence ?? 0, summary?.sequence ?? 0)
                    // A room this node follows counts what the lists show (hidden participants left out); the
                    // shared listing counts the seats the store holds.
                    let listed = room.flatMap { $0.hasLoaded ? $0.state.listedCount : nil }
                    let participants = listed ?? summary?.participants ?? 0
                    return .object(
                        JSONObject([
                            ("room", .string(id)), ("seq", .int(Int64(sequence))),
                            ("participants", .int(Int64(participants))),
                            ("subscribers", .int(Int64(room?.subscribers.count ?? 0))),
                            ("activeMeeting", room?.state.activeMeeting.map(ServerMessages.meeting) ?? .null),
                            ("loaded", .bool(room != nil)),
                        ]))
                }
                let next: JSONValue = page.count == limit ? page.last.map { .string($0) } ?? .null : .null
                completion(.success(.object(JSONObject([("rooms", .array(rooms)), ("next", next)]))))
            }
        }
    }
}
