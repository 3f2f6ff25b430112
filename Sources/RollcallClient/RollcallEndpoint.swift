/// Where a client connects: `ws://HOST:PORT/PATH` or `wss://HOST:PORT/PATH`, optionally with a query string.
public struct RollcallEndpoint: Hashable, Sendable, CustomStringConvertible {
    /// Whether the connection uses TLS (`wss`).
    public var isSecure: Bool
    /// The host: a numeric IPv4 or IPv6 address, or a name resolved when connecting.
    public var host: String
    /// The TCP port.
    public var port: Int
    /// The request path, such as `/v1/ws`.
    public var path: String
    /// The query string without `?`, or nil.
    public var query: String?

    /// Creates an endpoint from its parts.
    ///
    /// - Parameters:
    ///   - host: a numeric address or a host name.
    ///   - port: the TCP port.
    ///   - path: the request path; default `/v1/ws`.
    ///   - isSecure: whether to use TLS.
    ///   - query: a query string without `?`.
    public init(host: String, port: Int, path: String = "/v1/ws", isSecure: Bool = false, query: String? = nil) {
        self.host = host
        self.port = port
        self.path = path.hasPrefix("/") ? path : "/" + path
        self.isSecure = isSecure
        self.query = query
    }

    /// Parses a `ws://` or `wss://` URL.
    ///
    /// - Parameters:
    ///   - url: the URL, for example `wss://rollcall.example.com/v1/ws` or `ws://127.0.0.1:8080/v1/ws`; the port
    ///     defaults to 80 or 443.
    /// - Throws: `RollcallError` when the scheme is not ws or wss, or the host or port is missing or invalid.
    public init(url: String) throws(RollcallError) {
        let secure: Bool
        var rest: Substring
        if url.lowercased().hasPrefix("wss://") {
            secure = true
            rest = url.dropFirst(6)
        } else if url.lowercased().hasPrefix("ws://") {
            secure = false
            rest = url.dropFirst(5)
        } else {
            throw RollcallError(.invalidEndpoint("the scheme must be ws or wss: \(url)"))
        }
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        var query: String?
        if let mark = rest.firstIndex(of: "?") {
            query = String(rest[rest.index(after: mark)...])
            rest = rest[..<mark]
        }
        let authority: Substring
        let path: String
        if let slash = rest.firstIndex(of: "/") {
            authority = rest[..<slash]
            path = String(rest[slash...])
        } else {
            authority = rest
            path = "/"
        }
        var host: Substring
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else {
                throw RollcallError(.invalidEndpoint("unterminated IPv6 address in \(url)"))
            }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if after.hasPrefix(":") {
                portText = after.dropFirst()
            } else if !after.isEmpty {
                throw RollcallError(.invalidEndpoint("unexpected text after the address in \(url)"))
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        } else {
            host = authority
        }
        guard !host.isEmpty, !host.contains("@") else {
            throw RollcallError(.invalidEndpoint("no host in \(url)"))
        }
        let port: Int
        if let portText {
            guard let value = Int(portText), (1...65535).contains(value) else {
                throw RollcallError(.invalidEndpoint("invalid port in \(url)"))
            }
            port = value
        } else {
            port = secure ? 443 : 80
        }
        self.init(host: String(host), port: port, path: path, isSecure: secure, query: query)
    }

    /// The request target: the path and the query string.
    public var requestTarget: String {
        self.query.map { "\(self.path)?\($0)" } ?? self.path
    }

    /// The `Host` header value.
    var hostHeader: String {
        let name = self.host.contains(":") ? "[\(self.host)]" : self.host
        let defaultPort = self.isSecure ? 443 : 80
        return self.port == defaultPort ? name : "\(name):\(self.port)"
    }

    /// A readable summary.
    public var description: String {
        "\(self.isSecure ? "wss" : "ws")://\(self.hostHeader)\(self.requestTarget)"
    }
}
