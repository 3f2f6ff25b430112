/// What a verified token says about its holder: who they are, which rooms they may join in which role, which groups
/// they belong to, what a bot may do, and when the token is valid.
///
/// Times are NumericDate values of RFC 7519: whole seconds since 1970-01-01T00:00:00Z, UTC.
public struct TokenClaims: Sendable, Hashable {
    /// The user's ID (`sub`); never empty.
    public var subject: String
    /// The display name (`name`).
    public var name: String?
    /// The address of the user's picture (`avatar`), an `https` or `http` URL.
    public var avatar: String?
    /// The role in each room the holder may join, by room ID (`rooms`).
    public var rooms: [String: TokenRole]
    /// The IDs of the groups the user is a member of (`groups`), in token order.
    public var groups: [String]
    /// What a bot token allows (`caps`), for example `mute`, `remove`, `ban`, `promote`, `pin`, `end` or `publish`,
    /// in token order. Capabilities are free-form: the caller decides which ones it knows.
    public var capabilities: [String]
    /// Participant attributes the backend vouches for (`attrs`, an object of strings): the participant's roster entry
    /// carries them, and the participant cannot change them.
    public var attributes: [String: String]
    /// What the holder does at each room's waiting room (`admission`, an object of room IDs to `wait` or
    /// `bypass`): wait even when it is off, or join without waiting when it is on.
    public var admission: [String: TokenAdmission]
    /// The time from which the token is no longer valid (`exp`).
    public var expiresAt: Int64
    /// The time before which the token is not yet valid (`nbf`).
    public var notBefore: Int64?
    /// The time the token was issued (`iat`).
    public var issuedAt: Int64?
    /// Who issued the token (`iss`).
    public var issuer: String?
    /// For whom the token is meant (`aud`); a single string in the token is a one-element array here, and an absent
    /// claim is an empty array.
    public var audience: [String]
    /// The ID of the key the token was signed with (the header's `kid`), set by verification; signing uses the
    /// signer's key ID and ignores this one.
    public var keyID: String?

    /// Creates claims.
    ///
    /// - Parameters:
    ///   - subject: The user's ID; must not be empty.
    ///   - expiresAt: The time from which the token is no longer valid.
    ///   - name: The display name.
    ///   - avatar: The address of the user's picture, an `https` or `http` URL.
    ///   - rooms: The role in each room the holder may join, by room ID.
    ///   - groups: The IDs of the groups the user is a member of.
    ///   - capabilities: What a bot token allows.
    ///   - attributes: Participant attributes the backend vouches for.
    ///   - admission: What the holder does at each room's waiting room.
    ///   - notBefore: The time before which the token is not yet valid.
    ///   - issuedAt: The time the token was issued.
    ///   - issuer: Who issued the token.
    ///   - audience: For whom the token is meant.
    ///   - keyID: The ID of the key the token was signed with.
    public init(
        subject: String,
        expiresAt: Int64,
        name: String? = nil,
        avatar: String? = nil,
        rooms: [String: TokenRole] = [:],
        groups: [String] = [],
        capabilities: [String] = [],
        attributes: [String: String] = [:],
        admission: [String: TokenAdmission] = [:],
        notBefore: Int64? = nil,
        issuedAt: Int64? = nil,
        issuer: String? = nil,
        audience: [String] = [],
        keyID: String? = nil
    ) {
        self.subject = subject
        self.expiresAt = expiresAt
        self.name = name
        self.avatar = avatar
        self.rooms = rooms
        self.groups = groups
        self.capabilities = capabilities
        self.attributes = attributes
        self.admission = admission
        self.notBefore = notBefore
        self.issuedAt = issuedAt
        self.issuer = issuer
        self.audience = audience
        self.keyID = keyID
    }
}
