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
    /// Connecting, open, closing or finished.
    var state = State.connecting(closeRequested: nil)
    /// The frames `send(text:)` queued for the I/O thread.
    var outbound = SendQueue()

    // The I/O thread only.
    let wakeFD: Int32
    private let wakeWriteFD: Int32
    var tls: TLSConnection?
    var processor: WebSocketInboundProcessor?
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
    public var isCompressionNegotiated: Bool { self.lock.withLock { self.state.isCompressionNegotiated } }

    /// Whether the upgrade completed and the connection has not ended.
    public var isConnected: Bool { self.lock.withLock { self.state.isConnected } }

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
        self.lock.withLock { self.state.requestClose(CloseRequest(code: code, reason: reason)) }
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
            guard self.state.acceptsMessages else { return RollcallError(.notConnected) }
            guard self.outbound.append(frame, limit: self.options.maximumQueuedBytes) else {
                return RollcallError(.sendQueueFull)
            }
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
        self.lock.withLock { self.state.opened(compressed: inflater != nil) }
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
            self.state.finish()
            _ = self.outbound.takeAll()
            let fd = self.socket
            self.socket = -1
            return fd
        }
        if fd >= 0 { Glibc.close(fd) }
    }
}

#endif
