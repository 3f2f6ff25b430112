// The Linux transport: EventIO's sockets and OpenSSL; Apple platforms supply a RollcallTransport of their own.
#if canImport(EventIO)

import EventIO
import Foundation
import WebSocketCore
import WebSocketDeflate

#if canImport(Glibc)
import Glibc
#endif

/// One WebSocket client connection (RFC 6455), over TCP or TLS, driven by `poll` on the thread that calls `run`.
///
/// Lifecycle: `open()` connects, completes TLS and the upgrade (checking `Sec-WebSocket-Accept` and the agreed
/// extensions), then `run(onText:onTick:)` reads and writes until the connection ends and returns how it ended.
/// Both are called on one thread, the connection's I/O thread; every callback runs there.
///
/// `send(text:)`, `close(code:reason:)` and `abort()` are safe from any thread: they queue work under a lock and wake
/// the I/O thread. Client frames are masked with a fresh random key each; messages are sent uncompressed, and
/// compressed server messages are inflated when permessage-deflate was agreed. The session's rules come from
/// `WebSocketSessionStateMachine` in the client role: pings go out after `pingInterval` seconds of silence, a
/// connection that stays silent `pongTimeout` seconds after the ping is lost, and once the close handshake is
/// complete the client waits (up to `closeTimeout`) for the server to close the TCP connection. The upgrade is
/// built and checked by `WebSocketClientHandshake`.
public final class RollcallConnection: @unchecked Sendable {
    /// Where the connection goes.
    public let endpoint: RollcallEndpoint
    /// Its settings.
    public let options: RollcallConnectionOptions

    // Shared with other threads, under `lock`.
    let lock = NSLock()
    var socket: Int32 = -1
    private var outbound: [[UInt8]] = []
    private var queuedBytes = 0
    private var requestedClose: (code: UInt16, reason: String)?
    private var isFinished = false
    private var isOpen = false
    private var negotiatedCompression = false

    // The I/O thread only.
    private let wakeFD: Int32
    private let wakeWriteFD: Int32
    var tls: TLSConnection?
    private var processor: WebSocketInboundProcessor?
    var inbound: [UInt8] = []
    var readBuffer = [UInt8](repeating: 0, count: 64 * 1024)

    /// Creates a connection; nothing happens on the network until `open()`.
    ///
    /// - Parameters:
    ///   - endpoint: the server URL.
    ///   - options: the connection settings.
    public init(endpoint: RollcallEndpoint, options: RollcallConnectionOptions = RollcallConnectionOptions()) {
        self.endpoint = endpoint
        self.options = options
        var pipeFDs: [Int32] = [-1, -1]
        if pipe(&pipeFDs) == 0 {
            for fd in pipeFDs {
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            }
        }
        self.wakeFD = pipeFDs[0]
        self.wakeWriteFD = pipeFDs[1]
    }

    deinit {
        if self.socket >= 0 { Glibc.close(self.socket) }
        if self.wakeFD >= 0 { Glibc.close(self.wakeFD) }
        if self.wakeWriteFD >= 0 { Glibc.close(self.wakeWriteFD) }
    }

    /// Whether the server agreed to permessage-deflate.
    public var isCompressionNegotiated: Bool { self.lock.withLock { self.negotiatedCompression } }

    /// Whether the upgrade completed and the connection has not ended.
    public var isConnected: Bool { self.lock.withLock { self.isOpen && !self.isFinished } }

    // MARK: Any thread

    /// Queues a text message.
    ///
    /// - Parameters:
    ///   - text: the message.
    /// - Throws: `RollcallError` when the connection is not open or the send queue is full.
    public func send(text: String) throws(RollcallError) {
        var payload = Array(text.utf8)
        try self.enqueue(opcode: .text, payload: &payload)
    }

    /// Starts the close handshake; `run` returns once the server answers or `closeTimeout` passes.
    ///
    /// - Parameters:
    ///   - code: the close code; default 1000.
    ///   - reason: a short reason.
    public func close(code: UInt16 = 1000, reason: String = "") {
        self.lock.withLock {
            if self.requestedClose == nil { self.requestedClose = (code, reason) }
        }
        self.wake()
    }

