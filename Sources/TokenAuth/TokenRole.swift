/// The role a token grants its holder in one room; what each role may do is decided by the rooms, not here.
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

    /// The room's owner.
    public static let admin = TokenRole(known: "admin")
    /// Keeps order in the room on the owner's behalf.
    public static let moderator = TokenRole(known: "moderator")
    /// Takes part in the meeting.
    public static let participant = TokenRole(known: "participant")
    /// Follows the meeting without taking part.
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
