#if canImport(Glibc)
internal import Glibc
#endif

/// An IPv4 or IPv6 address and port.
public struct SocketAddress: Hashable, Sendable, CustomStringConvertible {
    /// The host's bytes in network order, held inline (no allocation per address: every connection keeps one).
    enum Storage: Hashable, Sendable {
        case v4(host: UInt32, port: UInt16)
        case v6(high: UInt64, low: UInt64, port: UInt16)

        /// From the bytes of an `in_addr`.
        init(v4 address: in_addr, port: UInt16) {
            self = .v4(host: withUnsafeBytes(of: address) { $0.loadUnaligned(as: UInt32.self) }, port: port)
        }

        /// From the bytes of an `in6_addr`.
        init(v6 address: in6_addr, port: UInt16) {
            self = withUnsafeBytes(of: address) { bytes in
                .v6(
                    high: bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self),
                    low: bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self), port: port)
            }
        }

        /// Calls `body` with the host's bytes, as they go into a `sockaddr`.
        func withHostBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
            switch self {
            case .v4(let host, _):
                return withUnsafeBytes(of: host) { body($0) }
            case .v6(let high, let low, _):
                return withUnsafeBytes(of: (high, low)) { body($0) }
            }
        }
    }

    let storage: Storage

    /// The port number.
    public var port: Int {
        switch self.storage {
        case .v4(_, let port), .v6(_, _, let port): return Int(port)
        }
    }

    /// Whether this is an IPv6 address.
    public var isIPv6: Bool {
        if case .v6 = self.storage { return true }
        return false
    }

    /// Whether the host is a loopback address, reachable from this machine only: `127.0.0.0/8`, `::1`, or an IPv4
    /// loopback address mapped into IPv6 (`::ffff:127.0.0.1`). `0.0.0.0` and `::` (every interface) are not.
    public var isLoopback: Bool {
        self.storage.withHostBytes { bytes in
            switch bytes.count {
            case 4:
                return bytes[0] == 127
            default:
                let isV6Loopback = bytes.prefix(15).allSatisfy { $0 == 0 } && bytes[15] == 1
                let isMappedV4 =
                    bytes.prefix(10).allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF
                    && bytes[12] == 127
                return isV6Loopback || isMappedV4
            }
        }
    }

    /// Parses `127.0.0.1:8080`, `[::1]:8080` or `0.0.0.0:0` (numeric addresses only).
    ///
    /// - Parameter text: the address and port.
    public init?(parsing text: String) {
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            let host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":"), let port = UInt16(rest.dropFirst()) else { return nil }
            self.init(ipv6: host, port: port)
        } else {
            guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]) else {
                return nil
            }
            self.init(ipv4: String(text[..<colon]), port: port)
        }
    }

    /// - Parameters:
    ///   - ipv4: a dotted-quad address.
    ///   - port: the port.
    public init?(ipv4 host: String, port: UInt16) {
        var address = in_addr()
        guard inet_pton(AF_INET, host, &address) == 1 else { return nil }
        self.storage = Storage(v4: address, port: port)
    }

    /// - Parameters:
    ///   - ipv6: an IPv6 address without brackets.
    ///   - port: the port.
    public init?(ipv6 host: String, port: UInt16) {
        var address = in6_addr()
        guard inet_pton(AF_INET6, host, &address) == 1 else { return nil }
        self.storage = Storage(v6: address, port: port)
    }

    init(storage: Storage) {
        self.storage = storage
    }

    /// Reads an address the kernel filled in.
    init?(_ raw: UnsafePointer<sockaddr_storage>) {
        switch Int32(raw.pointee.ss_family) {
        case AF_INET:
            let address = UnsafeRawPointer(raw).load(as: sockaddr_in.self)
            self.storage = Storage(v4: address.sin_addr, port: UInt16(bigEndian: address.sin_port))
        case AF_INET6:
            let address = UnsafeRawPointer(raw).load(as: sockaddr_in6.self)
            self.storage = Storage(v6: address.sin6_addr, port: UInt16(bigEndian: address.sin6_port))
        default:
            return nil
        }
    }

    /// The same address with another port.
    public func withPort(_ port: Int) -> SocketAddress {
        switch self.storage {
        case .v4(let host, _): return SocketAddress(storage: .v4(host: host, port: UInt16(port)))
        case .v6(let high, let low, _): return SocketAddress(storage: .v6(high: high, low: low, port: UInt16(port)))
        }
    }

    /// The host part as text, e.g. `127.0.0.1` or `::1`.
    public var host: String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = self.isIPv6 ? AF_INET6 : AF_INET
        self.storage.withHostBytes { host in
            _ = inet_ntop(family, host.baseAddress, &text, socklen_t(text.count))
        }
        return String(cString: text)
    }

    public var description: String {
        self.isIPv6 ? "[\(self.host)]:\(self.port)" : "\(self.host):\(self.port)"
    }

    /// Calls `body` with the address as a `sockaddr`.
    @discardableResult
    func withSockAddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) throws(IOError) -> R) throws(IOError) -> R {
        var storage = sockaddr_storage()
        let length: socklen_t
        switch self.storage {
        case .v4(let host, let port):
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            withUnsafeMutableBytes(of: &address.sin_addr) { $0.storeBytes(of: host, as: UInt32.self) }
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: address, as: sockaddr_in.self) }
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
        case .v6(let high, let low, let port):
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            withUnsafeMutableBytes(of: &address.sin6_addr) {
                $0.storeBytes(of: high, toByteOffset: 0, as: UInt64.self)
                $0.storeBytes(of: low, toByteOffset: 8, as: UInt64.self)
            }
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: address, as: sockaddr_in6.self) }
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
        }
        return try withUnsafePointer(to: &storage) { pointer throws(IOError) in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address throws(IOError) in
                try body(address, length)
            }
        }
    }
}
