import HTTPCore
import Rooms

/// The query parameters of a server API request (`?after=10&types=meeting.message&limit=50`), decoded.
struct APIQuery: Sendable {
    private var values: [String: String] = [:]
    /// The default and largest page size.
    static let defaultLimit = 100
    static let maximumLimit = 1000

    /// - Parameter query: the request target's query, if any.
    init(_ query: String?) {
        for pair in (query ?? "").split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard let name = parts.first.flatMap({ PercentEncoding.decode($0, plus: .space) }) else { continue }
            let value = parts.count == 2 ? PercentEncoding.decode(parts[1], plus: .space) ?? "" : ""
            self.values[name] = value
        }
    }

    func string(_ name: String) -> String? {
        self.values[name].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// A non-negative integer parameter, nil when absent; present but empty (`limit=`) is no number either.
    func integer(_ name: String) throws(GatewayError) -> Int64? {
        guard let text = self.values[name] else { return nil }
        guard let value = Int64(text), value >= 0 else {
            throw GatewayError(.badRequest, "'\(name)' must be a non-negative integer")
        }
        return value
    }

    /// The page size: `limit`, 1 to 1,000, default 100.
    func limit() throws(GatewayError) -> Int {
        guard let value = try self.integer("limit") else { return Self.defaultLimit }
        guard value >= 1, value <= Self.maximumLimit else {
            throw GatewayError(.badRequest, "'limit' must be between 1 and \(Self.maximumLimit)")
        }
        return Int(value)
    }
}
