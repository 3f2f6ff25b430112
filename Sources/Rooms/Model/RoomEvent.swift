/// Why a participant's device left.
public enum LeaveReason: String, Hashable, Sendable, CaseIterable {
    /// The client said so (`leave` message or a clean close).
    case left
    /// The socket dropped and did not come back within the grace period.
    case timedOut = "timed_out"
    /// The client closed its socket and did not come back within the grace period.
    case connectionClosed = "connection_closed"
    /// A moderator removed the user.
    case removed
    /// A moderator banned the user.
    case banned
    /// The session was ended for everyone.
    case sessionEnded = "session_ended"
    /// A refreshed token no longer gives the user access to the room.
    case accessRevoked = "access_revoked"
}

/// Everything that can happen in a room. Each event is appended to the room's ordered log, which gives it its
/// sequence number, and applied by the reducer (`RoomState.applying`).
public enum RoomEvent: Hashable, Sendable {
    /// A device joined the call; `callType` is the one the join asked for, which the join that starts a call sets;
    /// `attributes` are those the token vouches for; `hidden` keeps the participant out of the lists from its first
    /// moment (a bot whose token has the `hidden` capability).
    case participantJoined(
        uid: String, deviceID: String, name: String, avatar: String?, role: ParticipantRole, callType: String?,
        attributes: [String: String] = [:], hidden: Bool = false
    )
    /// A device left the call.
    case participantLeft(uid: String, deviceID: String, reason: LeaveReason)
    /// A device's socket dropped without a close handshake; it has the grace period to come back.
    case connectionLost(uid: String, deviceID: String)
    /// A device's socket was closed by the client (a page reload, an app going to the background) without a
    /// `leave`; like a lost connection it has the grace period to come back before it leaves.
    case participantConnectionClosed(uid: String, deviceID: String)
    /// A device came back within the grace period.
    case connectionRestored(uid: String, deviceID: String)
    /// A state flag changed, by the participant or by a moderator.
    case flagChanged(uid: String, flag: ParticipantFlag, value: Bool)
    /// The participant's media id was reported.
    case mediaIDChanged(uid: String, mid: String)
    /// A report that `uid` is speaking: from the participant about itself, or from a bot or the server API about
    /// anyone; nil (bots and the server API only): nobody is.
    case activeSpeakerChanged(uid: String?)
    /// A participant reported that it stopped speaking.
    case speakerStopped(uid: String)
    /// The active speaker shown in the roster switched when its hold ran out, without a report at that moment: the
    /// gateway logs the switch so the roster change has a sequence number of its own.
    case activeSpeakerShown(uid: String?)
    case recordingChanged(isRecording: Bool)
    /// A participant's audio output changed (`speaker`, `earpiece`, `bluetooth`, `headphones`).
    case audioModeChanged(uid: String, mode: String)
    case cameraFacingChanged(uid: String, facing: String)
    /// Promoted to or demoted from operator.
    case operatorChanged(uid: String, isOperator: Bool)
    /// The role the user's token gives in the room changed (a token refresh); the seat taken at the join stays.
    case roleChanged(uid: String, role: ParticipantRole)
    case banChanged(uid: String, isBanned: Bool)
    /// A moderator muted the user.
    case mutedByModerator(uid: String)
    /// A moderator muted the user and took away its right to unmute itself, for `durationMilliseconds` or until a
    /// moderator gives it back (nil).
    case hardMuted(uid: String, durationMilliseconds: Int64?)
    /// A participant's permissions are now these.
    case permissionsChanged(uid: String, permissions: ParticipantPermissions)
    /// A moderator asks a muted participant to unmute (the participant accepts by unmuting).
    case unmuteRequested(uid: String)
    /// A participant's attributes changed: the keys set, and those removed (nil).
    case attributesChanged(uid: String, changes: [String: String?])
    /// The room's metadata changed: the keys set, and those removed (nil).
    case metadataChanged(changes: [String: String?])
    /// The room was locked (a new join into the call is refused with `ERR_ROOM_LOCKED`, but for those who may
    /// lock it) or unlocked.
    case lockChanged(isLocked: Bool)
    /// The presenter floor was set (at most `limit` participants present at once; a start beyond it is refused
    /// with `ERR_FLOOR_TAKEN`, or queued when `queues`) or lifted (nil).
    case floorChanged(limit: Int?, queues: Bool = false)
    /// A participant asked to present while the floor was full and the room queues: it waits in `floorQueue`.
    case floorRequested(uid: String)
    /// A participant left the floor's queue without presenting.
    case floorRequestWithdrawn(uid: String)
    /// The waiting room was turned on (a join into the call by a user who may not bypass it waits for a moderator
    /// to admit it) or off.
    case admissionChanged(isRequired: Bool)
    /// A user arrived in the waiting room, with what its token says of it.
    case waitingEntered(
        uid: String, name: String, avatar: String?, role: ParticipantRole, attributes: [String: String] = [:])
    /// A moderator let a waiting user in: its join goes on into the call.
    case waitingAdmitted(uid: String)
    /// A moderator turned a waiting user away.
    case waitingDenied(uid: String)
    /// A waiting user left the waiting room without an answer.
    case waitingLeft(uid: String, reason: WaitingLeaveReason)
    /// A group meeting message (persisted in the history, replayable).
    case meetingMessage(MeetingMessage)
    /// The session was ended for everyone.
    case sessionEnded
}

/// A custom message of type `meeting`: tells the members of a group that a meeting is on.
public struct MeetingMessage: Hashable, Sendable {
    /// The call session the meeting runs in.
    public var sessionID: String
    /// `audio` or `video`.
    public var callType: String
    /// The sender's uid.
    public var sender: String
    /// Free text from the sender, bounded by the protocol limits.
    public var text: String?
    /// Whether this message announces a meeting (true) or its end (false).
    public var isActive: Bool

    public init(sessionID: String, callType: String, sender: String, text: String?, isActive: Bool) {
        self.sessionID = sessionID
        self.callType = callType
        self.sender = sender
        self.text = text
        self.isActive = isActive
    }
}

/// One entry of a room's log: the event, its sequence number, its time and who caused it.
public struct RoomLogEntry: Hashable, Sendable {
    /// The room's sequence number for this event, starting at 1, without gaps.
    public var sequence: UInt64
    /// When the event was appended, in milliseconds since the epoch.
    public var time: Int64
    /// The uid (or bot id) that caused the event; nil for the gateway itself (timeouts).
    public var actor: String?
    /// The reason a moderator gave, if any.
    public var reason: String?
    public var event: RoomEvent

    public init(sequence: UInt64, time: Int64, actor: String?, reason: String?, event: RoomEvent) {
        self.sequence = sequence
        self.time = time
        self.actor = actor
        self.reason = reason
        self.event = event
    }
}