    /// Drops the TCP connection at once, without a close handshake, as a network failure would.
    public func abort() {
        self.lock.withLock {
            if self.socket >= 0 { _ = Glibc.shutdown(self.socket, Int32(SHUT_RDWR)) }
        }
        self.wake()
    }

    private func enqueue(opcode: WebSocketOpcode, payload: inout [UInt8]) throws(RollcallError) {
        let key = WebSocketMaskingKey(word: UInt32.random(in: .min ... .max))
        let frame = payload.withUnsafeBytes {
            WebSocketFrameEncoder.encode(opcode: opcode, payload: $0, maskingKey: key).bytes
        }
        let error: RollcallError? = self.lock.withLock {
            guard self.isOpen, !self.isFinished, self.requestedClose == nil else { return RollcallError(.notConnected) }
            guard self.queuedBytes + frame.count <= self.options.maximumQueuedBytes else {
                return RollcallError(.sendQueueFull)
            }
            self.outbound.append(frame)
            self.queuedBytes += frame.count
            return nil
        }
        if let error { throw error }
        self.wake()
    }

    private func wake() {
        var one: UInt8 = 1
        _ = Glibc.write(self.wakeWriteFD, &one, 1)
    }

    // MARK: The I/O thread

    /// Connects, completes TLS for `wss`, and performs the WebSocket upgrade.
    ///
    /// - Throws: `RollcallError` when any step fails or the whole takes longer than `connectTimeout`.
    public func open() throws(RollcallError) {
        guard self.wakeFD >= 0 else { throw RollcallError(.transport("eventfd failed: errno \(errno)")) }
        let deadline = MonotonicClock.now() + self.options.connectTimeout
        let address = try Self.resolve(self.endpoint)
        let fd: Int32
        do {
            fd = try Socket.connect(to: address)
        } catch {
            throw RollcallError(.transport("connect to \(address): \(error)"))
        }
        self.lock.withLock { self.socket = fd }
        guard try self.waitFor(Int16(POLLOUT), until: deadline) else {
            throw RollcallError(.timedOut("the TCP connection to \(address)"))
        }
        let pending = Socket.pendingError(fd)
        guard pending == 0 else {
            throw RollcallError(.transport("connect to \(address): \(String(cString: strerror(pending)))"))
        }
        Socket.setNoDelay(fd)
        if self.endpoint.isSecure {
            try self.completeTLSHandshake(until: deadline)
        }
        let handshake = WebSocketClientHandshake(keyBytes: (0..<16).map { _ in UInt8.random(in: .min ... .max) })
        let request: [UInt8]
        do {
            request = try handshake.request(
                target: self.endpoint.requestTarget,
                host: self.endpoint.hostHeader,
                extensions: self.options.offersCompression ? PerMessageDeflateClientParameters.offerHeaderValue : nil,
                headers: self.options.extraHeaders
            )
        } catch {
            throw RollcallError(.invalidEndpoint(error.description))
        }
        try self.writeAll(request, until: deadline)
        let head = try self.readResponseHead(until: deadline)
        let inflater: PerMessageInflater?
        do {
            // Client messages go out uncompressed, so only the inflater for server messages is needed.
            inflater = try handshake.validate(head, offeredCompression: self.options.offersCompression)
                .compression?.makeInflater()
        } catch {
            throw RollcallError(.handshake(error.description))
        }
        self.processor = WebSocketInboundProcessor(
            limits: self.options.limits,
            inflater: inflater,
            expectsMaskedFrames: false
        )
        self.lock.withLock {
            self.isOpen = true
            self.negotiatedCompression = inflater != nil
        }
    }

    /// Runs the connection until it ends: delivers text messages, answers pings, sends queued messages, and
    /// completes the close handshake.
    ///
    /// - Parameters:
    ///   - onText: called with each text message, on this thread.
    ///   - onTick: called at least every 100 ms, on this thread (for the owner's timers).
    /// - Returns: how the connection ended. The socket is closed when this returns.
    @discardableResult
    public func run(onText: (String) -> Void, onTick: () -> Void = {}) -> RollcallCloseInfo {
        let result = self.loop(onText: onText, onTick: onTick)
        self.finish()
        return result
    }

