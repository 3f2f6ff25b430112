import EventIO
import HTTPCore
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
    /// The session's rules: pongs and the close handshake (the soak run sends no pings of its own).
    private var session = WebSocketSessionStateMachine(role: .client, timeouts: SoakClient.timeouts, now: 0)
    private static let timeouts = WebSocketSessionStateMachine.Timeouts(pingInterval: 0)
    /// What an error message from the server contains near its start.
    private static let errorMarker = Array("\"type\":\"error\"".utf8)
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
        do {
            self.fd = try Socket.connectBlocking(to: target.address, timeoutSeconds: timeout)
        } catch {
            throw BenchError("connect: \(error)")
        }
        Socket.setNoDelay(self.fd)
        let handshake = WebSocketClientHandshake(key: "c29hay1ydW4ta2V5LTAwMQ==")
        let request: [UInt8]
        do {
            request = try handshake.request(target: path, host: target.hostHeader)
        } catch {
            Glibc.close(self.fd)
            throw BenchError("upgrade request: \(error)")
        }
        guard self.write(request) else {
            Glibc.close(self.fd)
            throw BenchError("upgrade request: write failed")
        }
        var parser = HTTPResponseParser()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.recv(self.fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            self.received += buffer[0..<count]
            switch self.received.withUnsafeBytes({ parser.parse($0) }) {
            case .incomplete:
                continue
            case .failure(let error):
                Glibc.close(self.fd)
                throw BenchError("upgrade response: \(error)")
            case .complete(let head):
                do {
                    _ = try handshake.validate(head, offeredCompression: false)
                } catch {
                    Glibc.close(self.fd)
                    throw BenchError("upgrade refused: \(error)")
                }
                self.received.removeFirst(head.size)
                self.session = WebSocketSessionStateMachine(
                    role: .client, timeouts: Self.timeouts, now: EventLoop.monotonicNow() / 1_000_000)
                self.isOpen = true
                return
            }
        }
        Glibc.close(self.fd)
        throw BenchError("no upgrade response")
    }

    deinit {
        if self.isOpen { Glibc.close(self.fd) }
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

    private func nextMaskingKey() -> WebSocketMaskingKey {
        self.maskSeed = self.maskSeed &* 1_103_515_245 &+ 12_345
        return WebSocketMaskingKey(word: self.maskSeed | 0x0101_0101)
    }

    /// Sends one masked text message; false when the connection is gone.
    @discardableResult
    func send(text: String) -> Bool {
        self.sendFrame(.text, Array(text.utf8))
    }

    private func sendFrame(_ opcode: WebSocketOpcode, _ payload: [UInt8]) -> Bool {
        guard self.isOpen else { return false }
        let key = self.nextMaskingKey()
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
                if payload.prefix(32).withUnsafeBytes({ PayloadSearch.end(of: Self.errorMarker, in: $0) }) != nil {
                    self.errors += 1
                }
            case .ping:
                payload.withUnsafeBytes { self.perform(self.session.receivedPing($0)) }
            case .connectionClose:
                self.closeCode = payload.count >= 2 ? UInt16(payload[0]) << 8 | UInt16(payload[1]) : 0
                let code = payload.count >= 2 ? WebSocketCloseCode(rawValue: self.closeCode ?? 0) : nil
                self.perform(self.session.receivedClose(code: code, now: EventLoop.monotonicNow() / 1_000_000))
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
            if self.messages > before, self.lastText.withUnsafeBytes({ PayloadSearch.end(of: needle, in: $0) }) != nil {
                return self.lastText
            }
            if !self.isOpen { return nil }
        }
        return nil
    }

    /// Writes the frame an action of the session state machine calls for.
    private func perform(_ action: WebSocketSessionStateMachine.Action) {
        switch action {
        case .sendPong(let payload):
            _ = self.sendFrame(.pong, Array(payload))
        case .sendClose(let code, let reason):
            let frame = WebSocketFrameEncoder.encodeClose(code: code, reason: reason, maskingKey: self.nextMaskingKey())
            if self.isOpen && !self.write(frame.bytes) {
                self.drop()
            }
        case .sendPing, .closeSocket, .doNothing:
            break
        }
    }

    /// A clean close: our Close 1000, then the server's answer (bounded by the socket timeout).
    func closeCleanly() {
        guard self.isOpen else { return }
        self.perform(
            self.session.close(code: .normalClosure, reason: "", now: EventLoop.monotonicNow() / 1_000_000))
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
