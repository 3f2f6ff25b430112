/// An `http://` or `https://` URL as the client uses it: the origin (scheme, host and port) and the request target.
/// The webhooks' endpoints and `rollcall ctl`'s `--url` are read with it.
public struct HTTPURL: Hashable, Sendable, CustomStringConvertible {
    /// Where requests go: the scheme, the host (a name, an IPv4 address, or IPv6 without brackets) and the port (as
    /// written, else 80 or 443).
    public var origin: HTTPOrigin
    /// The request target: the path with its query, `/` at least.
    public var path: String

    /// Reads a URL.
    ///
    /// - Parameter text: `http://host[:port][/path]` or `https://...`; the host a name, an IPv4 address or
    ///   `[IPv6]`.
    /// - Throws: `HTTPURLError` naming what is wrong: another scheme, no host, user info, a bad port, or a path with
    ///   spaces or control characters.
    public init(_ text: String) throws(HTTPURLError) {
        let secure: Bool
        var rest: Substring
        if text.hasPrefix("http://") {
            secure = false
            rest = text.dropFirst("http://".count)
        } else if text.hasPrefix("https://") {
            secure = true
            rest = text.dropFirst("https://".count)
        } else {
            throw HTTPURLError("'\(text)' is not an http:// or https:// URL")
        }
        var path = "/"
        if let slash = rest.firstIndex(of: "/") {
            path = String(rest[slash...])
            rest = rest[..<slash]
        }
        var host = rest
        var port: UInt16 = secure ? 443 : 80
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { throw HTTPURLError("'\(text)': unclosed [") }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if after.hasPrefix(":") {
                guard let number = UInt16(after.dropFirst()) else { throw HTTPURLError("'\(text)': bad port") }
                port = number
            } else if !after.isEmpty {
                throw HTTPURLError("'\(text)': bad port")
            }
        } else if let colon = rest.lastIndex(of: ":") {
            guard let number = UInt16(rest[rest.index(after: colon)...]) else {
                throw HTTPURLError("'\(text)': bad port")
            }
            host = rest[..<colon]
            port = number
        }
        guard !host.isEmpty, !host.contains(where: { $0 == "@" || $0 == " " }) else {
            throw HTTPURLError("'\(text)': no host, or user info (not supported)")
        }
        guard path.utf8.allSatisfy({ $0 > 0x20 && $0 != 0x7F }) else {
            throw HTTPURLError("'\(text)': the path holds spaces or control characters")
        }
        self.origin = HTTPOrigin(isSecure: secure, host: String(host), port: port)
        self.path = path
    }

    public var description: String { self.origin.description + self.path }
}
