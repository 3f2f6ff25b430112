import EventIO

/// Why a benchmark could not be set up.
public struct BenchError: Error, Sendable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}

/// Where the benchmark connects: a `ws://` or `wss://` URL on a loopback address.
///
/// Only loopback targets are accepted (127.0.0.0/8, ::1, or `localhost`): the load generator is for measuring a
/// server on the same machine, never for sending load elsewhere.
public struct BenchTarget: Sendable, CustomStringConvertible {
    /// The server's address.
    public var address: SocketAddress
    /// Whether to speak TLS (`wss://`).
    public var isSecure: Bool
    /// The `Host` header value.
    public var hostHeader: String
    /// The request target: path and query, e.g. `/echo` or `/v1/ws?token=...`.
    public var path: String

    /// Parses `ws://127.0.0.1:9001/echo`, `wss://[::1]:8443/v1/ws` or `ws://localhost:8080`.
    ///
    /// - Parameter url: the URL.
    /// - Throws: `BenchError` for anything else, and for a host that is not a loopback address.
    public init(url: String) throws(BenchError) {
        let secure: Bool
        let rest: Substring
        if url.hasPrefix("ws://") {
            secure = false
            rest = url.dropFirst(5)
        } else if url.hasPrefix("wss://") {
            secure = true
            rest = url.dropFirst(6)
        } else {
            throw BenchError("URL must start with ws:// or wss://: \(url)")
        }
        let slash = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
        let authority = String(rest[..<slash])
        var path = String(rest[slash...])
        if path.isEmpty { path = "/" } else if path.hasPrefix("?") { path = "/" + path }
        let defaultPort: UInt16 = secure ? 443 : 80
        var host: String
        var port = defaultPort
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw BenchError("bad host in \(url)") }
            host = String(authority[authority.index(after: authority.startIndex)..<close])
            let tail = authority[authority.index(after: close)...]
            if !tail.isEmpty {
                guard tail.hasPrefix(":"), let parsed = UInt16(tail.dropFirst()) else {
                    throw BenchError("bad port in \(url)")
                }
                port = parsed
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = String(authority[..<colon])
            guard let parsed = UInt16(authority[authority.index(after: colon)...]) else {
                throw BenchError("bad port in \(url)")
            }
            port = parsed
        } else {
            host = authority
        }
        if host == "localhost" { host = "127.0.0.1" }
        guard let address = SocketAddress(ipv4: host, port: port) ?? SocketAddress(ipv6: host, port: port) else {
            throw BenchError("host must be a numeric loopback address or localhost: \(url)")
        }
        guard Self.isLoopback(address) else {
            throw BenchError(
                "refusing non-loopback target \(address.host): the load generator only targets 127.0.0.0/8 and ::1")
        }
        self.address = address
        self.isSecure = secure
        self.hostHeader = address.description
        self.path = path
    }

    /// Whether `address` is in 127.0.0.0/8 or is ::1.
    public static func isLoopback(_ address: SocketAddress) -> Bool {
        address.isIPv6 ? address.host == "::1" : address.host.hasPrefix("127.")
    }

    /// The same server with another path.
    public func with(path: String) -> BenchTarget {
        var copy = self
        copy.path = path
        return copy
    }

    public var description: String { "\(self.isSecure ? "wss" : "ws")://\(self.hostHeader)\(self.path)" }
}

/// What to run and how hard.
public struct BenchOptions: Sendable {
    /// The load patterns.
    public enum Scenario: String, Sendable, CaseIterable {
        /// Round trips through an echo endpoint.
        case echo
        /// Meeting messages from one publisher per room to observers, through the rooms protocol.
        case fanout
        /// Participants changing their state in one room while observers mirror its roster from snapshot and
        /// patches; measures change-to-patch latency and checks every observer converged.
        case roster
        /// Many upgraded connections doing nothing, to measure the server's memory per connection.
        case idle
        /// Open, upgrade and close, as fast as possible.
        case connect
        /// Raw publish and subscribe against any WebSocket server: subscribers (each sending an optional subscribe
        /// message) and one publisher sending a template at a fixed rate; deliveries are found by a marker.
        case pubsub
    }

    /// The longest run accepted, in seconds.
    public static let maximumDuration: Double = 600

