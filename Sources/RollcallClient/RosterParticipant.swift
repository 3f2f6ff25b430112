import JSONCoding

/// One participant of a mirrored roster, as the gateway describes it (docs/PROTOCOL.md, "snapshot").
public struct RosterParticipant: Identifiable, Hashable, Sendable {
    /// The uid.
    public var id: String
    public var name: String
    public var avatar: String?
    public var mid: String?
    public var role: String
    public var isOperator: Bool
    /// `joined` or `reconnecting`.
    public var state: String
    /// Position in the call's join order.
    public var order: Int
    public var joinedAt: Int64
    public var devices: [String]
    public var audioMuted: Bool
    public var videoPaused: Bool
    public var presenting: Bool
    public var handRaised: Bool
    public var pinned: Bool
    public var mutedByModerator: Bool
    public var cameraFacing: String?
    /// Set in the banned view.
    public var isBanned: Bool

    /// Reads an entry of the roster object.
    init(uid: String, entry: JSONObject) {
        self.id = uid
        self.name = entry["name"]?.stringValue ?? uid
        self.avatar = entry["avatar"]?.stringValue
        self.mid = entry["mid"]?.stringValue
        self.role = entry["role"]?.stringValue ?? "participant"
        self.isOperator = entry["operator"]?.boolValue ?? false
        self.state = entry["state"]?.stringValue ?? "joined"
        self.order = Int(entry["order"]?.intValue ?? 0)
        self.joinedAt = entry["joinedAt"]?.intValue ?? 0
        self.devices = entry["devices"]?.arrayValue?.compactMap(\.stringValue) ?? []
        self.audioMuted = entry["audioMuted"]?.boolValue ?? false
        self.videoPaused = entry["videoPaused"]?.boolValue ?? false
        self.presenting = entry["presenting"]?.boolValue ?? false
        self.handRaised = entry["handRaised"]?.boolValue ?? false
        self.pinned = entry["pinned"]?.boolValue ?? false
        self.mutedByModerator = entry["mutedByModerator"]?.boolValue ?? false
        self.cameraFacing = entry["cameraFacing"]?.stringValue
        self.isBanned = entry["banned"]?.boolValue ?? false
    }
}
