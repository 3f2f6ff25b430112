/// The role a token grants its holder in one room.
///
/// Only the five roles below exist; `init(rawValue:)` returns nil for any other string, and verification refuses a
/// token that names one. Raw values are compared exactly, so `Admin` is not `admin`.
public struct TokenRole: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The role's name in the `rooms` claim.
    public let rawValue: String

    /// Looks up a role by its name in the `rooms` claim.
    ///
    /// - Parameters:
    ///   - rawValue: One of `admin`, `moderator`, `participant`, `viewer` or `bot`.
    /// - Returns: The role, or nil if `rawValue` names none.
    public init?(rawValue: String) {
        guard Self.allRoles.contains(where: { $0.rawValue == rawValue }) else {
            return nil
        }
        self.rawValue = rawValue
    }

    private init(known rawValue: String) {
        self.rawValue = rawValue
    }

    /// Runs the room: everything a moderator can, and ending the meeting.
    public static let admin = TokenRole(known: "admin")
    /// Keeps order: mutes, removes, admits and promotes participants.
    public static let moderator = TokenRole(known: "moderator")
    /// Takes part: speaks, publishes and chats.
    public static let participant = TokenRole(known: "participant")
    /// Watches and listens without publishing.
    public static let viewer = TokenRole(known: "viewer")
    /// An automated client, limited to the capabilities of its token's `caps` claim.
    public static let bot = TokenRole(known: "bot")

    /// Every role, from the most to the least privileged person, then the bot.
    public static let allRoles: [TokenRole] = [.admin, .moderator, .participant, .viewer, .bot]

    /// The role's name.
    public var description: String {
        self.rawValue
    }
}
