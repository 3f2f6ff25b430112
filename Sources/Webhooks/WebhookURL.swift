import HTTPClient

/// An endpoint's address: `http://` or `https://`, a host (name, IPv4 address or `[IPv6]`), an optional port and
/// a path.
public struct WebhookURL: Hashable, Sendable, CustomStringConvertible {
    /// Whether deliveries go over TLS (`https://`).
    public var isSecure: Bool
    /// The host as written (without brackets for IPv6).
    public var host: String
    /// The TCP port: as written, else 80 or 443.
    public var port: UInt16
    /// The request target, `/` at least.
    public var path: String

    /// Reads a URL.
    ///
    /// - Parameter text: `http://host[:port][/path]` or `https://...`.
    /// - Throws: `WebhookConfigurationError` naming what is wrong.
    public init(_ text: String) throws(WebhookConfigurationError) {
        let secure: Bool
        var rest: Substring
        if text.hasPrefix("http://") {
            secure = false
            rest = text.dropFirst("http://".count)
        } else if text.hasPrefix("https://") {
            secure = true
            rest = text.dropFirst("https://".count)
        } else {
            throw WebhookConfigurationError("'\(text)' is not an http:// or https:// URL")
        }
        var path = "/"
        if let slash = rest.firstIndex(of: "/") {
            path = String(rest[slash...])
            rest = rest[..<slash]
        }
        var host = rest
        var port: UInt16 = secure ? 443 : 80
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { throw WebhookConfigurationError("'\(text)': unclosed [") }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if after.hasPrefix(":") {
                guard let number = UInt16(after.dropFirst()) else {
                    throw WebhookConfigurationError("'\(text)': bad port")
                }
                port = number
            }
        } else if let colon = rest.lastIndex(of: ":") {
            guard let number = UInt16(rest[rest.index(after: colon)...]) else {
                throw WebhookConfigurationError("'\(text)': bad port")
            }
            host = rest[..<colon]
            port = number
        }
        guard !host.isEmpty, !host.contains(where: { $0 == "@" || $0 == " " }) else {
            throw WebhookConfigurationError("'\(text)': no host, or user info (not supported)")
        }
        self.isSecure = secure
        self.host = String(host)
        self.port = port
        self.path = path
    }

    /// Where the deliveries go: the scheme, the host and the port.
    public var origin: HTTPOrigin { HTTPOrigin(isSecure: self.isSecure, host: self.host, port: self.port) }

    /// The `Host` header's value.
    public var authority: String { self.origin.authority }

    public var description: String { (self.isSecure ? "https://" : "http://") + self.authority + self.path }
}