    public var scenario: Scenario
    public var target: BenchTarget
    /// Connections (echo, idle, connect).
    public var connections = 10
    /// Seconds of load (idle: how long connections stay open).
    public var duration: Double = 5
    /// Messages per second per publisher (fanout), or state changes per second in total (roster).
    public var rate = 10
    /// Message payload bytes (echo; at least 16, for the sequence number and timestamp).
    public var size = 64
    /// Messages each connection keeps in flight (echo).
    public var inFlight = 1
    /// Client event loop threads.
    public var threads = 1
    /// Rooms (fanout).
    public var rooms = 1
    /// Observers per room (fanout, roster).
    public var subscribers = 10
    /// Participants changing their state (roster).
    public var participants = 50
    /// The token key as `kid:secret` (fanout).
    public var key = "dev:rollcall-development-key-change-me"
    /// A server process whose VmRSS is read before and after opening connections (idle).
    public var serverPID: Int32?
    /// Local addresses to spread connections over (bound before connect).
    public var sourceAddresses: [SocketAddress] = []
    /// How long a connection waits for an echo or a handshake before counting it lost or failed, in seconds.
    public var replyTimeout: Double = 2
    /// Servers the fan-out observers connect to, in turn (several nodes of a cluster); empty: `target`. The
    /// publishers always use `target`.
    public var observerTargets: [BenchTarget] = []
    /// Offer permessage-deflate on every connection. Where the server agrees, compressed server messages are inflated
    /// and text and binary messages of at least 64 bytes go out compressed; where it declines, the connection runs
    /// uncompressed.
    public var compression = false
    /// Where the pubsub publisher connects; nil: `target`.
    public var publishTarget: BenchTarget?
    /// The text message each pubsub subscriber sends once upgraded (what subscribes it), if any.
    public var subscribeMessage: String?
    /// The pubsub publisher's text message, with `{payload}` where the payload goes.
    public var publishTemplate = PubSubDriver.placeholder
    /// Seconds between the subscribers' upgrades and the first publish (pubsub), for subscriptions to take effect.
    public var settle: Double = 1

    public init(scenario: Scenario, target: BenchTarget) {
        self.scenario = scenario
        self.target = target
    }

    /// Checks every bound.
    public func validate() throws(BenchError) {
        guard self.duration > 0, self.duration <= Self.maximumDuration else {
            throw BenchError("--duration must be in (0, \(Int(Self.maximumDuration))] seconds")
        }
        guard (1...1_000_000).contains(self.connections) else { throw BenchError("--connections must be 1...1000000") }
        guard (1...64).contains(self.threads) else { throw BenchError("--threads must be 1...64") }
        guard (1...1024).contains(self.inFlight) else { throw BenchError("--in-flight must be 1...1024") }
        guard (16...(16 << 20)).contains(self.size) else { throw BenchError("--size must be 16...16777216 bytes") }
        guard (1...100_000).contains(self.rate) else { throw BenchError("--rate must be 1...100000 per second") }
        guard (1...10_000).contains(self.rooms) else { throw BenchError("--rooms must be 1...10000") }
        guard (1...100_000).contains(self.subscribers) else { throw BenchError("--subscribers must be 1...100000") }
        guard (1...1000).contains(self.participants) else { throw BenchError("--participants must be 1...1000") }
        guard self.replyTimeout > 0, self.replyTimeout <= 60 else {
            throw BenchError("--timeout must be in (0, 60] seconds")
        }
        if self.scenario == .pubsub {
            guard self.size >= PubSubDriver.minimumPayloadSize else {
                throw BenchError("--size must be at least \(PubSubDriver.minimumPayloadSize) bytes for pubsub")
            }
            let parts = self.publishTemplate.split(
                separator: PubSubDriver.placeholder, omittingEmptySubsequences: false)
            guard parts.count == 2 else { throw BenchError("--publish-template needs exactly one {payload}") }
            guard self.settle >= 0, self.settle <= 60 else { throw BenchError("--settle must be in [0, 60] seconds") }
        }
        for address in self.sourceAddresses where !BenchTarget.isLoopback(address) {
            throw BenchError("source address \(address.host) is not a loopback address")
        }
        if let first = self.sourceAddresses.first, first.isIPv6 != self.target.address.isIPv6 {
            throw BenchError("source addresses and the target must be the same address family")
        }
    }

    /// Parses `127.0.0.1-127.0.0.8` (a range in the last octet) or a comma-separated list of addresses.
    public static func parseSourceAddresses(_ text: String) throws(BenchError) -> [SocketAddress] {
        var result: [SocketAddress] = []
        for part in text.split(separator: ",") {
            let bounds = part.split(separator: "-", maxSplits: 1).map(String.init)
            guard let first = SocketAddress(ipv4: bounds[0], port: 0) ?? SocketAddress(ipv6: bounds[0], port: 0) else {
                throw BenchError("bad source address '\(bounds[0])'")
            }
            guard bounds.count == 2 else {
                result.append(first)
                continue
            }
            let low = bounds[0].split(separator: ".")
            let high = bounds[1].split(separator: ".")
            guard low.count == 4, high.count == 4, low[0..<3] == high[0..<3], let from = Int(low[3]),
                let to = Int(high[3]),
                from <= to, to <= 255
            else { throw BenchError("a source address range is A.B.C.X-A.B.C.Y with X <= Y: '\(part)'") }
            let prefix = low[0..<3].joined(separator: ".")
            for octet in from...to {
                result.append(SocketAddress(ipv4: "\(prefix).\(octet)", port: 0)!)
            }
        }
        return result
    }
}
