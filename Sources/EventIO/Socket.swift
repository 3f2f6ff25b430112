internal import CWebSocket

#if canImport(Glibc)
internal import Glibc
#endif

/// Non-blocking TCP socket operations on raw descriptors, each through `systemCall`.
public enum Socket {
    /// Creates a non-blocking listening socket bound to `address`.
    ///
    /// - Parameters:
    ///   - address: where to listen; port 0 picks a free port.
    ///   - backlog: the accept queue length.
    ///   - reusePort: set SO_REUSEPORT so each event loop can own a listener on the same port.
    /// - Returns: the descriptor.
    public static func listen(
        on address: SocketAddress, backlog: Int32 = 4096, reusePort: Bool
    ) throws(IOError)
        -> Int32
    {
        let family = address.isIPv6 ? AF_INET6 : AF_INET
        let fd = try blockingSystemCall("socket") {
            socket(
                family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        }
        do {
            try Self.setOption(fd, SOL_SOCKET, SO_REUSEADDR, 1)
            if reusePort { try Self.setOption(fd, SOL_SOCKET, SO_REUSEPORT, 1) }
            if address.isIPv6 { try Self.setOption(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, 1) }
            try address.withSockAddr { pointer, length throws(IOError) in
                try blockingSystemCall("bind") { bind(fd, pointer, length) }
            }
            try blockingSystemCall("listen") { Glibc.listen(fd, backlog) }
        } catch {
            close(fd)
            throw error
        }
        return fd
    }

    /// The address a socket is bound to (to learn the port picked for port 0).
    public static func localAddress(of fd: Int32) throws(IOError) -> SocketAddress {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = try withUnsafeMutablePointer(to: &storage) { pointer throws(IOError) in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address throws(IOError) in
                try blockingSystemCall("getsockname") { getsockname(fd, address, &length) }
            }
        }
        guard let address = SocketAddress(&storage) else {
            throw IOError(errnoCode: EAFNOSUPPORT, function: "getsockname")
        }
        return address
    }

    /// Accepts one connection as a non-blocking descriptor, with its peer address.
    public static func accept(_ listener: Int32) throws(IOError) -> IOResult<(Int32, SocketAddress?)> {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = try withUnsafeMutablePointer(to: &storage) { pointer throws(IOError) in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address throws(IOError) in
                try systemCall("accept4") {
                    CWebSocket_accept4(
                        listener, address, &length, Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue))
                }
            }
        }
        switch result {
        case .wouldBlock: return .wouldBlock
        case .processed(let fd): return .processed((fd, SocketAddress(&storage)))
        }
    }

    /// Starts a non-blocking connect; completion is signalled by writability (check `pendingError`).
    ///
    /// - Parameters:
    ///   - address: the peer.
    ///   - localAddress: a local address to bind first (port 0), to spread clients over several source addresses;
    ///     the port is chosen at connect time, so each source address has its own ephemeral port range per peer.
    public static func connect(
        to address: SocketAddress, from localAddress: SocketAddress? = nil
    ) throws(IOError)
        -> Int32
    {
        let family = address.isIPv6 ? AF_INET6 : AF_INET
        let fd = try blockingSystemCall("socket") {
            socket(
                family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        }
        do {
            if let localAddress {
                // IP_BIND_ADDRESS_NO_PORT (Linux 4.2+): defer the port choice to connect. Failure only costs range.
                var one: Int32 = 1
                _ = setsockopt(fd, Int32(IPPROTO_IP), 24, &one, socklen_t(MemoryLayout<Int32>.size))
                try localAddress.withSockAddr { pointer, length throws(IOError) in
                    try blockingSystemCall("bind") { bind(fd, pointer, length) }
                }
            }
            try address.withSockAddr { pointer, length throws(IOError) in
                let result = Glibc.connect(fd, pointer, length)
                if result < 0 && errno != EINPROGRESS {
                    throw IOError(errnoCode: errno, function: "connect")
                }
            }
        } catch {
            close(fd)
            throw error
        }
        return fd
    }

    /// The error of a finished non-blocking connect, or 0.
    public static func pendingError(_ fd: Int32) -> Int32 {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        _ = getsockopt(fd, SOL_SOCKET, SO_ERROR, &value, &length)
        return value
    }

    /// Reads into `buffer`; `.processed(0)` means the peer closed its side.
    @inline(__always)
    public static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(IOError) -> IOResult<Int> {
        try systemCall("read") { Glibc.read(fd, buffer.baseAddress, buffer.count) }
    }

    /// Writes from several buffers at once (`sendmsg` with MSG_NOSIGNAL: a peer that reset the connection makes
    /// the call fail with EPIPE instead of raising SIGPIPE).
    @inline(__always)
    static func writev(_ fd: Int32, _ vectors: UnsafePointer<iovec>, count: Int32) throws(IOError) -> IOResult<Int> {
        var message = msghdr()
        message.msg_iov = UnsafeMutablePointer(mutating: vectors)
        message.msg_iovlen = Int(count)
        return try systemCall("sendmsg") { sendmsg(fd, &message, Int32(MSG_NOSIGNAL)) }
    }

    /// Writes from one buffer.
    @inline(__always)
    public static func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws(IOError) -> IOResult<Int> {
        try systemCall("write") { Glibc.write(fd, bytes.baseAddress, bytes.count) }
    }

    /// Writes from one buffer with `send` and MSG_NOSIGNAL: a peer that reset the connection makes the call fail
    /// with EPIPE instead of raising SIGPIPE, whatever the process does with that signal.
    @inline(__always)
    public static func send(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws(IOError) -> IOResult<Int> {
        try systemCall("send") { Glibc.send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Turns off Nagle's algorithm: frames go out when written.
    public static func setNoDelay(_ fd: Int32) {
        var one: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Sets an integer socket option.
    public static func setOption(_ fd: Int32, _ level: Int32, _ name: Int32, _ value: Int32) throws(IOError) {
        var value = value
        try blockingSystemCall("setsockopt") {
            setsockopt(fd, level, name, &value, socklen_t(MemoryLayout<Int32>.size))
        }
    }

    /// Makes the next `close` of `fd` end the connection with a reset (RST) instead of a FIN (SO_LINGER with a zero
    /// timeout), as when a peer vanishes from the network.
    public static func setResetOnClose(_ fd: Int32) {
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
    }

    /// Shuts down the sending side (sends FIN) while still reading.
    public static func shutdownWrite(_ fd: Int32) {
        _ = Glibc.shutdown(fd, Int32(SHUT_WR))
    }

    /// Closes a descriptor.
    public static func close(_ fd: Int32) {
        _ = Glibc.close(fd)
    }
}
