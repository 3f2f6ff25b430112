import JSONCoding

/// What a participant may do beyond its role, as moderators, bots with the `permissions` capability and the server
/// API set it, carried in the roster. Everything is allowed by default.
public struct ParticipantPermissions: Hashable, Sendable {
    /// Whether the participant may unmute itself; false after a hard mute (a moderator's restriction).
    public var mayUnmute = true
    /// When the restriction on unmuting lifts by itself (log time); nil while it lasts until lifted.
    public var restrictedUntil: Int64?
    /// Whether the participant may share its screen (`presenting`).
    public var mayShare = true
    /// Whether the participant may send group meeting messages.
    public var mayPublishMeetings = true
    /// Whether the participant is left out of every roster view and count: a recorder or a bot that is in the room
    /// but not in the list.
    public var hidden = false

    public init() {}

    /// Whether every permission is at its default.
    public var isDefault: Bool { self == ParticipantPermissions() }

    /// The permissions as a JSON object; `nonDefaultOnly` leaves out those at their default (the roster view's form,
    /// which is absent altogether while every permission is at its default).
    func wireObject(nonDefaultOnly: Bool) -> JSONObject {
        var object = JSONObject()
        if !nonDefaultOnly || !self.mayUnmute { object["unmute"] = .bool(self.mayUnmute) }
        if let until = self.restrictedUntil {
            object["restrictedUntil"] = .int(until)
        } else if !nonDefaultOnly {
            object["restrictedUntil"] = .null
        }
        if !nonDefaultOnly || !self.mayShare { object["share"] = .bool(self.mayShare) }
        if !nonDefaultOnly || !self.mayPublishMeetings { object["meetings"] = .bool(self.mayPublishMeetings) }
        if !nonDefaultOnly || self.hidden { object["hidden"] = .bool(self.hidden) }
        return object
    }

    /// Reads the permissions a JSON object holds (missing members keep their default).
    init(wireObject object: JSONObject?) {
        self.init()
        guard let object else { return }
        self.mayUnmute = object["unmute"]?.boolValue ?? true
        self.restrictedUntil = object["restrictedUntil"]?.intValue
        self.mayShare = object["share"]?.boolValue ?? true
        self.mayPublishMeetings = object["meetings"]?.boolValue ?? true
        self.hidden = object["hidden"]?.boolValue ?? false
    }
}

/// A change of permissions as a moderator asks for it: the permissions named, the others left as they are.
public struct PermissionChange: Hashable, Sendable {
    public var mayUnmute: Bool?
    public var mayShare: Bool?
    public var mayPublishMeetings: Bool?
    public var hidden: Bool?

    public init(mayUnmute: Bool? = nil, mayShare: Bool? = nil, mayPublishMeetings: Bool? = nil, hidden: Bool? = nil) {
        self.mayUnmute = mayUnmute
        self.mayShare = mayShare
        self.mayPublishMeetings = mayPublishMeetings
        self.hidden = hidden
    }

    /// `permissions` with the change applied; lifting the unmute restriction ends its duration too.
    func applied(to permissions: ParticipantPermissions) -> ParticipantPermissions {
        var result = permissions
        if let mayUnmute = self.mayUnmute {
            result.mayUnmute = mayUnmute
            if mayUnmute { result.restrictedUntil = nil }
        }
        if let mayShare = self.mayShare { result.mayShare = mayShare }
        if let mayPublishMeetings = self.mayPublishMeetings { result.mayPublishMeetings = mayPublishMeetings }
        if let hidden = self.hidden { result.hidden = hidden }
        return result
    }
}
