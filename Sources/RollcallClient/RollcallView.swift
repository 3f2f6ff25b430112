import JSONCoding

/// Which part of a room's roster a subscription mirrors (docs/PROTOCOL.md, "Roster views").
public struct RollcallView: Hashable, Sendable {
    /// `all`, `operators`, `muted`, `banned`, `raised_hands`, `presenters`, `speakers` or `search`.
    public var filter: String
    /// The name to search for, with the `search` filter.
    public var query: String?
    /// `prefix` (default) or `substring`, with the `search` filter.
    public var match: String?
    /// Keeps the first N matching participants in join order.
    public var limit: Int?

    /// Creates a view.
    ///
    /// - Parameters:
    ///   - filter: the filter name; default `all`.
    ///   - query: the search text, for `search`.
    ///   - match: `prefix` or `substring`, for `search`.
    ///   - limit: the most participants kept.
    public init(filter: String = "all", query: String? = nil, match: String? = nil, limit: Int? = nil) {
        self.filter = filter
        self.query = query
        self.match = match
        self.limit = limit
    }

    /// The whole roster.
    public static let all = RollcallView()
    /// Admins, moderators and promoted participants.
    public static let operators = RollcallView(filter: "operators")
    /// Participants with audio muted.
    public static let muted = RollcallView(filter: "muted")
    /// Participants with a hand raised.
    public static let raisedHands = RollcallView(filter: "raised_hands")
    /// Participants sharing their screen.
    public static let presenters = RollcallView(filter: "presenters")

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
        RollcallView(filter: "search", query: text, match: substring ? "substring" : "prefix")
    }

    /// The `view` object of a join or view message.
    var json: JSONValue {
        var object = JSONObject()
        object["filter"] = .string(self.filter)
        if let query = self.query { object["query"] = .string(query) }
        if let match = self.match { object["match"] = .string(match) }
        if let limit = self.limit { object["limit"] = .int(Int64(limit)) }
        return .object(object)
    }
}
