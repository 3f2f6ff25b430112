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
/// compressed server messages are inflated when permessage-deflate was agreed. Pings go out after
/// `pingInterval` seconds of silence, and a connection that stays silent `pongTimeout` seconds longer is lost.
public final class RollcallConnection: @unchecked Sendable {
    /// Where the connection goes.
    public let endpoint: RollcallEndpoint
    /// Its settings.
    public let options: RollcallConnectionOptions

    // Shared with other threads, under `lock`.
    private let lock = NSLock()
    private var socket: Int32 = -1
    private var outbound: [[UInt8]] = []
    private var queuedBytes = 0
    private var requestedClose: (code: UInt16, reason: String)?
    private var isFinished = false
    private var isOpen = false
    private var negotiatedCompression = false

    // The I/O thread only.
    private let wakeFD: Int32
    private let wakeWriteFD: Int32
    private var tls: TLSConnection?
    private var processor: WebSocketInboundProcessor?
    private var inbound: [UInt8] = []
    private var readBuffer = [UInt8](repeating: 0, count: 64 * 1024)
    private var closeSent = false

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
        let keyBytes = (0..<16).map { _ in UInt8.random(in: .min ... .max) }
        let key = Base64.encode(keyBytes)
        var request = "GET \(self.endpoint.requestTarget) HTTP/1.1\r\n"
        request += "Host: \(self.endpoint.hostHeader)\r\n"
        request += "Upgrade: websocket\r\nConnection: Upgrade\r\n"
        request += "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n"
        if self.options.offersCompression {
            request += "Sec-WebSocket-Extensions: \(PerMessageDeflateClientParameters.offerHeaderValue)\r\n"
        }
        for (name, value) in self.options.extraHeaders {
            guard !name.contains(where: { $0 == "\r" || $0 == "\n" || $0 == ":" }),
                !value.contains(where: { $0 == "\r" || $0 == "\n" })
            else { throw RollcallError(.invalidEndpoint("header field \(name) holds a line break")) }
            request += "\(name): \(value)\r\n"
        }
        request += "\r\n"
        try self.writeAll(Array(request.utf8), until: deadline)
        let head = try self.readResponseHead(until: deadline)
        guard let response = UpgradeResponse(head: head) else {
            throw RollcallError(.handshake("malformed HTTP response"))
        }
        let inflater = try response.validate(key: key, offeredCompression: self.options.offersCompression)
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
        case pong
        case close(UInt16?, String)
        case violation(WebSocketProtocolViolation)
    }

    private func loop(onText: (String) -> Void, onTick: () -> Void) -> RollcallCloseInfo {
        guard self.processor != nil else {
            return RollcallCloseInfo(code: nil, reason: "not open", wasClean: false, initiatedLocally: true)
        }
        var lastReceived = MonotonicClock.now()
        var pingSent = false
        var closeSentAt: Double?
        var localClose: (UInt16, String)?
        // Bytes already received after the upgrade response.
        if !self.inbound.isEmpty, let info = self.processInbound(onText: onText, &localClose) {
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
                if let close, !self.closeSent {
                    localClose = close
                    try self.sendClose(code: close.code, reason: close.reason, until: deadline)
                    closeSentAt = MonotonicClock.now()
                }
            } catch {
                return RollcallCloseInfo(
                    code: nil, reason: error.description, wasClean: false,
                    initiatedLocally: localClose != nil)
            }
            onTick()
            let now = MonotonicClock.now()
            if let closeSentAt, now - closeSentAt > self.options.closeTimeout {
                return RollcallCloseInfo(
                    code: localClose?.0, reason: localClose?.1 ?? "", wasClean: false,
                    initiatedLocally: true)
            }
            if self.options.pingInterval > 0 && closeSentAt == nil {
                let silence = now - lastReceived
                if pingSent && silence > self.options.pingInterval + self.options.pongTimeout {
                    return RollcallCloseInfo(
                        code: nil, reason: "no answer to a ping", wasClean: false,
                        initiatedLocally: true)
                }
                if !pingSent && silence > self.options.pingInterval {
                    var empty: [UInt8] = []
                    try? self.enqueueControl(.ping, payload: &empty)
                    pingSent = true
                }
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
                return RollcallCloseInfo(
                    code: nil, reason: error.description, wasClean: false,
                    initiatedLocally: localClose != nil)
            }
            guard received else {
                // End of stream without a Close frame (or after ours, when the server dropped it).
                return RollcallCloseInfo(
                    code: localClose?.0, reason: localClose?.1 ?? "connection dropped",
                    wasClean: false, initiatedLocally: localClose != nil)
            }
            lastReceived = MonotonicClock.now()
            pingSent = false
            if let info = self.processInbound(onText: onText, &localClose) {
                return info
            }
        }
    }

    /// Decodes buffered bytes; returns how the connection ended when a Close frame or a violation arrived.
    private func processInbound(onText: (String) -> Void, _ localClose: inout (UInt16, String)?) -> RollcallCloseInfo? {
        var events: [Inbound] = []
        let progress = self.inbound.withUnsafeMutableBytes { buffer in
            self.processor!.process(buffer) { event in
                switch event {
                case .text(let bytes): events.append(.text(String(decoding: bytes, as: UTF8.self)))
                case .binary: break
                case .ping(let bytes): events.append(.ping(Array(bytes)))
                case .pong: events.append(.pong)
                case .close(let code, let reason):
                    events.append(.close(code?.rawValue, String(decoding: reason, as: UTF8.self)))
                case .violation(let violation): events.append(.violation(violation))
                }
            }
        }
        self.inbound.removeFirst(progress.consumed)
        let deadline = MonotonicClock.now() + self.options.writeTimeout
        for event in events {
            switch event {
            case .text(let text):
                onText(text)
            case .ping(var payload):
                try? self.enqueueControl(.pong, payload: &payload)
            case .pong:
                break
            case .close(let code, let reason):
                let initiatedLocally = self.closeSent
                if !self.closeSent {
                    try? self.sendClose(code: code ?? 1000, reason: "", until: deadline)
                }
                return RollcallCloseInfo(
                    code: initiatedLocally ? (localClose?.0 ?? code) : code, reason: reason,
                    wasClean: true, initiatedLocally: initiatedLocally)
            case .violation(let violation):
                try? self.sendClose(code: violation.closeCode.rawValue, reason: violation.description, until: deadline)
                return RollcallCloseInfo(
                    code: violation.closeCode.rawValue, reason: violation.description,
                    wasClean: false, initiatedLocally: true)
            }
        }
        return nil
    }

    /// Queues a control frame on the I/O thread, even after a close was requested (pongs, pings).
    private func enqueueControl(_ opcode: WebSocketOpcode, payload: inout [UInt8]) throws(RollcallError) {
        let key = WebSocketMaskingKey(word: UInt32.random(in: .min ... .max))
        let frame = payload.withUnsafeBytes {
            WebSocketFrameEncoder.encode(opcode: opcode, payload: $0, maskingKey: key).bytes
        }
        guard !self.closeSent else { return }
        try self.writeAll(frame, until: MonotonicClock.now() + self.options.writeTimeout)
    }

    private func sendClose(code: UInt16, reason: String, until deadline: Double) throws(RollcallError) {
        guard !self.closeSent else { return }
        self.closeSent = true
        var payload: [UInt8] = [UInt8(code >> 8), UInt8(code & 0xFF)]
        var reasonBytes = Array(reason.utf8.prefix(123))
        while let last = reasonBytes.last, last & 0xC0 == 0x80 || last >= 0xC0 { reasonBytes.removeLast() }
        payload += reasonBytes
        let key = WebSocketMaskingKey(word: UInt32.random(in: .min ... .max))
        let frame = payload.withUnsafeBytes {
            WebSocketFrameEncoder.encode(opcode: .connectionClose, payload: $0, maskingKey: key).bytes
        }
        try self.writeAll(frame, until: deadline)
    }

    // MARK: Socket and TLS

    private var fd: Int32 { self.lock.withLock { self.socket } }

    /// Waits until the socket is ready for `events`; false on timeout.
    private func waitFor(_ events: Int16, until deadline: Double) throws(RollcallError) -> Bool {
        let fd = self.fd
        guard fd >= 0 else { throw RollcallError(.transport("the socket is closed")) }
        while true {
            let remaining = deadline - MonotonicClock.now()
            guard remaining > 0 else { return false }
            var descriptor = pollfd(fd: fd, events: events, revents: 0)
            let result = Glibc.poll(&descriptor, 1, Int32(min(remaining * 1000, 1000)) + 1)
            if result < 0 {
                if errno == EINTR { continue }
                throw RollcallError(.transport("poll failed: errno \(errno)"))
            }
            if result > 0 { return true }
        }
    }

    /// Writes bytes to the socket, encrypting them first over TLS.
    private func writeAll(_ bytes: [UInt8], until deadline: Double) throws(RollcallError) {
        guard let tls = self.tls else {
            try self.writeRaw(bytes, until: deadline)
            return
        }
        var offset = 0
        while offset < bytes.count {
            let written: Int
            do {
                written = try bytes.withUnsafeBytes { buffer throws(TLSError) in
                    try tls.writePlaintext(UnsafeRawBufferPointer(rebasing: buffer[offset...]))
                }
            } catch {
                throw RollcallError(.transport("TLS: \(error)"))
            }
            offset += written
            try self.flushCiphertext(until: deadline)
            if written == 0 && !tls.hasPendingCiphertext && MonotonicClock.now() > deadline {
                throw RollcallError(.timedOut("a TLS write"))
            }
        }
    }

    private func flushCiphertext(until deadline: Double) throws(RollcallError) {
        guard let tls = self.tls else { return }
        while tls.hasPendingCiphertext {
            var ciphertext: [UInt8] = []
            _ = tls.takeCiphertext(into: &ciphertext)
            try self.writeRaw(ciphertext, until: deadline)
        }
    }

    private func writeRaw(_ bytes: [UInt8], until deadline: Double) throws(RollcallError) {
        var offset = 0
        while offset < bytes.count {
            let fd = self.fd
            guard fd >= 0 else { throw RollcallError(.transport("the socket is closed")) }
            let result: IOResult<Int>
            do {
                result = try bytes.withUnsafeBytes { buffer throws(IOError) in
                    try Socket.write(fd, UnsafeRawBufferPointer(rebasing: buffer[offset...]))
                }
            } catch {
                throw RollcallError(.transport(String(describing: error)))
            }
            switch result {
            case .processed(let count):
                offset += count
            case .wouldBlock:
                guard try self.waitFor(Int16(POLLOUT), until: deadline) else {
                    throw RollcallError(.timedOut("the socket to accept data"))
                }
            }
        }
    }

    /// Reads what is available into `inbound` (decrypted over TLS); false at end of stream.
    private func receive() throws(RollcallError) -> Bool {
        let fd = self.fd
        guard fd >= 0 else { return false }
        let result: IOResult<Int>
        do {
            result = try self.readBuffer.withUnsafeMutableBytes { buffer throws(IOError) in
                try Socket.read(fd, into: buffer)
            }
        } catch {
            if let error = error as? IOError, error.errnoCode == ECONNRESET || error.errnoCode == EPIPE { return false }
            throw RollcallError(.transport(String(describing: error)))
        }
        guard case .processed(let count) = result else { return true }
        guard count > 0 else { return false }
        guard let tls = self.tls else {
            self.inbound.append(contentsOf: self.readBuffer[0..<count])
            return true
        }
        self.readBuffer.withUnsafeBytes { tls.receiveCiphertext(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
        var plaintext = [UInt8](repeating: 0, count: 16 * 1024)
        var open = true
        drain: while true {
            let read: TLSReadResult
            do {
                read = try plaintext.withUnsafeMutableBytes { buffer throws(TLSError) in
                    try tls.readPlaintext(into: buffer)
                }
            } catch {
                throw RollcallError(.transport("TLS: \(error)"))
            }
            switch read {
            case .bytes(let count): self.inbound.append(contentsOf: plaintext[0..<count])
            case .wouldBlock: break drain
            case .closed:
                open = false
                break drain
            }
        }
        try self.flushCiphertext(until: MonotonicClock.now() + self.options.writeTimeout)
        return open || !self.inbound.isEmpty
    }

    private func completeTLSHandshake(until deadline: Double) throws(RollcallError) {
        let context: TLSContext
        if let given = self.options.tlsContext {
            context = given
        } else {
            do {
                context = try TLSContext.makeClient(verifyPeer: true, trustedCertificatePath: nil)
            } catch {
                throw RollcallError(.transport("TLS: \(error)"))
            }
        }
        let tls: TLSConnection
        do {
            tls = try TLSConnection(context: context, serverName: self.options.tlsServerName ?? self.endpoint.host)
        } catch {
            throw RollcallError(.transport("TLS: \(error)"))
        }
        self.tls = tls
        while true {
            let state: TLSHandshakeState
            do {
                state = try tls.advanceHandshake()
            } catch {
                try? self.flushCiphertext(until: deadline)
                throw RollcallError(.transport("TLS handshake: \(error)"))
            }
            try self.flushCiphertext(until: deadline)
            if state == .complete { return }
            guard try self.waitFor(Int16(POLLIN), until: deadline) else {
                throw RollcallError(.timedOut("the TLS handshake"))
            }
            let fd = self.fd
            let result: IOResult<Int>
            do {
                result = try self.readBuffer.withUnsafeMutableBytes { buffer throws(IOError) in
                    try Socket.read(fd, into: buffer)
                }
            } catch {
                throw RollcallError(.transport("TLS handshake: \(error)"))
            }
            if case .processed(let count) = result {
                guard count > 0 else { throw RollcallError(.transport("the server closed during the TLS handshake")) }
                self.readBuffer.withUnsafeBytes {
                    tls.receiveCiphertext(UnsafeRawBufferPointer(rebasing: $0[0..<count]))
                }
            }
        }
    }

    /// Reads up to the blank line that ends the response head; later bytes stay in `inbound`.
    private func readResponseHead(until deadline: Double) throws(RollcallError) -> [UInt8] {
        let terminator: [UInt8] = [13, 10, 13, 10]
        var searchFrom = 0
        while true {
            if self.inbound.count >= 4 {
                var index = max(0, searchFrom - 3)
                while index + 4 <= self.inbound.count {
                    if self.inbound[index] == 13 && Array(self.inbound[index..<index + 4]) == terminator {
                        let head = Array(self.inbound[0..<index])
                        self.inbound.removeFirst(index + 4)
                        return head
                    }
                    index += 1
                }
                searchFrom = self.inbound.count
            }
            guard self.inbound.count <= 16 * 1024 else {
                throw RollcallError(.handshake("the response head is larger than 16 KiB"))
            }
            guard try self.waitFor(Int16(POLLIN), until: deadline) else {
                throw RollcallError(.timedOut("the upgrade response"))
            }
            guard try self.receive() else {
                throw RollcallError(.handshake("the server closed the connection before answering the upgrade"))
            }
        }
    }

    /// The socket address of an endpoint: numeric addresses directly, names through the resolver.
    static func resolve(_ endpoint: RollcallEndpoint) throws(RollcallError) -> SocketAddress {
        let port = UInt16(clamping: endpoint.port)
        if let address = SocketAddress(ipv4: endpoint.host, port: port)
            ?? SocketAddress(ipv6: endpoint.host, port: port)
        {
            return address
        }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(endpoint.host, nil, &hints, &list) == 0, let first = list else {
            throw RollcallError(.transport("cannot resolve \(endpoint.host)"))
        }
        defer { freeaddrinfo(list) }
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            if current.pointee.ai_family == AF_INET, let raw = current.pointee.ai_addr {
                var address = UnsafeRawPointer(raw).load(as: sockaddr_in.self).sin_addr
                inet_ntop(AF_INET, &address, &text, socklen_t(text.count))
                if let result = SocketAddress(ipv4: String(cString: text), port: port) { return result }
            } else if current.pointee.ai_family == AF_INET6, let raw = current.pointee.ai_addr {
                var address = UnsafeRawPointer(raw).load(as: sockaddr_in6.self).sin6_addr
                inet_ntop(AF_INET6, &address, &text, socklen_t(text.count))
                if let result = SocketAddress(ipv6: String(cString: text), port: port) { return result }
            }
            entry = current.pointee.ai_next
        }
        throw RollcallError(.transport("no address for \(endpoint.host)"))
    }
}
