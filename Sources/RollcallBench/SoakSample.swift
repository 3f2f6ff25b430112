import JSONCoding

/// One sample of the server's resources.
public struct SoakSample: Sendable {
    /// Seconds since the start.
    public var elapsed: Double
    /// VmRSS of the server, in bytes.
    public var rssBytes: Int?
    /// Open descriptors of the server.
    public var fds: Int?
    /// Soak rooms with someone in the call, and participants in them, as the server answers a `rooms` query.
    public var rooms: Int?
    public var roster: Int?
    /// Soak connections open on the client side.
    public var clients: Int

    var json: JSONValue {
        func number(_ value: Int?) -> JSONValue { value.map { .int(Int64($0)) } ?? .null }
        return .object(
            JSONObject(uniqueKeysWithValues: [
                ("t", .double((self.elapsed * 10).rounded() / 10)), ("rssBytes", number(self.rssBytes)),
                ("fds", number(self.fds)), ("rooms", number(self.rooms)), ("roster", number(self.roster)),
                ("clients", .int(Int64(self.clients))),
            ]))
    }

    var line: String {
        func show(_ value: Int?) -> String { value.map(String.init) ?? "?" }
        let rss = self.rssBytes.map { String(format1: Double($0) / 1_048_576) + " MiB" } ?? "?"
        return "[\(Int(self.elapsed.rounded()))s] rss \(rss), fds \(show(self.fds)), rooms \(show(self.rooms)), "
            + "roster \(show(self.roster)), clients \(self.clients)"
    }
}
