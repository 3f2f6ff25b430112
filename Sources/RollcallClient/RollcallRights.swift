import JSONCoding

/// What the user may do in a room, as the gateway said when the room was joined (docs/PROTOCOL.md, "join"): show
/// only the buttons that will work. Promotions and permission changes later show in the roster (`isOperator`,
/// `mayUnmute`, ...) rather than here.
public struct RollcallRights: Hashable, Sendable {
    /// The role the token gives in the room (`admin`, `moderator`, `participant`, `viewer`, `bot`).
    public var role: String?
    /// Whether the user moderates the room (by token or promoted).
    public var isOperator: Bool
    /// The moderator actions the user may take (`mute`, `remove`, ...).
    public var actions: [String]
    /// Whether the user may start or stop recording.
    public var mayRecord: Bool
    /// Whether the user may report anyone as speaking (bots with `speaker`).
    public var mayReportAnySpeaker: Bool
    /// Whether the user may set anyone's attributes (bots with `attributes`).
    public var maySetAnyAttributes: Bool
    /// Whether the user may set the room's metadata.
    public var maySetMetadata: Bool
    /// Whether the user may change participants' permissions.
    public var maySetPermissions: Bool
    /// The user's own permissions: unmuting itself, sharing its screen, sending meeting messages.
    public var mayUnmute: Bool
    public var mayShare: Bool
    public var mayPublishMeetings: Bool
    /// Whether the user joins the call while the room is locked (moderators, admins, bots with `lock`).
    public var bypassesLock: Bool
    /// Whether the user may read the room's attendance (the `attendance` query: moderators, bots with
    /// `attendance`).
    public var mayReadAttendance: Bool

    /// Reads the `rights` member of a join's answer.
    init?(_ value: JSONValue?) {
        guard let value, case .object = value else { return nil }
        func flag(_ key: String, _ fallback: Bool = false) -> Bool { value[key]?.boolValue ?? fallback }
        self.role = value["role"]?.stringValue
        self.isOperator = flag("operator")
        self.actions = value["actions"]?.arrayValue?.compactMap(\.stringValue) ?? []
        self.mayRecord = flag("record")
        self.mayReportAnySpeaker = flag("speakerForOthers")
        self.maySetAnyAttributes = flag("attributesForOthers")
        self.maySetMetadata = flag("metadata")
        self.maySetPermissions = flag("permissions")
        self.mayUnmute = flag("unmute", true)
        self.mayShare = flag("share", true)
        self.mayPublishMeetings = flag("meetings", true)
        self.bypassesLock = flag("bypassLock")
        self.mayReadAttendance = flag("attendance")
    }
}
