import JSONCoding

/// Which part of a room's roster a subscription mirrors (docs/PROTOCOL.md, "Roster views").
public struct RollcallView: Hashable, Sendable {
    /// `all`, `operators`, `muted`, `moderator_muted`, `restricted`, `banned`, `raised_hands`, `presenters`,
    /// `speakers`, `left` or `search` (`RollcallViewFilter`).
    public var filter: String
    /// A name to look for: with the `search` filter, or narrowing any other.
    public var query: String?
    /// `prefix` (default) or `substring`, for `query`.
    public var match: String?
    /// The order: `join` (default; `raised_hand` for `raised_hands`), `name`, `raised_hand` or `recent_speaking`.
    public var sort: String?
    /// Skips the first N in that order (a page further down).
    public var offset: Int?
    /// Keeps N after the offset (a "visible tiles" window, or a page).
    public var limit: Int?

    /// Creates a view.
    ///
    /// - Parameters:
    ///   - filter: the filter name; default `all`.
    ///   - query: the search text, for `search`.
    ///   - match: `prefix` or `substring`, for `search`.
    ///   - sort: the order, or nil for the filter's own.
    ///   - offset: how many to skip in that order.
    ///   - limit: the most participants kept.
    public init(
        filter: String = "all", query: String? = nil, match: String? = nil, sort: String? = nil, offset: Int? = nil,
        limit: Int? = nil
    ) {
        self.filter = filter
        self.query = query
        self.match = match
        self.sort = sort
        self.offset = offset
        self.limit = limit
    }

    /// Creates a view with a filter the client knows.
    ///
    /// - Parameters:
    ///   - filter: the filter.
    ///   - query: the search text, for `search` (or narrowing any other filter).
    ///   - limit: the most participants kept.
    public init(_ filter: RollcallViewFilter, query: String? = nil, limit: Int? = nil) {
        self.init(filter: filter.rawValue, query: query, limit: limit)
    }

    /// The filter as the client knows it; nil for a filter name it does not know.
    public var knownFilter: RollcallViewFilter? { RollcallViewFilter(rawValue: self.filter) }

    /// The whole roster.
    public static let all = RollcallView()
    /// Admins, moderators and promoted participants.
    public static let operators = RollcallView(filter: RollcallViewFilter.operators.rawValue)
    /// Participants with audio muted.
    public static let muted = RollcallView(filter: RollcallViewFilter.muted.rawValue)
    /// Participants with a hand raised.
    public static let raisedHands = RollcallView(filter: RollcallViewFilter.raisedHands.rawValue)
    /// Participants sharing their screen.
    public static let presenters = RollcallView(filter: RollcallViewFilter.presenters.rawValue)

    /// The first `limit` participants in join order ("visible tiles").
    ///
    /// - Parameters:
    ///   - limit: how many.
    public static func first(_ limit: Int) -> RollcallView { RollcallView(limit: limit) }

    /// Participants whose name matches.
    ///
    /// - Parameters:
    ///   - text: the text to match, case-insensitively.
    ///   - substring: match anywhere in the name rather than at its start.
    public static func search(_ text: String, substring: Bool = false) -> RollcallView {
        RollcallView(filter: RollcallViewFilter.search.rawValue, query: text, match: substring ? "substring" : "prefix")
    }

    /// The `view` object of a join or view message.
    var json: JSONValue {
        var object = JSONObject()
        object["filter"] = .string(self.filter)
        if let query = self.query { object["query"] = .string(query) }
        if let match = self.match { object["match"] = .string(match) }
        if let sort = self.sort { object["sort"] = .string(sort) }
        if let offset = self.offset { object["offset"] = .int(Int64(offset)) }
        if let limit = self.limit { object["limit"] = .int(Int64(limit)) }
        return .object(object)
    }
}
