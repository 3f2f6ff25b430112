import HTTPCore
import JSONCoding
import Rooms

/// One resource of the server API, from the method and the path below `/v1/api/`.
enum APIRoute: Sendable {
    case listRooms
    case getRoom(String)
    case publishMeeting(String)
    case publishEvent(String)
    case moderate(String)
    case disconnect(String)
    /// A room's events after a sequence number, filtered by event names, paged (`GET rooms/ROOM/history`).
    case history(String)
    /// Who attended a room's current or last call, with their totals, paged in join order
    /// (`GET rooms/ROOM/attendance`).
    case attendance(String)
    /// Who waits in a room's waiting room, a page in arrival order (`GET rooms/ROOM/waiting`).
    case waiting(String)
    /// Moderator actions, newest first, paged by time (`GET audit`).
    case audit

    enum Parsed {
        case success(APIRoute)
        /// A refusal, answered with its code's status; for 405, `allow` names the methods the resource takes (the
        /// `Allow` header).
        case failure(GatewayError, allow: String? = nil)
    }

    /// The methods the API's route takes from the server, so that every other method of a known resource gets the
    /// API's own 405 (a JSON error and an `Allow` naming the resource's method) rather than the server's.
    static let routedMethods = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE"]

    /// Finds the resource: 404 for an unknown path, 405 (with the method it takes) for a known path with another
    /// method.
    static func parse(method: String, components: [String]) -> Parsed {
        let notFound = Parsed.failure(GatewayError(.notFound, "no such API resource"))
        guard components.allSatisfy({ !$0.isEmpty }) else { return notFound }
        let route: APIRoute
        let wanted: String
        switch components.count {
        case 1 where components[0] == "rooms":
            (route, wanted) = (.listRooms, "GET")
        case 1 where components[0] == "audit":
            (route, wanted) = (.audit, "GET")
        case 2 where components[0] == "rooms":
            (route, wanted) = (.getRoom(components[1]), "GET")
        case 3 where components[0] == "rooms":
            switch components[2] {
            case "meeting": (route, wanted) = (.publishMeeting(components[1]), "POST")
            case "events": (route, wanted) = (.publishEvent(components[1]), "POST")
            case "actions": (route, wanted) = (.moderate(components[1]), "POST")
            case "history": (route, wanted) = (.history(components[1]), "GET")
            case "attendance": (route, wanted) = (.attendance(components[1]), "GET")
            case "waiting": (route, wanted) = (.waiting(components[1]), "GET")
            default: return notFound
            }
        case 3 where components[0] == "users" && components[2] == "disconnect":
            (route, wanted) = (.disconnect(components[1]), "POST")
        default:
            return notFound
        }
        // HEAD reads a GET resource without its body (RFC 9110); the connection drops the body.
        guard method == wanted || (method == "HEAD" && wanted == "GET") else {
            return .failure(
                GatewayError(.methodNotAllowed, "use \(wanted) here"), allow: wanted == "GET" ? "GET, HEAD" : wanted)
        }
        if let id = route.pathID, !Self.isValidID(id) {
            return .failure(
                GatewayError(.badRequest, "an id in the path is 1 to 128 bytes without spaces or control characters"))
        }
        return .success(route)
    }

    /// The room id or uid the path names, if any.
    var pathID: String? {
        switch self {
        case .getRoom(let id), .publishMeeting(let id), .publishEvent(let id), .moderate(let id), .history(let id),
            .attendance(let id), .waiting(let id), .disconnect(let id):
            return id
        case .listRooms, .audit:
            return nil
        }
    }

