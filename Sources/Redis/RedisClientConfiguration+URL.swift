import HTTPCore

#if canImport(Glibc)
internal import Glibc
#endif

extension RedisClientConfiguration {
    /// Reads `redis://[[user]:password@]host[:port][/database]`, keeping the defaults for everything else.
    ///
    /// The host is an IPv4 literal, an IPv6 literal in brackets (`[::1]`) or `localhost`. The user and password
    /// may hold percent-escapes (`%40` for `@`). `rediss://` (TLS), queries and fragments are not supported.
    ///
    /// - Parameter url: the URL.
    /// - Throws: `RedisError.invalidURL` naming what is wrong.
    public init(url: String) throws(RedisError) {
        self.init()
        let scheme = "redis://"
        guard url.lowercased().hasPrefix(scheme) else {
            if url.lowercased().hasPrefix("rediss://") {
                throw .invalidURL("rediss:// (TLS) is not supported, use redis://")
            }
            throw .invalidURL("\(url.debugDescription) does not start with redis://")
        }
        var rest = Substring(url.dropFirst(scheme.count))
        if rest.contains("?") || rest.contains("#") {
            throw .invalidURL("queries and fragments are not supported in \(url.debugDescription)")
        }
        var path = Substring("")
        if let slash = rest.firstIndex(of: "/") {
            path = rest[rest.index(after: slash)...]
            rest = rest[..<slash]
        }
        if let at = rest.lastIndex(of: "@") {
            let credentials = rest[..<at]
            rest = rest[rest.index(after: at)...]
            guard let colon = credentials.firstIndex(of: ":") else {
                throw .invalidURL("credentials must be written user:password@ or :password@")
            }
            let user = try Self.percentDecoded(credentials[..<colon], what: "user")
            self.username = user.isEmpty ? nil : user
            self.password = try Self.percentDecoded(credentials[credentials.index(after: colon)...], what: "password")
        }
        var portText: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else {
                throw .invalidURL("the IPv6 address in \(url.debugDescription) has no closing ]")
            }
            self.host = String(rest[rest.index(after: rest.startIndex)..<close])
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else {
                    throw .invalidURL("unexpected \(String(after).debugDescription) after ]")
                }
                portText = after.dropFirst()
            }
            guard Self.isIPv6Literal(self.host) else { throw .invalidURL("\(self.host) is not an IPv6 address") }
        } else {
            if let colon = rest.firstIndex(of: ":") {
                portText = rest[rest.index(after: colon)...]
                rest = rest[..<colon]
            }
            self.host = String(rest)
            guard !self.host.isEmpty else { throw .invalidURL("\(url.debugDescription) has no host") }
            guard self.host.lowercased() == "localhost" || Self.isIPv4Literal(self.host) else {
                throw .invalidURL("host \(self.host.debugDescription) is not an IP address or localhost")
            }
        }
        if let portText {
            guard let port = Int(portText), Self.isDigits(portText), (1...65_535).contains(port) else {
                throw .invalidURL("port \(String(portText).debugDescription) is not a number from 1 to 65535")
            }
            self.port = port
        }
        if !path.isEmpty {
            guard let database = Int(path), Self.isDigits(path) else {
                throw .invalidURL("database \(String(path).debugDescription) is not a non-negative number")
            }
            self.database = database
        }
    }

    static func isIPv4Literal(_ text: String) -> Bool {
        var address = in_addr()
        return inet_pton(AF_INET, text, &address) == 1
    }

    static func isIPv6Literal(_ text: String) -> Bool {
        var address = in6_addr()
        return inet_pton(AF_INET6, text, &address) == 1
    }

    private static func isDigits(_ text: Substring) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    /// User information is percent-encoded with `+` as itself (RFC 3986).
    private static func percentDecoded(_ text: Substring, what: String) throws(RedisError) -> String {
        guard let decoded = PercentEncoding.decode(text, plus: .literal) else {
            throw .invalidURL("the \(what) holds a % not followed by two hex digits, or is not UTF-8")
        }
        return decoded
    }
}
