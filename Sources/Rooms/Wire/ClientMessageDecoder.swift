import JSONCoding

/// Decodes client messages strictly: unknown types and unknown or mistyped fields are refused with a message that
/// names them, so a forged field (such as a `role`) is never silently taken.
struct ClientMessageDecoder {
    let configuration: RoomsConfiguration

    /// The id of a request, read before full decoding so even a refused request can be answered with its id.
    static func requestID(_ value: JSONValue) -> JSONValue? {
        guard case .object(let object) = value, let id = object["id"] else { return nil }
        switch id {
        case .string, .int: return id
        default: return nil
        }
    }

    func decode(_ value: JSONValue) throws(GatewayError) -> ClientRequest {
        guard case .object(let object) = value else { throw .badRequest("a message is a JSON object") }
        var fields = Fields(object: object, configuration: self.configuration)
        let id = object["id"]
        if let id {
            switch id {
            case .string(let text) where text.utf8.count <= self.configuration.maximumIDLength: break
            case .int: break
            default: throw .badRequest("'id' must be a short string or an integer")
            }
        }
        fields.consume("id")
        let typeName = try fields.requiredString("type")
        guard let type = ClientMessageType(rawValue: typeName) else {
            throw .badRequest("unknown message type '\(typeName.prefix(32))'")
        }
        let message: ClientMessage
        switch type {
        case .auth:
            message = .authenticate(token: try fields.requiredString("token", maximumLength: 8192))
        case .join:
            let room = try fields.requiredID("room")
            let kindText = try fields.optionalString("as") ?? "participant"
            guard let kind = ClientMessage.SubscriptionKind(rawValue: kindText) else {
                throw .badRequest("'as' must be participant or observer")
            }
            let device = try fields.optionalID("device") ?? "default"
            let callType = try fields.optionalString("callType")
            if let callType, callType != "audio" && callType != "video" {
                throw .badRequest("'callType' must be audio or video")
            }
            let resume = try fields.optionalSequence("resume")
            let resumeEvents = try fields.optionalSequence("resumeEvents")
            if resumeEvents != nil && resume == nil { throw .badRequest("'resumeEvents' needs 'resume'") }
            let view = try fields.optionalView("view") ?? .all
            let eventsText = try fields.optionalString("events") ?? "all"
            guard let events = EventMode(rawValue: eventsText) else {
                throw .badRequest("'events' must be all, notable or none")
            }
            message = .join(
                room: room, kind: kind, deviceID: device, callType: callType, view: view, events: events,
                resume: resume.map { ClientMessage.Resume(roster: $0, events: resumeEvents ?? $0) }
            )
        case .view:
            let room = try fields.requiredID("room")
            guard let view = try fields.optionalView("view") else { throw .badRequest("'view' is required") }
            message = .changeView(room: room, view: view)
        case .leave:
            message = .leave(room: try fields.requiredID("room"))
        case .state:
            let room = try fields.requiredID("room")
            var flags: [ParticipantFlag: Bool] = [:]
            for flag in ParticipantFlag.ordered {
                guard object[flag.rawValue] != nil else { continue }
                guard flag.isSetByParticipant else {
                    throw .forbidden("'\(flag.rawValue)' is set by moderator actions only")
                }
                flags[flag] = try fields.optionalBool(flag.rawValue)
            }
            let mid = try fields.optionalID("mid")
            let facing = try fields.optionalString("cameraFacing")
            if let facing, facing != "front" && facing != "back" {
                throw .badRequest("'cameraFacing' must be front or back")
            }
            if flags.isEmpty && mid == nil && facing == nil { throw .badRequest("'state' changes nothing") }
            message = .command(room: room, .updateState(flags: flags, mid: mid, cameraFacing: facing))
        case .speaker:
            let room = try fields.requiredID("room")
            let uid: String?
            if case .null? = object["uid"] {
                fields.consume("uid")
                uid = nil
            } else {
                uid = try fields.requiredID("uid")
            }
            message = .command(room: room, .reportSpeaker(uid: uid))
        case .media:
            let room = try fields.requiredID("room")
            let recording = try fields.optionalBool("recording")
            let audioMode = try fields.optionalID("audioMode")
            if let audioMode, !Participant.audioModes.contains(audioMode) {
                throw .badRequest("'audioMode' must be one of \(Participant.audioModes.joined(separator: ", "))")
            }
            let uid = try fields.optionalID("uid")
            if recording == nil && audioMode == nil { throw .badRequest("'media' changes nothing") }
            if uid != nil && audioMode == nil { throw .badRequest("'uid' names whose 'audioMode' changes") }
            message = .command(room: room, .media(recording: recording, audioMode: audioMode, uid: uid))
        case .attributes:
            let room = try fields.requiredID("room")
            let changes = try fields.requiredChanges("attributes", limits: .participant)
            let uid = try fields.optionalID("uid")
            let ifSeq = try fields.optionalSequence("ifSeq")
            message = .command(room: room, .setAttributes(changes: changes, uid: uid, ifSeq: ifSeq))
        case .metadata:
            let room = try fields.requiredID("room")
            let changes = try fields.requiredChanges("metadata", limits: .room)
            message = .command(room: room, .setMetadata(changes: changes, ifSeq: try fields.optionalSequence("ifSeq")))
        case .meeting:
            let group = try fields.requiredID("group")
            let session = try fields.requiredID("sessionId")
            let callType = try fields.optionalString("callType") ?? "video"
            guard callType == "audio" || callType == "video" else {
                throw .badRequest("'callType' must be audio or video")
            }
            let active = try fields.optionalBool("active") ?? true
            let text = try fields.optionalText("text")
            message = .command(
                room: group, .publishMeeting(sessionID: session, callType: callType, isActive: active, text: text))
        case .action:
            let room = try fields.requiredID("room")
            let name = try fields.requiredString("action")
            guard let action = ModeratorAction(rawValue: name) else {
                throw .badRequest("unknown action '\(name.prefix(32))'")
            }
            let target = action.needsTarget ? try fields.requiredID("target") : nil
            let reason = try fields.optionalText("reason")
            var hardMute: HardMute?
            if try fields.optionalBool("hard") == true {
                guard action == .mute else { throw .badRequest("'hard' is for the mute action") }
                let duration = try fields.optionalInt("durationMs", range: 1_000...86_400_000)
                hardMute = HardMute(durationMilliseconds: duration.map(Int64.init))
            } else if object["durationMs"] != nil {
                throw .badRequest("'durationMs' goes with \"hard\": true")
            }
            let floorLimit = try fields.optionalInt("limit", range: 1...ModeratorAction.maximumFloorLimit)
            let floorQueues = try fields.optionalBool("queue")
            if floorLimit != nil || floorQueues != nil, action != .floor {
                throw .badRequest("'limit' and 'queue' are for the floor action")
            }
            let floor = action == .floor ? FloorSetting(limit: floorLimit ?? 1, queues: floorQueues ?? false) : nil
            message = .command(
                room: room, .moderate(action, target: target, reason: reason, hardMute: hardMute, floor: floor))
        case .permissions:
            let room = try fields.requiredID("room")
            let uid = try fields.requiredID("uid")
            let change = try fields.requiredPermissionChange()
            let ifSeq = try fields.optionalSequence("ifSeq")
            message = .command(room: room, .setPermissions(uid: uid, change: change, ifSeq: ifSeq))
        case .query:
            let what = try fields.requiredString("query")
            switch what {
            case "rooms": message = .query(.rooms)
            case "active_meeting": message = .query(.activeMeeting(group: try fields.requiredID("group")))
            case "members":
                let room = try fields.requiredID("room")
                let after = try fields.optionalInt("after", range: -1...Int(Int32.max))
                let limit = try fields.optionalInt("limit", range: 1...1000)
                let at = try fields.optionalSequence("at")
                let page =
                    after == nil && limit == nil && at == nil
                    ? nil : MembersPage(after: after, limit: limit ?? 100, at: at)
                message = .query(.members(room: room, page: page))
            case "operators": message = .query(.operators(room: try fields.requiredID("room")))
            case "muted": message = .query(.muted(room: try fields.requiredID("room")))
            case "banned": message = .query(.banned(room: try fields.requiredID("room")))
            case "history":
                let room = try fields.requiredID("room")
                let after = try fields.optionalSequence("after") ?? 0
                let limit = try fields.optionalInt("limit", range: 1...1000) ?? 100
                message = .query(.history(room: room, after: after, limit: limit))
            case "attendance":
                let room = try fields.requiredID("room")
                let after = try fields.optionalInt("after", range: -1...Int(Int32.max))
                let limit = try fields.optionalInt("limit", range: 1...1000) ?? 100
                message = .query(.attendance(room: room, after: after, limit: limit))
            case "waiting":
                let room = try fields.requiredID("room")
                let after = try fields.optionalInt("after", range: 0...Int(Int32.max))
                let limit = try fields.optionalInt("limit", range: 1...1000) ?? 100
                message = .query(.waiting(room: room, after: after, limit: limit))
            default:
                throw .badRequest("unknown query '\(what.prefix(32))'")
            }
        case .signal:
            let room = try fields.requiredID("room")
            let kind = try fields.requiredID("kind")
            let to = try fields.optionalID("to")
            fields.consume("data")
            let data = object["data"] ?? .null
            let limit = self.configuration.maximumSignalBytes
            guard JSONWriter.bytes(data).count <= limit else { throw .tooLarge("'data' is longer than \(limit) bytes") }
            message = .signal(room: room, RoomSignal(kind: kind, data: data, from: "", to: to))
        case .ping:
            message = .ping
        }
        if let unknown = fields.unconsumed.first {
            throw .badRequest("unknown field '\(unknown.prefix(32))' in '\(typeName)'")
        }
        return ClientRequest(id: id, message: message)
    }
}

