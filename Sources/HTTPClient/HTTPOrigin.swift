/// Where requests go: the scheme (plain or TLS), the host and the port.
public struct HTTPOrigin: Hashable, Sendable, CustomStringConvertible {
    /// Whether requests go over TLS (`https://`).
    public var isSecure: Bool
    /// The host: a name, or an IP address (IPv6 without brackets).
    public var host: String
    /// The TCP port.
    public var port: UInt16

    /// - Parameters:
    ///   - isSecure: whether requests go over TLS.
    ///   - host: a name or an IP address, IPv6 without brackets.
    ///   - port: the TCP port.
    public init(isSecure: Bool, host: String, port: UInt16) {
        self.isSecure = isSecure
        self.host = host
        self.port = port
    }

    /// The `Host` header's value: the host (IPv6 in brackets), with the port unless it is the scheme's default.
    public var authority: String {
        let host = self.host.contains(":") ? "[\(self.host)]" : self.host
        let defaultPort: UInt16 = self.isSecure ? 443 : 80
        return self.port == defaultPort ? host : "\(host):\(self.port)"
    }

    public var description: String { (self.isSecure ? "https://" : "http://") + self.authority }
}
