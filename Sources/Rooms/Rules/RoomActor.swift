import TokenAuth

/// Who asks for a change to a room, as the room's rules see them: a user with the role and capabilities their token
/// gives in this room, or a backend through the server API (with an admin's rights).
struct RoomActor {
    /// The uid, or `api:NAME` for the server API; recorded as the events' actor.
    var uid: String
    /// The role the token gives in the room; nil for the server API.
    var role: ParticipantRole?
    /// The token's capabilities (bots).
    var capabilities: [String]
    /// Whether the request comes through the server API.
    var isServerAPI: Bool
    /// The attributes the token vouches for: the participant cannot change these keys.
    var tokenAttributes: [String: String]

    /// A user, with the role their token gives in `roomID`.
    init(claims: TokenClaims, role: ParticipantRole?) {
        self.uid = claims.subject
        self.role = role
        self.capabilities = claims.capabilities
        self.isServerAPI = false
        self.tokenAttributes = claims.attributes
    }

    /// A backend acting through the server API as `uid` (`api:NAME`).
    init(serverAPI uid: String) {
        self.uid = uid
        self.role = nil
        self.capabilities = []
        self.isServerAPI = true
        self.tokenAttributes = [:]
    }

    /// Whether the actor is a bot: bots act through their capabilities only.
    var isBot: Bool { self.role == .bot }

    /// Whether the actor is the server API or a bot with `capability`.
    func isServerAPIOrBot(with capability: String) -> Bool {
        self.isServerAPI || (self.isBot && self.capabilities.contains(capability))
    }

    /// Whether the actor may take the room's moderator actions: a moderator or admin by token, a participant
    /// promoted in the room, or the server API.
    func isOperator(in state: RoomState) -> Bool {
        self.isServerAPI || self.role?.isOperator == true || state.operators.contains(self.uid)
    }

    /// Whether the actor may take a moderator action: bots by the action's capability only; anyone else as an
    /// operator of the room.
    func mayTake(_ action: ModeratorAction, in state: RoomState) -> Bool {
        self.isBot ? self.capabilities.contains(action.capability) : self.isOperator(in: state)
    }

    /// Whether the actor may start or stop the recording: an operator, or a bot with `record`.
    func mayRecord(in state: RoomState) -> Bool {
        self.isOperator(in: state) || (self.isBot && self.capabilities.contains("record"))
    }

    /// Whether the actor may set the room's metadata: an operator, a bot with `metadata`, the server API.
    func maySetMetadata(in state: RoomState) -> Bool {
        self.isOperator(in: state) || self.isServerAPIOrBot(with: "metadata")
    }

    /// Whether the actor joins the call while the room is locked: whoever may lock it (a moderator or admin by
    /// token, a participant promoted in the room, a bot with the `lock` capability).
    func bypassesLock(in state: RoomState) -> Bool {
        self.mayTake(.lock, in: state)
    }

    /// Whether the actor may see and answer the waiting room (the `waiting` view and query, `admit` and `deny`):
    /// an operator, a bot with `admit`, the server API.
    func mayAdmit(in state: RoomState) -> Bool {
        self.isServerAPI || self.mayTake(.admit, in: state)
    }

    /// What happens to the actor's join into the call: it enters, waits in the waiting room, or is refused because
    /// the room is locked.
    ///
    /// Who is in the call (another device) enters. A locked room sends those who may not lock it to the waiting
    /// room when the room has one on (or their token says `wait`), else refuses them; a user a moderator admitted
    /// in this call enters both. The waiting room holds everyone else but bots, those who may admit, and tokens
    /// that say `bypass` for the room.
    ///
    /// - Parameters:
    ///   - state: the room as it is.
    ///   - claim: what the actor's token says of this room's waiting room (`admission`), if anything.
    func admission(in state: RoomState, claim: TokenAdmission?) -> JoinAdmission {
        if state.participants[self.uid]?.isJoined == true || state.admitted.contains(self.uid) { return .enters }
        let waitingRoomIsOn = state.requiresAdmission || claim == .wait
        if state.isLocked && !self.bypassesLock(in: state) { return waitingRoomIsOn ? .waits : .refusedLocked }
        let bypasses = self.isBot || self.mayAdmit(in: state) || claim == .bypass
        return waitingRoomIsOn && !bypasses ? .waits : .enters
    }

    /// Whether the actor may read the room's attendance (the `attendance` query): an operator, a bot with
    /// `attendance`, the server API.
    func mayReadAttendance(in state: RoomState) -> Bool {
        self.isOperator(in: state) || self.isServerAPIOrBot(with: "attendance")
    }

    /// Whether the actor may set participants' permissions: an operator, a bot with `permissions`, the server API.
    func maySetPermissions(in state: RoomState) -> Bool {
        self.isOperator(in: state) || self.isServerAPIOrBot(with: "permissions")
    }

    /// What the actor may do in a room as it is, joined as `kind`, for the join's answer: the predicates the
    /// command rules use, and the presence each command needs (`RoomCommand.presence`), so an app shows only the
    /// buttons that will work. An operator watching as an observer moderates (actions, recording, metadata,
    /// permissions) but has no participant state of its own to change.
    func rights(in state: RoomState, joinedAs kind: ClientMessage.SubscriptionKind) -> RoomRights {
        let own = state.participants[self.uid]?.permissions ?? ParticipantPermissions()
        func admits(_ command: RoomCommand) -> Bool { command.presence.admits(kind) }
        let ownState = admits(.updateState(flags: [:], mid: nil, cameraFacing: nil))
        return RoomRights(
            role: self.role,
            isOperator: self.isOperator(in: state),
            actions: ModeratorAction.allCases.filter { action in
                admits(.moderate(action, target: nil, reason: nil)) && self.mayTake(action, in: state)
            },
            mayRecord: admits(.media(recording: true, audioMode: nil, uid: nil)) && self.mayRecord(in: state),
            mayReportAnySpeaker: admits(.reportSpeaker(uid: nil)) && self.isServerAPIOrBot(with: "speaker"),
            maySetAnyAttributes: admits(.setAttributes(changes: [:], uid: nil))
                && self.isServerAPIOrBot(with: "attributes"),
            maySetMetadata: admits(.setMetadata(changes: [:])) && self.maySetMetadata(in: state),
            maySetPermissions: admits(.setPermissions(uid: self.uid, change: PermissionChange()))
                && self.maySetPermissions(in: state),
            mayUnmute: ownState && own.mayUnmute,
            mayShare: ownState && own.mayShare,
            mayPublishMeetings: own.mayPublishMeetings,
            bypassesLock: self.bypassesLock(in: state),
            mayReadAttendance: self.mayReadAttendance(in: state))
    }

    /// Whether the actor counts as an admin (only an admin may remove, ban or demote an admin).
    var isAdmin: Bool { self.isServerAPI || self.role == .admin }
}

/// What becomes of a join into the call (`RoomActor.admission`).
enum JoinAdmission: Hashable {
    /// The join goes on into the call.
    case enters
    /// The user waits in the waiting room until a moderator admits or denies it.
    case waits
    /// The room is locked and has no waiting room: `ERR_ROOM_LOCKED`.
    case refusedLocked
}
