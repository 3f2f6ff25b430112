/// Which part of the roster a subscriber mirrors: the whole roster, or a filtered, sorted and windowed view of it.
///
/// Subscribers with equal specs share one computed and encoded patch per flush.
public struct RosterViewSpec: Hashable, Sendable, CustomStringConvertible {
    /// What a view keeps.
    public enum Filter: String, Hashable, Sendable, CaseIterable {
        case all
        case operators
        /// Muted, by themselves or by a moderator.
        case muted
        /// Muted by a moderator (the last mute came from one).
        case moderatorMuted = "moderator_muted"
        /// Restricted by a hard mute: they cannot unmute themselves (Sendbird's "muted").
        case restricted
        case banned
        case raisedHands = "raised_hands"
        case presenters
        case speakers
        /// Who joined the current call and left it (attendance).
        case left
        /// Everyone in the call whose name matches `query` (the same as `all` with a `query`).
        case search
        /// Who waits in the waiting room, in the order they arrived (`RoomActor.mayAdmit` only).
        case waiting

        /// The form of the view's entries.
        var entryForm: RosterRecord.FormKind {
            switch self {
            case .banned: return .banned
            case .waiting: return .waiting
            default: return .member
            }
        }
    }

    /// How `query` matches names (always case-insensitive).
    public enum Match: String, Hashable, Sendable {
        case prefix
        case substring
    }

    /// The order of a view, which its window (`offset`, `limit`) cuts.
    public enum Sort: String, Hashable, Sendable, CaseIterable {
        /// Join order (the default; `raised_hands` defaults to the hand queue).
        case join
        /// By name, case-insensitively (uid on ties).
        case name
        /// By when the hand went up, earliest first.
        case raisedHand = "raised_hand"
        /// Who spoke last first; those who never spoke after, in join order.
        case recentSpeaking = "recent_speaking"
    }

    public var filter: Filter
    /// The name to look for, lower-cased: with `search`, or narrowing any other filter.
    public var query: String?
    public var match: Match
    /// The order; nil for the filter's own (join order; the hand queue for `raised_hands`).
    public var sort: Sort?
    /// Skip the first N in the view's order (a page further down); nil skips none.
    public var offset: Int?
    /// Keep only N after the offset (the "visible tiles" window, or a page); nil keeps all.
    public var limit: Int?

    /// - Parameters:
    ///   - filter: what the view keeps.
    ///   - query: a name to look for, with any filter.
    ///   - match: prefix or substring, for `query`.
    ///   - sort: the order, or nil for the filter's own.
    ///   - offset: how many to skip in that order.
    ///   - limit: how many to keep after them, or nil.
    public init(
        filter: Filter = .all, query: String? = nil, match: Match = .prefix, sort: Sort? = nil, offset: Int? = nil,
        limit: Int? = nil
    ) {
        self.filter = filter
        self.query = query?.lowercased()
        self.match = match
        self.sort = sort
        self.offset = offset
        self.limit = limit
    }

    /// The whole roster.
    public static let all = RosterViewSpec()

    /// The order the view is in.
    var effectiveSort: Sort { self.sort ?? (self.filter == .raisedHands ? .raisedHand : .join) }

    public var description: String {
        var text = self.filter.rawValue
        if let query { text += ":\(self.match.rawValue):\(query)" }
        if let sort { text += "@\(sort.rawValue)" }
        if let offset { text += "+\(offset)" }
        if let limit { text += "/\(limit)" }
        return text
    }

    /// Whether a participant belongs in the view, before the order and the window: the filter (who left, for
    /// `left`; who is in the call and not hidden, for the others) and the `query`.
    func includes(_ participant: Participant, in state: RoomState, speaker: String?) -> Bool {
        guard participant.isJoined != (self.filter == .left), !participant.permissions.hidden else { return false }
        if let query, !query.isEmpty {
            let name = participant.name.lowercased()
            guard self.match == .prefix ? name.hasPrefix(query) : name.contains(query) else { return false }
        } else if self.filter == .search {
            return false
        }
        switch self.filter {
        case .all, .search, .left: return true
        case .operators: return state.isOperator(participant.uid)
        case .muted: return participant.audioMuted
        case .moderatorMuted: return participant.audioMuted && participant.mutedByModerator
        case .restricted: return !participant.permissions.mayUnmute
        case .banned, .waiting: return false
        case .raisedHands: return participant.handRaised
        case .presenters: return participant.presenting
        case .speakers: return participant.uid == speaker
        }
    }
}
