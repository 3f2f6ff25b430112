import JSONCoding

/// What every roster view counts, whatever its filter (the room entry's `counts`, docs/PROTOCOL.md "The room
/// entry"): over the participants in the call that the lists show (observers and hidden participants are not
/// counted). The entry leaves a count at zero out; here it reads 0.
///
/// ```swift
/// let counts = room.counts
/// Text("\(counts.handsRaised) hands raised, \(counts.muted) muted")
/// ```
public struct RollcallViewCounts: Hashable, Sendable {
    /// Participants in the call (the room entry's `participantCount`).
    public var inCall: Int
    /// With a hand raised.
    public var handsRaised: Int
    /// With audio muted, by themselves or by a moderator.
    public var muted: Int
    /// With the camera on (`videoPaused` false).
    public var video: Int
    /// Sharing their screen.
    public var presenting: Int
    /// By role (`admin`, `moderator`, `participant`, `viewer`, `bot`, or one a newer gateway adds); a role nobody
    /// in the call has is absent (`count(role:)` reads it as 0).
    public var roles: [String: Int]

    /// The member names of the entry's counts, in its order (`Tests/Vectors/protocol.json`, `viewCounts`).
    public static let names = ["inCall", "muted", "video", "presenting", "handsRaised"]

    /// Counts given one by one; what is left out is 0.
    public init(
        inCall: Int = 0, handsRaised: Int = 0, muted: Int = 0, video: Int = 0, presenting: Int = 0,
        roles: [String: Int] = [:]
    ) {
        self.inCall = inCall
        self.handsRaised = handsRaised
        self.muted = muted
        self.video = video
        self.presenting = presenting
        self.roles = roles
    }

    /// Reads a room entry's `counts` object (nil, before a snapshot or from a gateway without counts, reads as all
    /// zeros).
    ///
    /// - Parameters:
    ///   - counts: the room entry's `counts`.
    public init(_ counts: JSONObject?) {
        func count(_ value: JSONValue?) -> Int { value?.intValue.map { Int($0) } ?? 0 }
        self.init(
            inCall: count(counts?["inCall"]), handsRaised: count(counts?["handsRaised"]),
            muted: count(counts?["muted"]),
            video: count(counts?["video"]), presenting: count(counts?["presenting"]))
        for (role, value) in counts?["roles"]?.objectValue?.entries ?? [] where count(value) > 0 {
            self.roles[role] = count(value)
        }
    }

    /// How many in the call have `role` (`admin`, `moderator`, `participant`, `viewer`, `bot`).
    ///
    /// - Parameters:
    ///   - role: the role's name.
    public func count(role: String) -> Int { self.roles[role] ?? 0 }
}