    /// Whether a path's id could name a room or a user: the rule of the protocol's ids (1 to 128 bytes, no spaces
    /// or control characters), so no request reaches the gateway with one that none can have.
    static func isValidID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 128 && id.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value != 0x7F }
    }

    /// Whether the request must carry a JSON body.
    var needsBody: Bool {
        switch self {
        case .publishMeeting, .publishEvent, .moderate: return true
        case .listRooms, .getRoom, .disconnect, .history, .attendance, .waiting, .audit: return false
        }
    }

    /// Runs the request on the gateway's thread; `completion` gets the answer there (at once, or in a cluster once
    /// the shared log has taken the change).
    func run(
        on gateway: RoomsNode,
        body: JSONValue,
        query: APIQuery,
        key: APIKey,
        completion: @escaping (Result<JSONValue, GatewayError>) -> Void
    ) throws(GatewayError) {
        switch self {
        case .getRoom(let room), .publishMeeting(let room), .publishEvent(let room), .moderate(let room),
            .attendance(let room), .waiting(let room):
            // With a store, a room not used since the start is read back before the request sees it.
            try gateway.loadStoredRoom(room)
        default:
            break
        }
        switch self {
        case .listRooms:
            gateway.apiRooms(after: query.string("after"), limit: try query.limit()) { completion($0.map(\.json)) }
        case .history(let room):
            let names = query.string("types").map { Set($0.split(separator: ",").map(String.init)) }
            let limit = try query.limit()
            let after = try query.integer("after") ?? 0
            let found = try gateway.storedHistory(room, after: UInt64(after), eventNames: names, limit: limit)
            let last = found.events.last?["seq"]?.intValue
            completion(
                .success(
                    .object(
                        JSONObject(uniqueKeysWithValues: [
                            ("room", .string(room)), ("firstRetained", .int(Int64(found.firstRetained))),
                            ("events", .array(found.events)),
                            ("next", found.events.count == limit ? last.map { .int($0) } ?? .null : .null),
                        ]))))
        case .attendance(let room):
            let after = try query.integer("after").map { Int(clamping: $0) }
            let limit = try query.limit()
            gateway.apiAttendance(room, after: after, limit: limit) { result in
                completion(
                    result.flatMap { page in
                        page.map { .success($0) } ?? .failure(GatewayError(.notFound, "no room '\(room)'"))
                    })
            }
        case .waiting(let room):
            let after = try query.integer("after").map { Int(clamping: $0) }
            let limit = try query.limit()
            gateway.apiWaiting(room, after: after, limit: limit) { result in
                completion(
                    result.flatMap { page in
                        page.map { .success($0) } ?? .failure(GatewayError(.notFound, "no room '\(room)'"))
                    })
            }
        case .audit:
            let limit = try query.limit()
            let actions = try gateway.auditLog(
                room: query.string("room"), before: try query.integer("before"), limit: limit)
            let last = actions.last?["time"]?.intValue
            completion(
                .success(
                    .object(
                        JSONObject(uniqueKeysWithValues: [
                            ("actions", .array(actions)),
                            ("next", actions.count == limit ? last.map { .int($0) } ?? .null : .null),
                        ]))))
        case .getRoom(let room):
            gateway.apiRoom(room) { result in
                completion(
                    result.flatMap { report in
                        report.map { .success($0.json) } ?? .failure(GatewayError(.notFound, "no room '\(room)'"))
                    })
            }
        case .publishMeeting(let room):
            try gateway.apiPublishMeeting(room: room, body: body, sender: key.actor) { completion($0.map(\.json)) }
        case .publishEvent(let room):
            try gateway.apiPublishEvent(room: room, body: body, actor: key.actor) { completion($0.map(\.json)) }
        case .moderate(let room):
            try gateway.apiModerate(room: room, body: body, actor: key.actor) { completion($0.map(\.json)) }
        case .disconnect(let uid):
            guard case .object(let object) = body else {
                throw GatewayError(.badRequest, "the body must be a JSON object")
            }
            var reason: String?
            for name in object.keys {
                guard name == "reason", case .string(let text)? = object[name], text.utf8.count <= 123 else {
                    throw GatewayError(.badRequest, "the body takes only 'reason', a string of at most 123 bytes")
                }
                reason = text
            }
            completion(.success(disconnectAnswer(uid: uid, closed: gateway.apiDisconnect(uid: uid, reason: reason))))
        }
    }
}