    /// Closes the socket and refuses further sends; for an `open()` that failed as well as after `run`.
    public func finish() {
        let fd: Int32 = self.lock.withLock {
            self.isFinished = true
            self.outbound = []
            self.queuedBytes = 0
            let fd = self.socket
            self.socket = -1
            return fd
        }
        if fd >= 0 { Glibc.close(fd) }
    }

    private enum Inbound {
        case text(String)
        case ping([UInt8])
        case pong([UInt8])
        case close(WebSocketCloseCode?, String)
        case violation(WebSocketProtocolViolation)
    }

    /// The session while `run` runs: its rules, the close this side asked for, and how it ended once the close
    /// handshake completed (returned when the server closes the TCP connection, or after the close timeout).
    private struct Session {
        var machine: WebSocketSessionStateMachine
        var localClose: (code: UInt16, reason: String)?
        var ending: RollcallCloseInfo?
    }

    /// The state machine's clock: monotonic milliseconds.
    private static func milliseconds(_ seconds: Double = MonotonicClock.now()) -> UInt64 {
        UInt64(max(0, seconds * 1000).rounded())
    }

    private func loop(onText: (String) -> Void, onTick: () -> Void) -> RollcallCloseInfo {
        guard self.processor != nil else {
            return RollcallCloseInfo(code: nil, reason: "not open", wasClean: false, initiatedLocally: true)
        }
        let timeouts = WebSocketSessionStateMachine.Timeouts(
            pingInterval: Self.milliseconds(self.options.pingInterval),
            pongTimeout: Self.milliseconds(self.options.pongTimeout),
            idleTimeout: 0,
            closeTimeout: Self.milliseconds(self.options.closeTimeout)
        )
        var session = Session(
            machine: WebSocketSessionStateMachine(role: .client, timeouts: timeouts, now: Self.milliseconds())
        )
        // Bytes already received after the upgrade response.
        if !self.inbound.isEmpty, let info = self.processInbound(onText: onText, &session) {
            return info
        }
        while true {
            // Queued messages, then a requested close.
            let (frames, close) = self.lock.withLock {
                let frames = self.outbound
                self.outbound = []
                self.queuedBytes = 0
                return (frames, self.requestedClose)
            }
            do {
                let deadline = MonotonicClock.now() + self.options.writeTimeout
                for frame in frames { try self.writeAll(frame, until: deadline) }
                if let close, session.machine.isOpen {
                    session.localClose = close
                    let code = WebSocketCloseCode(rawValue: close.code)
                    let action = session.machine.close(code: code, reason: close.reason, now: Self.milliseconds())
                    try self.perform(action, until: deadline)
                }
            } catch {
                return RollcallCloseInfo(
                    code: nil, reason: error.description, wasClean: false,
                    initiatedLocally: session.localClose != nil)
            }
            onTick()
            switch session.machine.timerFired(now: Self.milliseconds()) {
            case .closeSocket(.close):
                return session.ending
                    ?? RollcallCloseInfo(
                        code: session.localClose?.code, reason: session.localClose?.reason ?? "", wasClean: false,
                        initiatedLocally: true)
            case .closeSocket(.pong):
                return RollcallCloseInfo(
                    code: nil, reason: "no answer to a ping", wasClean: false, initiatedLocally: true)
            case let action:
                try? self.perform(action, until: MonotonicClock.now() + self.options.writeTimeout)
            }
            let fd = self.lock.withLock { self.socket }
            guard fd >= 0 else {
                return RollcallCloseInfo(code: nil, reason: "socket closed", wasClean: false, initiatedLocally: true)
            }
            var fds = [
                pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
                pollfd(fd: self.wakeFD, events: Int16(POLLIN), revents: 0),
            ]
            let ready = Glibc.poll(&fds, 2, 100)
            if ready < 0 && errno != EINTR {
                return RollcallCloseInfo(code: nil, reason: "poll failed", wasClean: false, initiatedLocally: false)
            }
            if fds[1].revents != 0 {
                var drained = [UInt8](repeating: 0, count: 64)
                _ = Glibc.read(self.wakeFD, &drained, drained.count)
            }
            guard fds[0].revents != 0 else { continue }
            let received: Bool
            do {
                received = try self.receive()
            } catch {
                return session.ending
                    ?? RollcallCloseInfo(
                        code: nil, reason: error.description, wasClean: false,
                        initiatedLocally: session.localClose != nil)
            }
            guard received else {
                // End of stream: the server closing after the close handshake, or dropping the connection without
                // one (or after our Close, when it did not answer).
                return session.ending
                    ?? RollcallCloseInfo(
                        code: session.localClose?.code, reason: session.localClose?.reason ?? "connection dropped",
                        wasClean: false, initiatedLocally: session.localClose != nil)
            }
            session.machine.receivedData(now: Self.milliseconds())
            if let info = self.processInbound(onText: onText, &session) {
                return info
            }
        }
    }

