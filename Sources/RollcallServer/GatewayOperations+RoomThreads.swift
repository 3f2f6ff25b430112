import JSONCoding
import Rooms
import WebSocketServer

extension GatewayOperations {
    /// Answers the API requests that read every rooms thread's rooms when there are several rooms threads: the room listing
    /// and the audit of every room, each rooms thread's part merged in order.
    ///
    /// - Returns: false when the route is for one room (or the whole process), to run on one rooms thread as usual.
    func serveAcrossRoomThreads(_ route: APIRoute, query: APIQuery, _ responder: HTTPResponder) -> Bool {
        let limit: Int
        do {
            limit = try query.limit()
        } catch {
            Self.respond(responder, error)
            return true
        }
        switch route {
        case .listRooms:
            let after = query.string("after")
            self.gather(responder) { gateway throws(GatewayError) in
                try gateway.apiRooms(after: after, limit: limit).entries
            } merge: { rooms in
                RoomListingPage(entries: Array(rooms.sorted { $0.room < $1.room }.prefix(limit)), limit: limit).json
            }
            return true
        case .audit where query.string("room") == nil:
            let before: Int64?
            do {
                before = try query.integer("before")
            } catch {
                Self.respond(responder, error)
                return true
            }
            self.gather(responder) { gateway throws(GatewayError) in
                try gateway.auditLog(room: nil, before: before, limit: limit)
            } merge: { actions in
                // Newest first, as one gateway orders them.
                func key(_ action: JSONValue) -> (Int64, String, Int64) {
                    (action["time"]?.intValue ?? 0, action["room"]?.stringValue ?? "", action["seq"]?.intValue ?? 0)
                }
                let page = actions.sorted { key($0) > key($1) }.prefix(limit)
                let next: JSONValue = page.count == limit ? page.last?["time"] ?? .null : .null
                return .object(JSONObject(uniqueKeysWithValues: [("actions", .array(Array(page))), ("next", next)]))
            }
            return true
        default:
            return false
        }
    }

    /// Reads a part on every rooms thread and answers with the merged parts, or the first error.
    private func gather<Part: Sendable>(
        _ responder: HTTPResponder,
        _ part: @escaping @Sendable (RoomsNode) throws(GatewayError) -> [Part],
        merge: @escaping @Sendable ([Part]) -> JSONValue
    ) {
        self.runtimeForRoomThreads.performOnEveryRoomThread({ gateway -> Result<[Part], GatewayError> in
            do throws(GatewayError) {
                return .success(try part(gateway))
            } catch {
                return .failure(error)
            }
        }) { parts in
            var values: [Part] = []
            for part in parts {
                switch part {
                case .success(let found): values += found
                case .failure(let error):
                    Self.respond(responder, error)
                    return
                }
            }
            responder.respond(
                status: .ok, body: JSONWriter.bytes(merge(values)) + [0x0A], contentType: "application/json")
        }
    }
}

extension APIRoute {
    /// The room a route is about, if it is about one.
    var room: String? {
        switch self {
        case .getRoom(let room), .publishMeeting(let room), .publishEvent(let room), .moderate(let room),
            .history(let room), .attendance(let room), .waiting(let room):
            return room
        case .listRooms, .disconnect, .audit:
            return nil
        }
    }
}
