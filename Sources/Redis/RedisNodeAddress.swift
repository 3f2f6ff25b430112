/// Where one Redis server listens: a host (an IPv4 or IPv6 literal, or `localhost`) and a TCP port.
public struct RedisNodeAddress: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The host, as an IP literal or `localhost`; IPv6 without brackets.
    public var host: String
    /// The TCP port.
    public var port: Int

    /// - Parameters:
    ///   - host: an IPv4 or IPv6 literal, or `localhost`.
    ///   - port: the TCP port.
    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Reads `host:port` as Redis writes it in `MOVED` and `ASK` (an IPv6 host without brackets, the port after the
    /// last colon); nil when there is no port.
    ///
    /// - Parameter text: the address.
    public init?(_ text: some StringProtocol) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
            (1...65_535).contains(port)
        else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { return nil }
        self.init(host: host, port: port)
    }

    /// `host:port`, with an IPv6 host in brackets.
    public var description: String {
        self.host.contains(":") ? "[\(self.host)]:\(self.port)" : "\(self.host):\(self.port)"
    }

    public static func < (lhs: RedisNodeAddress, rhs: RedisNodeAddress) -> Bool {
        (lhs.host, lhs.port) < (rhs.host, rhs.port)
    }
}
