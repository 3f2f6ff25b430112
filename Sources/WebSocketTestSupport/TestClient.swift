import EventIO
import Foundation
import Glibc
import HTTPCore
import WebSocketCore
import WebSocketServer

/// Why a test client operation failed.
public struct TestClientError: Error, CustomStringConvertible {
    public let description: String

    /// An error that says `description`.
    public init(_ description: String) {
        self.description = description
    }
}

/// An HTTP response head as the test client read it.
public struct TestHTTPResponse {
    /// The status code, e.g. 101.
    public var status: Int
    /// The header fields in arrival order.
    public var headers: [(name: String, value: String)]

    /// The first value of a header field, matched without regard to case.
    public func header(_ name: String) -> String? {
        self.headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

/// A frame the server sent, with its payload already copied out.
public struct TestFrame {
    /// The frame's header as decoded.
    public var header: WebSocketFrameHeader
    /// The unmasked payload.
    public var payload: [UInt8]

    /// The header's opcode.
    public var opcode: WebSocketOpcode { self.header.opcode }

    /// The status code of a Close frame, nil for other frames or an empty Close.
    public var closeCode: UInt16? {
        guard self.opcode == .connectionClose, self.payload.count >= 2 else { return nil }
        return UInt16(self.payload[0]) << 8 | UInt16(self.payload[1])
    }

    /// The payload as UTF-8 text.
    public var text: String { String(decoding: self.payload, as: UTF8.self) }
}

/// A small blocking WebSocket client over a raw socket, for tests.
///
/// Every receive waits at most `timeout` seconds in total (the socket has a short receive timeout and reads are
/// retried until the deadline), so a server that goes silent fails a test instead of hanging it. With a TLS context,
/// the same operations go through a `TLSConnection` whose ciphertext is pumped over the socket.
public final class TestClient {
    /// The client's socket.
    public let fd: Int32
    /// The longest any single operation waits, in seconds.
    public var timeout: Double
    private var tls: TLSConnection?
    /// Received plaintext not consumed yet.
    var received: [UInt8] = []
    /// Whether the server closed its side of the TCP connection (or reset it).
    public private(set) var sawEndOfStream = false
    private var isClosed = false
    let decoder = WebSocketFrameDecoder(maximumFrameSize: Int(Int32.max), expectsMaskedFrames: false)
    var maskSeed: UInt32 = 0x3779_b97f

    /// Connects to `address`; with `tls`, also completes the TLS handshake.
    ///
    /// - Parameters:
    ///   - address: the server's address.
    ///   - tls: a client context for wss, or nil for plain TCP.
    ///   - timeout: the longest any operation waits, in seconds.
    ///   - source: an IPv4 address to connect from (e.g. `127.0.0.2`), or nil for the kernel's choice.
    public init(
        connectingTo address: SocketAddress, tls: TLSContext? = nil, timeout: Double = 5, source: String? = nil,
        receiveBufferBytes: Int32? = nil
    ) throws {
        self.timeout = timeout
        let family = address.isIPv6 ? AF_INET6 : AF_INET
        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TestClientError("socket: errno \(errno)") }
        self.fd = fd
        if var bytes = receiveBufferBytes {
            // Before connecting, so the advertised window stays small too.
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, socklen_t(MemoryLayout<Int32>.size))
        }
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            guard inet_pton(AF_INET, source, &local.sin_addr) == 1 else {
                Glibc.close(fd)
                throw TestClientError("bad source address \(source)")
            }
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard bound == 0 else {
                let code = errno
                Glibc.close(fd)
                throw TestClientError("bind to \(source): errno \(code)")
            }
        }
        // A short receive timeout: reads are retried until the operation's own deadline.
        var receiveTimeout = timeval(tv_sec: 0, tv_usec: 50_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &receiveTimeout, socklen_t(MemoryLayout<timeval>.size))
        var sendTimeout = timeval(tv_sec: Int(timeout), tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &sendTimeout, socklen_t(MemoryLayout<timeval>.size))
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        let result: Int32
        if address.isIPv6 {
            var raw = sockaddr_in6()
            raw.sin6_family = sa_family_t(AF_INET6)
            raw.sin6_port = UInt16(address.port).bigEndian
            guard inet_pton(AF_INET6, address.host, &raw.sin6_addr) == 1 else {
                Glibc.close(fd)
                throw TestClientError("bad address \(address)")
            }
            result = withUnsafePointer(to: &raw) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        } else {
            var raw = sockaddr_in()
            raw.sin_family = sa_family_t(AF_INET)
            raw.sin_port = UInt16(address.port).bigEndian
            guard inet_pton(AF_INET, address.host, &raw.sin_addr) == 1 else {
                Glibc.close(fd)
                throw TestClientError("bad address \(address)")
            }
            result = withUnsafePointer(to: &raw) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        guard result == 0 else {
            let code = errno
            Glibc.close(fd)
            throw TestClientError("connect to \(address): errno \(code)")
        }
        if let tls {
            self.tls = try TLSConnection(context: tls, serverName: address.host)
            try self.completeTLSHandshake()
        }
    }

