import JSONCoding

/// One participant of a mirrored roster, as the gateway describes it (docs/PROTOCOL.md, "snapshot").
public struct RosterParticipant: Identifiable, Hashable, Sendable {
    /// The uid.
    public var id: String
    /// The display name (the uid when the token gave none).
    public var name: String
    /// The avatar URL.
    public var avatar: String?
    /// The media id the calls SDK gave the participant.
    public var mid: String?
    /// `admin`, `moderator`, `participant`, `viewer` or `bot`.
    public var role: String
    /// Whether the participant operates the room (admin, moderator, or promoted).
    public var isOperator: Bool
    /// `joined` or `reconnecting`.
    public var state: String
    /// Position in the call's join order.
    public var order: Int
    /// When the participant joined, in milliseconds since the epoch.
    public var joinedAt: Int64
    /// The devices in the call.
    public var devices: [String]
    /// Whether the microphone is muted.
    public var audioMuted: Bool
    /// Whether the camera is paused.
    public var videoPaused: Bool
    /// Whether the participant shares their screen.
    public var presenting: Bool
    /// Whether the hand is raised.
    public var handRaised: Bool
    /// When the hand went up (milliseconds since the epoch), while it is up: the hand queue's order.
    public var raisedAt: Int64?
    /// When the participant was last reported speaking (milliseconds since the epoch).
    public var lastSpokeAt: Int64?
    /// Whether a moderator spotlighted the participant.
    public var pinned: Bool
    /// Whether the last mute came from a moderator.
    public var mutedByModerator: Bool
    /// `front` or `back`.
    public var cameraFacing: String?
    /// The device's audio output: `speaker`, `earpiece`, `bluetooth` or `headphones`.
    public var audioMode: String?
    /// What the app attached to the participant (from the token, the participant, bots or the backend).
    public var attributes: [String: String]
    /// Whether the participant may unmute itself (false after a hard mute).
    public var mayUnmute: Bool
    /// When a timed hard mute lifts (milliseconds since the epoch).
    public var restrictedUntil: Int64?
    /// Whether the participant may share its screen.
    public var mayShare: Bool
    /// Whether the participant may send group meeting messages.
    public var mayPublishMeetings: Bool
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
        self.raisedAt = entry["raisedAt"]?.intValue
        self.lastSpokeAt = entry["lastSpokeAt"]?.intValue
        self.pinned = entry["pinned"]?.boolValue ?? false
        self.mutedByModerator = entry["mutedByModerator"]?.boolValue ?? false
        self.cameraFacing = entry["cameraFacing"]?.stringValue
        self.audioMode = entry["audioMode"]?.stringValue
        var attributes: [String: String] = [:]
        for (key, value) in entry["attributes"]?.objectValue?.entries ?? [] {
            if let text = value.stringValue { attributes[key] = text }
        }
        self.attributes = attributes
        let permissions = entry["permissions"]?.objectValue
        self.mayUnmute = permissions?["unmute"]?.boolValue ?? true
        self.restrictedUntil = permissions?["restrictedUntil"]?.intValue
        self.mayShare = permissions?["share"]?.boolValue ?? true
        self.mayPublishMeetings = permissions?["meetings"]?.boolValue ?? true
        self.isBanned = entry["banned"]?.boolValue ?? false
    }
}
