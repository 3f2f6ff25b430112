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

    /// What the actor may do in a room as it is, for the join's answer: the same predicates the command rules use,
    /// so an app shows only the buttons that will work.
    func rights(in state: RoomState) -> RoomRights {
        let isOperator = self.isOperator(in: state)
        let participant = state.participants[self.uid]
        return RoomRights(
            role: self.role,
            isOperator: isOperator,
            actions: ModeratorAction.allCases.filter { action in
                self.isBot ? self.capabilities.contains(action.capability) : isOperator
            },
            mayRecord: isOperator || (self.isBot && self.capabilities.contains("record")),
            mayReportAnySpeaker: self.isServerAPIOrBot(with: "speaker"),
            maySetAnyAttributes: self.isServerAPIOrBot(with: "attributes"),
            maySetMetadata: isOperator || self.isServerAPIOrBot(with: "metadata"),
            maySetPermissions: isOperator || self.isServerAPIOrBot(with: "permissions"),
            permissions: participant?.permissions ?? ParticipantPermissions())
    }

    /// Whether the actor counts as an admin (only an admin may remove, ban or demote an admin).
    var isAdmin: Bool { self.isServerAPI || self.role == .admin }
}
