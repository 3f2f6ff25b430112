/// Which part of the roster a subscriber mirrors: the whole roster, or a filtered and windowed view of it.
///
/// Subscribers with equal specs share one computed and encoded patch per flush.
public struct RosterViewSpec: Hashable, Sendable, CustomStringConvertible {
    /// What a view keeps.
    public enum Filter: String, Hashable, Sendable, CaseIterable {
        case all
        case operators
        case muted
        case banned
        case raisedHands = "raised_hands"
        case presenters
        case speakers
        case search
    }

    /// How `search` matches names (always case-insensitive).
    public enum Match: String, Hashable, Sendable {
        case prefix
        case substring
    }

    public var filter: Filter
    /// The name to look for (`search` only), lower-cased.
    public var query: String?
    public var match: Match
    /// Keep only the first N matching participants in join order (the "visible tiles" window); nil keeps all.
    public var limit: Int?

    /// - Parameters:
    ///   - filter: what the view keeps.
    ///   - query: the name to look for, for `search`.
    ///   - match: prefix or substring, for `search`.
    ///   - limit: the first N in join order, or nil.
    public init(filter: Filter = .all, query: String? = nil, match: Match = .prefix, limit: Int? = nil) {
        self.filter = filter
        self.query = query?.lowercased()
        self.match = match
        self.limit = limit
    }

    /// The whole roster.
    public static let all = RosterViewSpec()

    public var description: String {
        var text = self.filter.rawValue
        if let query { text += ":\(self.match.rawValue):\(query)" }
        if let limit { text += "/\(limit)" }
        return text
    }

    /// Whether a participant (who is in the call) belongs in the view, before the window is applied.
    func includes(_ participant: Participant, in state: RoomState, speaker: String?) -> Bool {
        switch self.filter {
        case .all: return true
        case .operators: return state.isOperator(participant.uid)
        case .muted: return participant.audioMuted
        case .banned: return false
        case .raisedHands: return participant.handRaised
        case .presenters: return participant.presenting
        case .speakers: return participant.uid == speaker
        case .search:
            guard let query, !query.isEmpty else { return false }
            let name = participant.name.lowercased()
            return self.match == .prefix ? name.hasPrefix(query) : name.contains(query)
        }
    }
}
