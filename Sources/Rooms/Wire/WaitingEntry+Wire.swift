import JSONCoding

extension WaitingEntry {
    /// The entry as the `waiting` view, the `waiting` query, the server API and `waiting.entered` give it: the uid,
    /// the name, the avatar and the token's attributes when there are any, the role, and when the user arrived (ms).
    var wireObject: JSONObject {
        var object = JSONObject()
        object["uid"] = .string(self.uid)
        object["name"] = .string(self.name)
        if let avatar = self.avatar { object["avatar"] = .string(avatar) }
        object["role"] = .string(self.role.rawValue)
        if !self.attributes.isEmpty { object["attributes"] = ServerMessages.strings(self.attributes) }
        object["waitingSince"] = .int(self.since)
        return object
    }

    /// Reads an entry written by `wireObject` (a checkpoint's `waiting`).
    init(wireObject value: JSONValue) throws(RoomLogWireError) {
        guard let uid = value["uid"]?.stringValue, let name = value["name"]?.stringValue,
            let role = value["role"]?.stringValue.flatMap(ParticipantRole.init(rawValue:)),
            let since = value["waitingSince"]?.intValue
        else { throw RoomLogWireError("a waiting room entry without its uid, name, role or waitingSince") }
        var attributes: [String: String] = [:]
        for (key, item) in value["attributes"]?.objectValue?.entries ?? [] {
            if let text = item.stringValue { attributes[key] = text }
        }
        self.init(
            uid: uid, name: name, avatar: value["avatar"]?.stringValue, role: role, attributes: attributes,
            since: since)
    }
}

extension RoomState {
    /// A page of the waiting room as the `waiting` query and the server API answer it: the entries after position
    /// `after` (from 1; nil from the first), at most `limit`, in the order they arrived, with `next` the position
    /// to ask after for the next page (null on the last).
    func waitingPage(after: Int?, limit: Int) -> [(String, JSONValue)] {
        let start = min(max(after ?? 0, 0), self.waiting.count)
        let page = self.waiting[start...].prefix(limit)
        let end = start + page.count
        return [
            ("room", .string(self.id)), ("seq", .int(Int64(self.sequence))),
            ("admissionRequired", .bool(self.requiresAdmission)), ("total", .int(Int64(self.waiting.count))),
            ("waiting", .array(page.map { .object($0.wireObject) })),
            ("next", end < self.waiting.count ? .int(Int64(end)) : .null),
        ]
    }
}