    /// Decodes buffered bytes and acts on them; returns how the connection ended when it failed. A completed close
    /// handshake is kept in `session.ending` until the server closes the TCP connection.
    private func processInbound(onText: (String) -> Void, _ session: inout Session) -> RollcallCloseInfo? {
        var events: [Inbound] = []
        let progress = self.inbound.withUnsafeMutableBytes { buffer in
            self.processor!.process(buffer) { event in
                switch event {
                case .text(let bytes): events.append(.text(String(decoding: bytes, as: UTF8.self)))
                case .binary: break
                case .ping(let bytes): events.append(.ping(Array(bytes)))
                case .pong(let bytes): events.append(.pong(Array(bytes)))
                case .close(let code, let reason): events.append(.close(code, String(decoding: reason, as: UTF8.self)))
                case .violation(let violation): events.append(.violation(violation))
                }
            }
        }
        self.inbound.removeFirst(progress.consumed)
        let deadline = MonotonicClock.now() + self.options.writeTimeout
        for event in events {
            let now = Self.milliseconds()
            switch event {
            case .text(let text):
                if session.machine.receivedMessage(now: now) { onText(text) }
            case .ping(let payload):
                payload.withUnsafeBytes { bytes in
                    let action = session.machine.receivedPing(bytes)
                    try? self.perform(action, until: deadline)
                }
            case .pong(let payload):
                _ = payload.withUnsafeBytes { session.machine.receivedPong($0) }
            case .close(let code, let reason):
                let initiatedLocally = session.localClose != nil
                try? self.perform(session.machine.receivedClose(code: code, now: now), until: deadline)
                session.ending = RollcallCloseInfo(
                    code: initiatedLocally ? (session.localClose?.code ?? code?.rawValue) : code?.rawValue,
                    reason: reason, wasClean: true, initiatedLocally: initiatedLocally)
            case .violation(let violation):
                try? self.perform(session.machine.receivedViolation(violation, now: now), until: deadline)
                return RollcallCloseInfo(
                    code: violation.closeCode.rawValue, reason: violation.description,
                    wasClean: false, initiatedLocally: true)
            }
        }
        return nil
    }

    /// Writes the frame an action of the session state machine calls for, masked with a fresh key.
    private func perform(_ action: WebSocketSessionStateMachine.Action, until deadline: Double) throws(RollcallError) {
        let key = WebSocketMaskingKey(word: UInt32.random(in: .min ... .max))
        let frame: WebSocketOutboundFrame
        switch action {
        case .doNothing, .closeSocket:
            return
        case .sendPong(let payload):
            frame = WebSocketFrameEncoder.encode(opcode: .pong, payload: payload, maskingKey: key)
        case .sendPing:
            frame = WebSocketFrameEncoder.encode(
                opcode: .ping, payload: UnsafeRawBufferPointer(start: nil, count: 0), maskingKey: key)
        case .sendClose(let code, let reason):
            frame = WebSocketFrameEncoder.encodeClose(code: code, reason: reason, maskingKey: key)
        }
        try self.writeAll(frame.bytes, until: deadline)
    }
}

#endif