/// Reads fields of a message object and remembers which were used, to refuse unknown ones.
private struct Fields {
    let object: JSONObject
    let configuration: RoomsConfiguration
    private var consumed: Set<String> = []

    init(object: JSONObject, configuration: RoomsConfiguration) {
        self.object = object
        self.configuration = configuration
    }

    var unconsumed: [String] { self.object.keys.filter { !self.consumed.contains($0) } }

    mutating func consume(_ key: String) { self.consumed.insert(key) }

    mutating func optionalString(_ key: String, maximumLength: Int? = nil) throws(GatewayError) -> String? {
        self.consumed.insert(key)
        guard let value = self.object[key] else { return nil }
        guard case .string(let text) = value else { throw .badRequest("'\(key)' must be a string") }
        let limit = maximumLength ?? self.configuration.maximumIDLength
        guard text.utf8.count <= limit else { throw .badRequest("'\(key)' is longer than \(limit) bytes") }
        return text
    }

    mutating func requiredString(_ key: String, maximumLength: Int? = nil) throws(GatewayError) -> String {
        guard let text = try self.optionalString(key, maximumLength: maximumLength) else {
            throw .badRequest("'\(key)' is required")
        }
        return text
    }

    mutating func optionalID(_ key: String) throws(GatewayError) -> String? {
        guard let text = try self.optionalString(key) else { return nil }
        guard !text.isEmpty, text.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7F }) else {
            throw .badRequest("'\(key)' must be a non-empty id without spaces or control characters")
        }
        return text
    }

    mutating func requiredID(_ key: String) throws(GatewayError) -> String {
        guard let text = try self.optionalID(key) else { throw .badRequest("'\(key)' is required") }
        return text
    }

    mutating func optionalText(_ key: String) throws(GatewayError) -> String? {
        try self.optionalString(key, maximumLength: self.configuration.maximumTextLength)
    }

    mutating func optionalBool(_ key: String) throws(GatewayError) -> Bool? {
        self.consumed.insert(key)
        guard let value = self.object[key] else { return nil }
        guard case .bool(let flag) = value else { throw .badRequest("'\(key)' must be true or false") }
        return flag
    }

    mutating func optionalInt(_ key: String, range: ClosedRange<Int>) throws(GatewayError) -> Int? {
        self.consumed.insert(key)
        guard let value = self.object[key] else { return nil }
        guard case .int(let number) = value, range.contains(Int(clamping: number)) else {
            throw .badRequest("'\(key)' must be an integer in \(range.lowerBound)...\(range.upperBound)")
        }
        return Int(number)
    }

    /// Key/value changes: an object of strings to set and `null`s to remove, keys and values within `limits`.
    mutating func requiredChanges(_ key: String, limits: AttributeLimits) throws(GatewayError) -> [String: String?] {
        self.consumed.insert(key)
        guard case .object(let object)? = self.object[key] else {
            throw .badRequest("'\(key)' must be an object of strings (null removes a key)")
        }
        guard !object.isEmpty else { throw .badRequest("'\(key)' changes nothing") }
        guard object.count <= limits.maximumKeys else {
            throw .tooLarge("'\(key)' holds at most \(limits.maximumKeys) keys")
        }
        var changes: [String: String?] = [:]
        for (name, value) in object.entries {
            guard limits.isValidKey(name) else {
                throw .badRequest(
                    "'\(key).\(name.prefix(32))' is not a key of 1 to \(limits.maximumKeyBytes) of A-Z a-z 0-9 . _ -")
            }
            switch value {
            case .string(let text):
                guard text.utf8.count <= limits.maximumValueBytes else {
                    throw .tooLarge("'\(key).\(name)' is longer than \(limits.maximumValueBytes) bytes")
                }
                changes.updateValue(text, forKey: name)
            case .null:
                changes.updateValue(nil, forKey: name)
            default:
                throw .badRequest("'\(key).\(name)' must be a string, or null to remove it")
            }
        }
        return changes
    }

    /// A permission change: `{"unmute": false, "share": false, "meetings": false, "hidden": true}`, any of them.
    mutating func requiredPermissionChange() throws(GatewayError) -> PermissionChange {
        self.consumed.insert("permissions")
        guard case .object(let object)? = self.object["permissions"] else {
            throw .badRequest("'permissions' must be an object of unmute, share, meetings, hidden")
        }
        var fields = Fields(object: object, configuration: self.configuration)
        let change = PermissionChange(
            mayUnmute: try fields.optionalBool("unmute"), mayShare: try fields.optionalBool("share"),
            mayPublishMeetings: try fields.optionalBool("meetings"), hidden: try fields.optionalBool("hidden"))
        if let unknown = fields.unconsumed.first {
            throw .badRequest("unknown permission '\(unknown.prefix(32))'")
        }
        guard change != PermissionChange() else { throw .badRequest("'permissions' changes nothing") }
        return change
    }

    /// A roster view: `{"filter": "muted", "query": "ann", "match": "prefix", "limit": 9}`.
    mutating func optionalView(_ key: String) throws(GatewayError) -> RosterViewSpec? {
        self.consumed.insert(key)
        guard let value = self.object[key] else { return nil }
        guard case .object(let object) = value else { throw .badRequest("'\(key)' must be an object") }
        var fields = Fields(object: object, configuration: self.configuration)
        let filterText = try fields.optionalString("filter") ?? "all"
        guard let filter = RosterViewSpec.Filter(rawValue: filterText) else {
            throw .badRequest("unknown view filter '\(filterText.prefix(32))'")
        }
        let query = try fields.optionalString("query")
        let matchText = try fields.optionalString("match") ?? "prefix"
        guard let match = RosterViewSpec.Match(rawValue: matchText) else {
            throw .badRequest("'match' must be prefix or substring")
        }
        let sortText = try fields.optionalString("sort")
        let sort = try sortText.map { text throws(GatewayError) -> RosterViewSpec.Sort in
            guard let sort = RosterViewSpec.Sort(rawValue: text) else {
                throw .badRequest("'sort' must be join, name, raised_hand or recent_speaking")
            }
            return sort
        }
        let offset = try fields.optionalInt("offset", range: 0...1_000_000)
        let limit = try fields.optionalInt("limit", range: 1...10_000)
        if filter == .search && (query ?? "").isEmpty { throw .badRequest("a search view needs a 'query'") }
        if query?.isEmpty == true { throw .badRequest("'query' must not be empty") }
        if filter == .banned && (query != nil || sort != nil) {
            throw .badRequest("the banned view takes no 'query' or 'sort'")
        }
        if let unknown = fields.unconsumed.first {
            throw .badRequest("unknown field '\(unknown.prefix(32))' in '\(key)'")
        }
        return RosterViewSpec(
            filter: filter, query: query, match: match, sort: sort, offset: offset == 0 ? nil : offset, limit: limit)
    }

    mutating func optionalSequence(_ key: String) throws(GatewayError) -> UInt64? {
        self.consumed.insert(key)
        guard let value = self.object[key] else { return nil }
        guard case .int(let number) = value, number >= 0 else {
            throw .badRequest("'\(key)' must be a sequence number (an integer ≥ 0)")
        }
        return UInt64(number)
    }
}