    deinit {
        self.close()
    }

    /// Closes the socket (once).
    public func close() {
        guard !self.isClosed else { return }
        self.isClosed = true
        Glibc.close(self.fd)
    }

    // MARK: Raw bytes

    /// Sends bytes as they are (encrypted first over TLS).
    public func send(_ bytes: [UInt8]) throws {
        guard let tls = self.tls else {
            try self.sendOnSocket(bytes)
            return
        }
        var offset = 0
        var attempts = 0
        while offset < bytes.count {
            attempts += 1
            guard attempts < 100_000 else { throw TestClientError("TLS write made no progress") }
            let written = try bytes.withUnsafeBytes {
                try tls.writePlaintext(UnsafeRawBufferPointer(rebasing: $0[offset...]))
            }
            offset += written
            try self.flushCiphertext()
        }
    }

    /// Sends text as UTF-8 bytes.
    public func send(_ text: String) throws {
        try self.send(Array(text.utf8))
    }

    private func sendOnSocket(_ bytes: [UInt8]) throws {
        var offset = 0
        let deadline = Date().addingTimeInterval(self.timeout)
        while offset < bytes.count {
            guard Date() < deadline else { throw TestClientError("send timed out") }
            let sent = bytes.withUnsafeBytes { buffer in
                Glibc.send(self.fd, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
            }
            if sent < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw TestClientError("send: errno \(errno)")
            }
            offset += sent
        }
    }

    private func flushCiphertext() throws {
        guard let tls = self.tls, tls.hasPendingCiphertext else { return }
        var ciphertext: [UInt8] = []
        tls.takeCiphertext(into: &ciphertext)
        try self.sendOnSocket(ciphertext)
    }

    /// Reads once from the socket, waiting until `deadline`; returns false at end of stream.
    ///
    /// - Returns: whether bytes were added to `received` (false at end of stream).
    func receiveSome(until deadline: Date) throws -> Bool {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while Date() < deadline {
            let count = buffer.withUnsafeMutableBytes { Glibc.recv(self.fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                guard let tls = self.tls else {
                    self.received.append(contentsOf: buffer[0..<count])
                    return true
                }
                buffer.withUnsafeBytes { tls.receiveCiphertext(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
                var plaintext = [UInt8](repeating: 0, count: 32 * 1024)
                var gotPlaintext = false
                drain: for _ in 0..<10_000 {
                    let result = try plaintext.withUnsafeMutableBytes { try tls.readPlaintext(into: $0) }
                    switch result {
                    case .bytes(let read):
                        self.received.append(contentsOf: plaintext[0..<read])
                        gotPlaintext = true
                    case .wouldBlock:
                        break drain
                    case .closed:
                        self.sawEndOfStream = true
                        return gotPlaintext
                    }
                }
                try self.flushCiphertext()
                if gotPlaintext { return true }
                continue
            }
            if count == 0 {
                self.sawEndOfStream = true
                return false
            }
            let code = errno
            if code == EAGAIN || code == EWOULDBLOCK || code == EINTR { continue }
            if code == ECONNRESET {
                self.sawEndOfStream = true
                return false
            }
            throw TestClientError("recv: errno \(code)")
        }
        throw TestClientError("timed out after \(self.timeout) s waiting for the server")
    }

    private func completeTLSHandshake() throws {
        guard let tls = self.tls else { return }
        let deadline = Date().addingTimeInterval(self.timeout)
        for _ in 0..<1000 {
            let state = try tls.advanceHandshake()
            try self.flushCiphertext()
            if state == .complete { return }
            var buffer = [UInt8](repeating: 0, count: 16 * 1024)
            var count = -1
            while Date() < deadline {
                count = buffer.withUnsafeMutableBytes { Glibc.recv(self.fd, $0.baseAddress, $0.count, 0) }
                if count >= 0 || (errno != EAGAIN && errno != EINTR) { break }
            }
            guard count > 0 else { throw TestClientError("TLS handshake: connection ended or timed out") }
            buffer.withUnsafeBytes { tls.receiveCiphertext(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
        }
        throw TestClientError("TLS handshake did not complete")
    }

    /// Reads until the server closes the connection and returns everything received meanwhile.
    public func readUntilEndOfStream() throws -> [UInt8] {
        let deadline = Date().addingTimeInterval(self.timeout)
        while !self.sawEndOfStream {
            _ = try self.receiveSome(until: deadline)
        }
        let bytes = self.received
        self.received = []
        return bytes
    }

    /// Whether the server closes the TCP connection within `timeout` seconds (everything it sends is discarded).
    public func serverClosesConnection(within timeout: Double? = nil) -> Bool {
        let deadline = Date().addingTimeInterval(timeout ?? self.timeout)
        while !self.sawEndOfStream {
            do {
                _ = try self.receiveSome(until: deadline)
            } catch {
                return false
            }
            self.received = []
        }
        return true
    }
}
