import EventIO
import WebSocketCore

#if canImport(Glibc)
import Glibc
#endif

/// A small blocking WebSocket client for the soak run: plain `ws://` only, every wait bounded by a socket timeout.
///
/// The soak run drives a few dozen of these from one thread at a moderate rate; between actions each one is
/// drained without blocking, so none of them becomes a slow consumer for the server.
final class SoakClient {
    let fd: Int32
    private var received: [UInt8] = []
    private let decoder = WebSocketFrameDecoder(maximumFrameSize: 16 << 20, expectsMaskedFrames: false)
    private var maskSeed: UInt32
    private(set) var isOpen = false
    /// The Close code the server sent, if it sent one.
    private(set) var closeCode: UInt16?
    /// Text messages received, and those that were protocol errors.
    private(set) var messages = 0
    private(set) var errors = 0
    /// The most recent text message (for answers to queries).
    private(set) var lastText: [UInt8] = []

    /// Connects and upgrades.
    ///
    /// - Throws: `BenchError` when the connection or the upgrade fails within `timeout` seconds.
    init(target: BenchTarget, path: String, timeout: Double, seed: UInt32) throws(BenchError) {
        self.maskSeed = seed | 1
        let family = target.address.isIPv6 ? AF_INET6 : AF_INET
        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw BenchError("socket: errno \(errno)") }
        self.fd = fd
        var wait = timeval(tv_sec: Int(timeout), tv_usec: Int(timeout.truncatingRemainder(dividingBy: 1) * 1e6))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        let host = target.address.host
        let port = UInt16(target.address.port)
        let connected: Int32
        if target.address.isIPv6 {
            var raw = sockaddr_in6()
            raw.sin6_family = sa_family_t(AF_INET6)
            raw.sin6_port = port.bigEndian
            _ = inet_pton(AF_INET6, host, &raw.sin6_addr)
            connected = withUnsafePointer(to: &raw) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        } else {
            var raw = sockaddr_in()
            raw.sin_family = sa_family_t(AF_INET)
            raw.sin_port = port.bigEndian
            _ = inet_pton(AF_INET, host, &raw.sin_addr)
            connected = withUnsafePointer(to: &raw) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        guard connected == 0 else {
            let code = errno
            Glibc.close(fd)
            throw BenchError("connect: errno \(code)")
        }
        var request = "GET \(path) HTTP/1.1\r\nHost: \(target.hostHeader)\r\nUpgrade: websocket\r\n"
        request +=
            "Connection: Upgrade\r\nSec-WebSocket-Key: c29hay1ydW4ta2V5LTAwMQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        guard self.write(Array(request.utf8)) else {
            Glibc.close(fd)
            throw BenchError("upgrade request: write failed")
        }
        var head: [UInt8] = []
        let terminator = Array("\r\n\r\n".utf8)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while head.count < 16 * 1024 {
            let count = buffer.withUnsafeMutableBytes { Glibc.recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            head += buffer[0..<count]
            if let end = Self.find(terminator, in: head) {
                self.received = Array(head[(end + 4)...])
                head = Array(head[0..<end])
                let status = String(decoding: head.prefix(12), as: UTF8.self)
                guard status.hasPrefix("HTTP/1.1 101") else {
                    Glibc.close(fd)
                    throw BenchError("upgrade answered \(status)")
                }
                self.isOpen = true
                return
            }
        }
        Glibc.close(fd)
        throw BenchError("no upgrade response")
    }

    deinit {
        if self.isOpen { Glibc.close(self.fd) }
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            if Array(haystack[start..<(start + needle.count)]) == needle { return start }
        }
        return nil
    }

    private func write(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes {
                Glibc.send(self.fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL))
            }
            if sent < 0 && errno == EINTR { continue }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }

    /// Sends one masked text message; false when the connection is gone.
    @discardableResult
    func send(text: String) -> Bool {
        self.sendFrame(.text, Array(text.utf8))
    }

    private func sendFrame(_ opcode: WebSocketOpcode, _ payload: [UInt8]) -> Bool {
        guard self.isOpen else { return false }
        self.maskSeed = self.maskSeed &* 1_103_515_245 &+ 12_345
        let key = WebSocketMaskingKey(word: self.maskSeed | 0x0101_0101)
        let frame = payload.withUnsafeBytes {
            WebSocketFrameEncoder.encode(opcode: opcode, payload: $0, maskingKey: key)
        }
        if !self.write(frame.bytes) { self.drop() }
        return self.isOpen
    }

    /// Reads whatever has arrived without waiting (or waits up to the socket timeout with `blocking`), and
    /// decodes it; returns the number of text messages decoded.
    @discardableResult
    func drain(blocking: Bool = false) -> Int {
        guard self.isOpen else { return 0 }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var first = blocking
        while self.isOpen {
            let count = buffer.withUnsafeMutableBytes {
                Glibc.recv(self.fd, $0.baseAddress, $0.count, first ? 0 : Int32(MSG_DONTWAIT))
            }
            first = false
            if count > 0 {
                self.received += buffer[0..<count]
                continue
            }
            if count == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) { self.drop() }
            break
        }
        return self.decode()
    }

    private func decode() -> Int {
        var decoded = 0
        var offset = 0
        defer { if offset > 0 { self.received.removeFirst(offset) } }
        while offset < self.received.count {
            let step = self.received.withUnsafeMutableBytes { self.decoder.decodeFrame(in: $0, at: offset) }
            guard case .frame(let header, let start, let end) = step else {
                if case .violation = step { self.drop() }
                return decoded
            }
            let payload = Array(self.received[start..<end])
            offset = end
            switch header.opcode {
            case .text:
                decoded += 1
                self.messages += 1
                self.lastText = payload
                if Self.find(Array("\"type\":\"error\"".utf8), in: Array(payload.prefix(32))) != nil {
                    self.errors += 1
                }
            case .ping:
                _ = self.sendFrame(.pong, payload)
            case .connectionClose:
                self.closeCode = payload.count >= 2 ? UInt16(payload[0]) << 8 | UInt16(payload[1]) : 0
                self.drop(reset: false)
                return decoded
            default:
                break
            }
        }
        return decoded
    }

    /// Waits (up to the socket timeout, a few reads) for a text message that contains `marker`.
    func waitForText(containing marker: String) -> [UInt8]? {
        let needle = Array(marker.utf8)
        for _ in 0..<20 {
            let before = self.messages
            self.drain(blocking: true)
            if self.messages > before, Self.find(needle, in: self.lastText) != nil { return self.lastText }
            if !self.isOpen { return nil }
        }
        return nil
    }

    /// A clean close: our Close 1000, then the server's answer (bounded by the socket timeout).
    func closeCleanly() {
        guard self.isOpen else { return }
        _ = self.sendFrame(.connectionClose, [0x03, 0xE8])
        for _ in 0..<10 where self.isOpen { self.drain(blocking: true) }
        self.drop(reset: false)
    }

    /// Drops the connection without a close handshake: with `reset`, an RST, like a phone losing its network.
    func drop(reset: Bool = true) {
        guard self.isOpen else { return }
        self.isOpen = false
        guard reset else {
            Glibc.close(self.fd)
            return
        }
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        setsockopt(self.fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        Glibc.close(self.fd)
    }
}
