import JSONCoding

/// A user in a room's waiting room, as the `waiting` query and view give it (docs/PROTOCOL.md, "Waiting room").
public struct RollcallWaitingEntry: Hashable, Sendable {
    public var uid: String
    public var name: String
    public var avatar: String?
    /// The role the user's token gives in the room.
    public var role: String
    /// What the user's token vouches for (`attrs`).
    public var attributes: [String: String]
    /// When the user arrived, in milliseconds since the epoch.
    public var waitingSince: Int64

    /// Reads an entry; nil when `uid`, `name`, `role` or `waitingSince` is missing.
    public init?(json: JSONValue) {
        guard let uid = json["uid"]?.stringValue, let name = json["name"]?.stringValue,
            let role = json["role"]?.stringValue, let since = json["waitingSince"]?.intValue
        else { return nil }
        self.uid = uid
        self.name = name
        self.avatar = json["avatar"]?.stringValue
        self.role = role
        var attributes: [String: String] = [:]
        for (key, value) in json["attributes"]?.objectValue?.entries ?? [] {
            if let text = value.stringValue { attributes[key] = text }
        }
        self.attributes = attributes
        self.waitingSince = since
    }
}
