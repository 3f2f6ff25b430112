/// One device of a participant that is in the call.
public struct ParticipantDevice: Hashable, Sendable {
    /// The device's identifier, from the client (e.g. a calls SDK device id).
    public var deviceID: String
    /// When this device joined, in milliseconds since the epoch.
    public var joinedAt: Int64
    /// False while the device's socket is lost and within the reconnect grace period.
    public var isConnected: Bool

    public init(deviceID: String, joinedAt: Int64, isConnected: Bool = true) {
        self.deviceID = deviceID
        self.joinedAt = joinedAt
        self.isConnected = isConnected
    }
}

/// A roster entry: one user (uid) in a room, whatever the number of devices they joined from.
///
/// Media state is per user: the last change from any of the user's devices wins. Each device is listed in
/// `devices`; the user is joined while at least one device is in the call.
public struct Participant: Hashable, Sendable {
    public var uid: String
    public var name: String
    public var avatar: String?
    /// The media id the calls SDK gave this participant, when the client reports it.
    public var mid: String?
    public var role: ParticipantRole
    /// The participant's position in the call's join order (0 for the first to join).
    public var order: Int
    public var devices: [ParticipantDevice]
    /// When the user first joined (the earliest device still in the call, or the last join).
    public var joinedAt: Int64
    /// When the last device left; nil while joined.
    public var leftAt: Int64?
    /// The state flags (`ParticipantFlag`): muted, video paused, presenting, hand raised, pinned.
    public var flags: ParticipantFlags
    /// Muted by a moderator (the user may unmute unless the room forbids it; recorded for the muted list).
    public var mutedByModerator: Bool
    /// `front` or `back`, when reported.
    public var cameraFacing: String?
    /// The device's audio output, when reported: `speaker`, `earpiece`, `bluetooth` or `headphones`.
    public var audioMode: String?
    /// When the hand went up (log time), while it is up: the hand queue's order.
    public var raisedAt: Int64?
    /// When the participant was last reported speaking (log time), for the `recent_speaking` order.
    public var lastSpokeAt: Int64?
    /// What the app attached to the participant (bounded by `AttributeLimits.participant`).
    public var attributes: [String: String]
    /// What moderators allow the participant beyond its role (hard mute, sharing, meeting messages, hidden).
    public var permissions: ParticipantPermissions
    /// The sequence numbers of the last change to `attributes` and to `permissions` (the participant's first join
    /// in the room starts both): the versions a version-checked write (`ifSeq`) is compared with.
    public var attributesSequence: UInt64
    public var permissionsSequence: UInt64
    /// Accumulated time with audio unmuted, video on and in the call, in milliseconds, up to `accountedUntil`.
    public var audioMilliseconds: Int64
    public var videoMilliseconds: Int64
    public var durationMilliseconds: Int64
    /// Accumulated time sharing the screen, in milliseconds, up to `accountedUntil`.
    public var presentingMilliseconds: Int64
    /// Accumulated time as the active speaker the views showed (`RoomReplica.heldSpeaker`), in milliseconds, up to
    /// the last switch away from this participant (the replica adds the time of a speaker still shown).
    public var speakingMilliseconds: Int64
    /// How many times the hand went up in this call (raising a hand that is up does not count again).
    public var handsRaised: Int
    /// When the user first joined this call (log time); unlike `joinedAt`, a leave and a rejoin keep it.
    public var firstJoinedAt: Int64
    /// The log time up to which the totals above are counted.
    public var accountedUntil: Int64

    public init(uid: String, name: String, avatar: String?, role: ParticipantRole, joinedAt: Int64, order: Int = 0) {
        self.uid = uid
        self.order = order
        self.name = name
        self.avatar = avatar
        self.mid = nil
        self.role = role
        self.devices = []
        self.joinedAt = joinedAt
        self.leftAt = nil
        self.flags = ParticipantFlags()
        self.mutedByModerator = false
        self.cameraFacing = nil
        self.audioMode = nil
        self.raisedAt = nil
        self.lastSpokeAt = nil
        self.attributes = [:]
        self.permissions = ParticipantPermissions()
        self.attributesSequence = 0
        self.permissionsSequence = 0
        self.audioMilliseconds = 0
        self.videoMilliseconds = 0
        self.durationMilliseconds = 0
        self.presentingMilliseconds = 0
        self.speakingMilliseconds = 0
        self.handsRaised = 0
        self.firstJoinedAt = joinedAt
        self.accountedUntil = joinedAt
    }

    /// The audio outputs a device reports in `audioMode`.
    public static let audioModes = ["speaker", "earpiece", "bluetooth", "headphones"]

    /// Whether the microphone is muted.
    public var audioMuted: Bool {
        get { self.flags[.audioMuted] }
        set { self.flags[.audioMuted] = newValue }
    }

    /// Whether the camera is paused.
    public var videoPaused: Bool {
        get { self.flags[.videoPaused] }
        set { self.flags[.videoPaused] = newValue }
    }

    /// Whether the participant shares their screen.
    public var presenting: Bool {
        get { self.flags[.presenting] }
        set { self.flags[.presenting] = newValue }
    }

    /// Whether the hand is raised.
    public var handRaised: Bool {
        get { self.flags[.handRaised] }
        set { self.flags[.handRaised] = newValue }
    }

    /// Whether a moderator spotlighted the participant.
    public var pinned: Bool {
        get { self.flags[.pinned] }
        set { self.flags[.pinned] = newValue }
    }

    /// Whether at least one device is in the call.
    public var isJoined: Bool { !self.devices.isEmpty }

    /// `joined`, `reconnecting` (every device lost, within the grace period) or `left`.
    public var state: String {
        if self.devices.isEmpty { return "left" }
        return self.devices.contains { $0.isConnected } ? "joined" : "reconnecting"
    }

    /// Clears the flags a leave ends (`ParticipantFlag.clearsOnLeave`).
    mutating func clearFlagsOnLeave() {
        for flag in ParticipantFlag.ordered where flag.clearsOnLeave { self.flags[flag] = false }
        if !self.handRaised { self.raisedAt = nil }
    }

    /// Adds the time since `accountedUntil` to the totals, as of `now`.
    mutating func account(until now: Int64) {
        guard now > self.accountedUntil else { return }
        let elapsed = now - self.accountedUntil
        if self.isJoined {
            self.durationMilliseconds += elapsed
            if !self.audioMuted { self.audioMilliseconds += elapsed }
            if !self.videoPaused { self.videoMilliseconds += elapsed }
            if self.presenting { self.presentingMilliseconds += elapsed }
        }
        self.accountedUntil = now
    }
}
