import EventIO
import Foundation
import Glibc
import HTTPCore
import WebSocketCore
import WebSocketServer

/// Why a test client operation failed.
struct TestClientError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}

/// An HTTP response head as the test client read it.
struct TestHTTPResponse {
    /// The status code, e.g. 101.
    var status: Int
    /// The header fields in arrival order.
    var headers: [(name: String, value: String)]

    /// The first value of a header field, matched without regard to case.
    func header(_ name: String) -> String? {
        self.headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

/// A frame the server sent, with its payload already copied out.
struct TestFrame {
    var header: WebSocketFrameHeader
    var payload: [UInt8]

    var opcode: WebSocketOpcode { self.header.opcode }

    /// The status code of a Close frame, nil for other frames or an empty Close.
    var closeCode: UInt16? {
        guard self.opcode == .connectionClose, self.payload.count >= 2 else { return nil }
        return UInt16(self.payload[0]) << 8 | UInt16(self.payload[1])
    }

    var text: String { String(decoding: self.payload, as: UTF8.self) }
}

/// A small blocking WebSocket client over a raw socket, for tests.
///
/// Every receive waits at most `timeout` seconds in total (the socket has a short receive timeout and reads are
/// retried until the deadline), so a server that goes silent fails a test instead of hanging it. With a TLS context,
/// the same operations go through a `TLSConnection` whose ciphertext is pumped over the socket.
final class TestClient {
    let fd: Int32
    /// The longest any single operation waits, in seconds.
    var timeout: Double
    private var tls: TLSConnection?
    /// Received plaintext not consumed yet.
    private var received: [UInt8] = []
    /// Whether the server closed its side of the TCP connection (or reset it).
    private(set) var sawEndOfStream = false
    private var isClosed = false
    private let decoder = WebSocketFrameDecoder(maximumFrameSize: Int(Int32.max), expectsMaskedFrames: false)
    private var maskSeed: UInt32 = 0x3779_b97f

    /// Connects to `address`; with `tls`, also completes the TLS handshake.
    ///
    /// - Parameters:
    ///   - address: the server's address.
    ///   - tls: a client context for wss, or nil for plain TCP.
    ///   - timeout: the longest any operation waits, in seconds.
    ///   - source: an IPv4 address to connect from (e.g. `127.0.0.2`), or nil for the kernel's choice.
    init(
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
    func close() {
        guard !self.isClosed else { return }
        self.isClosed = true
        Glibc.close(self.fd)
    }

    // MARK: Raw bytes

    /// Sends bytes as they are (encrypted first over TLS).
    func send(_ bytes: [UInt8]) throws {
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
    func send(_ text: String) throws {
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
    private func receiveSome(until deadline: Date) throws -> Bool {
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
    func readUntilEndOfStream() throws -> [UInt8] {
        let deadline = Date().addingTimeInterval(self.timeout)
        while !self.sawEndOfStream {
            _ = try self.receiveSome(until: deadline)
        }
        let bytes = self.received
        self.received = []
        return bytes
    }

    /// Whether the server closes the TCP connection within `timeout` seconds (everything it sends is discarded).
    func serverClosesConnection(within timeout: Double? = nil) -> Bool {
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

    // MARK: HTTP

    /// Sends an upgrade request and reads the response head; the bytes after it stay buffered for frames.
    ///
    /// - Parameters:
    ///   - path: the request target.
    ///   - extraHeaders: header lines to add, e.g. `Sec-WebSocket-Extensions` or `Origin`.
    /// - Returns: the response head.
    @discardableResult
    func handshake(path: String = "/echo", extraHeaders: [(String, String)] = []) throws -> TestHTTPResponse {
        try self.send(Self.upgradeRequest(path: path, extraHeaders: extraHeaders))
        return try self.readResponseHead()
    }

    /// An upgrade request with a fixed key, as bytes.
    static func upgradeRequest(
        path: String = "/echo",
        method: String = "GET",
        extraHeaders: [(String, String)] = []
    ) -> [UInt8] {
        var request = "\(method) \(path) HTTP/1.1\r\n"
        request += "Host: localhost\r\n"
        request += "Upgrade: websocket\r\n"
        request += "Connection: Upgrade\r\n"
        request += "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
        request += "Sec-WebSocket-Version: 13\r\n"
        for (name, value) in extraHeaders { request += "\(name): \(value)\r\n" }
        request += "\r\n"
        return Array(request.utf8)
    }

    /// Reads an HTTP response head (up to the blank line).
    func readResponseHead() throws -> TestHTTPResponse {
        let deadline = Date().addingTimeInterval(self.timeout)
        let terminator: [UInt8] = Array("\r\n\r\n".utf8)
        while true {
            if let end = Self.find(terminator, in: self.received) {
                let head = String(decoding: self.received[0..<end], as: UTF8.self)
                self.received.removeFirst(end + terminator.count)
                return try Self.parseHead(head)
            }
            guard try self.receiveSome(until: deadline) else {
                throw TestClientError("connection closed before a response head (\(self.received.count) bytes)")
            }
        }
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            if Array(haystack[start..<(start + needle.count)]) == needle { return start }
        }
        return nil
    }

    private static func parseHead(_ head: String) throws -> TestHTTPResponse {
        let lines = head.components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ")
        guard statusParts.count >= 2, statusParts[0].hasPrefix("HTTP/1."), let status = Int(statusParts[1]) else {
            throw TestClientError("bad status line: \(lines[0])")
        }
        var headers: [(name: String, value: String)] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = String(line[..<colon])
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers.append((name, value))
        }
        return TestHTTPResponse(status: status, headers: headers)
    }

    // MARK: Frames

    /// A fresh masking key (deterministic, never all zero).
    private func nextMaskingKey() -> WebSocketMaskingKey {
        self.maskSeed = self.maskSeed &* 1_103_515_245 &+ 12_345
        return WebSocketMaskingKey(word: self.maskSeed | 0x0101_0101)
    }

    /// Encodes a client frame, masked unless `masked` is false.
    func frame(
        _ opcode: WebSocketOpcode,
        _ payload: [UInt8],
        fin: Bool = true,
        rsv1: Bool = false,
        masked: Bool = true
    ) -> [UInt8] {
        let key = masked ? self.nextMaskingKey() : nil
        return payload.withUnsafeBytes {
            WebSocketFrameEncoder.encode(opcode: opcode, payload: $0, fin: fin, rsv1: rsv1, maskingKey: key).bytes
        }
    }

    /// Sends one client frame.
    func sendFrame(
        _ opcode: WebSocketOpcode,
        _ payload: [UInt8],
        fin: Bool = true,
        rsv1: Bool = false,
        masked: Bool = true
    ) throws {
        try self.send(self.frame(opcode, payload, fin: fin, rsv1: rsv1, masked: masked))
    }

    /// Sends a Close frame with a code and no reason.
    func sendClose(code: UInt16) throws {
        try self.sendFrame(.connectionClose, [UInt8(code >> 8), UInt8(code & 0xFF)])
    }

    /// Reads the next server frame, waiting for all of it.
    func readFrame() throws -> TestFrame {
        let deadline = Date().addingTimeInterval(self.timeout)
        while true {
            let step = self.received.withUnsafeMutableBytes { self.decoder.decodeFrame(in: $0, at: 0) }
            switch step {
            case .frame(let header, let start, let end):
                let frame = TestFrame(header: header, payload: Array(self.received[start..<end]))
                self.received.removeFirst(end)
                return frame
            case .violation(let violation):
                throw TestClientError("the server sent a bad frame: \(violation)")
            case .needMoreData:
                guard try self.receiveSome(until: deadline) else {
                    throw TestClientError("connection closed before a whole frame (\(self.received.count) bytes)")
                }
            }
        }
    }

    /// Reads frames up to the next Close frame and returns its code (0 for an empty Close).
    func readCloseCode() throws -> UInt16 {
        for _ in 0..<10_000 {
            let frame = try self.readFrame()
            if frame.opcode == .connectionClose { return frame.closeCode ?? 0 }
        }
        throw TestClientError("no Close frame")
    }

    /// Sends a message and returns the echoed frame.
    func echo(_ opcode: WebSocketOpcode, _ payload: [UInt8]) throws -> TestFrame {
        try self.sendFrame(opcode, payload)
        return try self.readFrame()
    }

    /// Sends a text message and returns the echoed text.
    func echo(text: String) throws -> String {
        let frame = try self.echo(.text, Array(text.utf8))
        guard frame.opcode == .text else { throw TestClientError("expected a text frame, got \(frame.opcode)") }
        return frame.text
    }
}

/// A server started for one test, on loopback port 0, with the echo endpoint on.
final class LiveServer: @unchecked Sendable {
    let server: Server
    /// The plain listener's bound address.
    let address: SocketAddress
    /// The TLS listener's bound address, when TLS was configured.
    let tlsAddress: SocketAddress?
    private let stopLock = NSLock()
    private var isStopped = false

    /// Starts a server; `configure` adjusts the test defaults.
    init(_ configure: (inout ServerConfiguration) -> Void = { _ in }, httpRoutes: [HTTPRoute] = []) throws {
        var configuration = ServerConfiguration()
        configuration.listen = [SocketAddress(parsing: "127.0.0.1:0")!]
        configuration.echoEnabled = true
        configuration.eventLoopCount = 1
        configuration.shutdownGracePeriodMilliseconds = 300
        configuration.closeTimeoutMilliseconds = 1_000
        configure(&configuration)
        let server = Server(configuration: configuration, httpRoutes: httpRoutes)
        try server.start()
        self.server = server
        self.address = server.localAddresses.first!
        self.tlsAddress = server.localTLSAddresses.first
    }

    deinit {
        self.stop()
    }

    /// Shuts the server down gracefully (once; safe to call from any thread).
    func stop() {
        let isFirst = self.stopLock.withLock {
            defer { self.isStopped = true }
            return !self.isStopped
        }
        if isFirst { self.server.shutDownGracefully() }
    }

    /// A connected client that finished the handshake on `/echo`.
    func openClient(tls: TLSContext? = nil, extraHeaders: [(String, String)] = []) throws -> TestClient {
        let client = try TestClient(connectingTo: tls == nil ? self.address : self.tlsAddress!, tls: tls)
        let response = try client.handshake(extraHeaders: extraHeaders)
        guard response.status == 101 else { throw TestClientError("handshake answered \(response.status)") }
        return client
    }

    /// Runs `body` with a started server and stops it afterwards, whatever happens.
    static func with<Result>(
        _ configure: (inout ServerConfiguration) -> Void = { _ in },
        _ body: (LiveServer) throws -> Result
    ) throws -> Result {
        let server = try LiveServer(configure)
        defer { server.stop() }
        return try body(server)
    }
}

/// A temporary directory holding a fresh self-signed certificate for 127.0.0.1, removed by `remove()`.
struct TemporaryCertificate {
    let directory: String
    let certificate: TLSSelfSignedCertificate

    init() throws {
        let base = NSTemporaryDirectory().hasSuffix("/") ? NSTemporaryDirectory() : NSTemporaryDirectory() + "/"
        // A mkdtemp template.
        var template = Array((base + "rollcall-live-" + String(repeating: "X", count: 6)).utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            throw TestClientError("cannot create a temporary directory")
        }
        self.directory = String(cString: template)
        self.certificate = try TLSSelfSignedCertificate.generate(in: self.directory)
    }

    /// A client context that trusts only this certificate.
    func clientContext() throws -> TLSContext {
        try TLSContext.makeClient(verifyPeer: true, trustedCertificatePath: self.certificate.certificatePath)
    }

    func remove() {
        unlink(self.certificate.certificatePath)
        unlink(self.certificate.privateKeyPath)
        rmdir(self.directory)
    }
}

/// Deterministic pseudo-random bytes, so failures reproduce.
func testBytes(count: Int, seed: UInt64 = 0x9e37_79b9_7f4a_7c15) -> [UInt8] {
    var state = seed
    var bytes = [UInt8](repeating: 0, count: count)
    for index in 0..<count {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        bytes[index] = UInt8(truncatingIfNeeded: state >> 33)
    }
    return bytes
}
