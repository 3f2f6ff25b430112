import EventIO

#if canImport(Glibc)
import Glibc
#endif

/// Finds a server's address without blocking its loop: an IP address as written (and `localhost` as 127.0.0.1) at
/// once; a name through the system resolver on one helper thread shared by every client of the loop, started on
/// first need, with each answer kept for `cacheMilliseconds`.
public final class HostResolver {
    private let loop: EventLoop
    private let cacheMilliseconds: UInt64
    private var cache: [String: (address: SocketAddress, until: UInt64)] = [:]
    private var helper: (loop: EventLoop, thread: EventLoopThread)?

    /// - Parameters:
    ///   - loop: the loop where answers are reported.
    ///   - cacheMilliseconds: how long an answer for a name is used again.
    public init(loop: EventLoop, cacheMilliseconds: UInt64 = 60_000) {
        self.loop = loop
        self.cacheMilliseconds = cacheMilliseconds
    }

    /// Finds the address of `host`; the completion runs on the loop, never inside the call. Call on the loop.
    ///
    /// - Parameters:
    ///   - host: a name or an IP address.
    ///   - port: the TCP port.
    ///   - completion: the address, or why there is none.
    public func resolve(
        _ host: String, port: UInt16, completion: @escaping (Result<SocketAddress, HTTPClientError>) -> Void
    ) {
        let literal = host == "localhost" ? "127.0.0.1" : host
        if let address = SocketAddress(ipv4: literal, port: port) ?? SocketAddress(ipv6: literal, port: port) {
            self.loop.execute { completion(.success(address)) }
            return
        }
        let key = "\(host)|\(port)"
        let now = EventLoop.monotonicNow() / 1_000_000
        if let cached = self.cache[key], cached.until > now {
            self.loop.execute { completion(.success(cached.address)) }
            return
        }
        guard let helper = self.startedHelper() else {
            self.loop.execute { completion(.failure(HTTPClientError("cannot start the resolver for \(host)"))) }
            return
        }
        let loop = self.loop
        let lifetime = self.cacheMilliseconds
        helper.execute { [weak self] in
            let result = Self.lookUp(host, port: port)
            loop.execute {
                if case .success(let address) = result {
                    self?.cache[key] = (address, EventLoop.monotonicNow() / 1_000_000 + lifetime)
                }
                completion(result)
            }
        }
    }

    /// Stops the helper thread, if it runs. Call on the loop's thread or after it stopped.
    public func stop() {
        guard let helper = self.helper else { return }
        self.helper = nil
        helper.loop.stop()
        helper.thread.join()
    }

    private func startedHelper() -> EventLoop? {
        if let helper = self.helper { return helper.loop }
        guard let loop = try? EventLoop(index: -1, receiveBufferSize: 16) else { return nil }
        self.helper = (loop, EventLoopThread(name: "rollcall-resolve") { loop.run() })
        return loop
    }

    /// The first IPv4 or IPv6 address the system resolver gives for a name (blocking).
    private static func lookUp(_ host: String, port: UInt16) -> Result<SocketAddress, HTTPClientError> {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else {
            return .failure(HTTPClientError("cannot resolve \(host)"))
        }
        defer { freeaddrinfo(list) }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        var node: UnsafeMutablePointer<addrinfo>? = first
        while let current = node {
            if current.pointee.ai_family == AF_INET {
                var address = current.pointee.ai_addr.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                    $0.pointee.sin_addr
                }
                inet_ntop(AF_INET, &address, &text, socklen_t(text.count))
                if let found = SocketAddress(ipv4: String(cString: text), port: port) { return .success(found) }
            } else if current.pointee.ai_family == AF_INET6 {
                var address = current.pointee.ai_addr.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    $0.pointee.sin6_addr
                }
                inet_ntop(AF_INET6, &address, &text, socklen_t(text.count))
                if let found = SocketAddress(ipv6: String(cString: text), port: port) { return .success(found) }
            }
            node = current.pointee.ai_next
        }
        return .failure(HTTPClientError("no usable address for \(host)"))
    }
}

@available(*, unavailable) extension HostResolver: Sendable {}
