import EventIO

/// One HTTP/1.1 connection to a webhook receiver on a non-blocking socket, plain or through EventIO's TLS engine,
/// driven by the delivery loop: a non-blocking connect, the TLS handshake (the receiver's certificate and name are
/// checked by the engine's context), one request at a time, and its answer read through `WebhookResponseReader`.
///
/// Reports through its callbacks, on the loop; after `close()`, or after it reported a failure, it reports nothing.
final class WebhookConnection: EventLoopHandler {
    /// Where the connection stands.
    enum Phase {
        case connecting
        case handshaking
        case open
        case closed
    }

    /// The connection is ready for a request (connected, and the TLS handshake done).
    var onOpen: (() -> Void)?
    /// The answer to the request arrived: its status, and whether the connection may carry another request.
    var onAnswer: ((_ status: Int, _ keepAlive: Bool) -> Void)?
    /// The connection failed or the receiver closed it; `answerStarted` says whether part of an answer came.
    var onClose: ((_ reason: String, _ answerStarted: Bool) -> Void)?

    private(set) var phase = Phase.connecting
    private let loop: EventLoop
    private let tls: TLSConnection?
    private let authority: String
    private let maximumHeadBytes: Int
    private let maximumBodyBytes: Int
    private var fd: Int32 = -1
    private var output: [UInt8] = []
    private var outputStart = 0
    private var plaintext: [UInt8] = []
    private var plaintextStart = 0
    private var watchingWritable = true
    private var reader: WebhookResponseReader?

    /// - Parameters:
    ///   - loop: the delivery loop.
    ///   - tlsContext: the client context for `https://` receivers; nil for plain HTTP.
    ///   - serverName: the URL's host: sent as SNI (unless it is an address) and checked against the certificate.
    ///   - authority: `host:port`, for messages.
    ///   - maximumHeadBytes: the largest answer head.
    ///   - maximumBodyBytes: the largest answer body read to keep the connection.
    /// - Throws: `TLSError` when the engine cannot be made for the server name.
    init(
        loop: EventLoop, tlsContext: TLSContext?, serverName: String, authority: String, maximumHeadBytes: Int,
        maximumBodyBytes: Int
    ) throws(TLSError) {
        self.loop = loop
        self.tls = try tlsContext.map { context throws(TLSError) in
            try TLSConnection(context: context, serverName: serverName)
        }
        self.authority = authority
        self.maximumHeadBytes = maximumHeadBytes
        self.maximumBodyBytes = maximumBodyBytes
    }

    /// Whether a request may be sent now: open, and no answer awaited.
    var isIdle: Bool { self.phase == .open && self.reader == nil }

    /// Starts the non-blocking connect; `onOpen` or `onClose` follows.
    ///
    /// - Parameter address: the receiver.
    func start(to address: SocketAddress) throws(IOError) {
        self.fd = try Socket.connect(to: address)
        Socket.setNoDelay(self.fd)
        do {
            try self.loop.register(self.fd, for: [.writable, .readable], handler: self)
        } catch {
            Socket.close(self.fd)
            self.fd = -1
            self.phase = .closed
            throw error
        }
    }

    /// Sends a request; `onAnswer` or `onClose` follows. Call only while `isIdle`.
    ///
    /// - Parameter request: the request's bytes, head and body.
    func send(_ request: [UInt8]) {
        guard self.isIdle else { return }
        self.reader = WebhookResponseReader(
            maximumHeadBytes: self.maximumHeadBytes, maximumBodyBytes: self.maximumBodyBytes)
        if self.tls != nil {
            self.plaintext = request
            self.plaintextStart = 0
            self.encrypt()
        } else {
            self.output += request
        }
        self.writePending()
    }

    /// Closes the socket without reporting anything.
    func close() {
        guard self.phase != .closed else { return }
        self.phase = .closed
        if self.fd >= 0 {
            self.loop.deregister(self.fd)
            Socket.close(self.fd)
            self.fd = -1
        }
        self.output = []
        self.plaintext = []
        self.reader = nil
    }

    // MARK: Events

    func handleEvents(_ events: EventSet) {
        guard self.fd >= 0 else { return }
        if self.phase == .connecting {
            guard !events.isDisjoint(with: [.writable, .error, .hangup]) else { return }
            let error = Socket.pendingError(self.fd)
            guard error == 0 else {
                self.fail("cannot connect to \(self.authority): \(IOError(errnoCode: error, function: "connect"))")
                return
            }
            guard let tls = self.tls else {
                self.phase = .open
                self.watchWritable(false)
                self.onOpen?()
                return
            }
            self.phase = .handshaking
            self.advanceHandshake(tls)
            return
        }
        if events.contains(.writable) {
            self.writePending()
            guard self.fd >= 0 else { return }
        }
        if !events.isDisjoint(with: [.readable, .readHangup, .hangup, .error]) {
            self.readAvailable()
        }
    }

    private func advanceHandshake(_ tls: TLSConnection) {
        let state: TLSHandshakeState
        do {
            state = try tls.advanceHandshake()
        } catch {
            self.fail("TLS handshake with \(self.authority) failed: \(error)")
            return
        }
        tls.takeCiphertext(into: &self.output)
        self.writePending()
        guard self.fd >= 0, state == .complete, self.phase == .handshaking else { return }
        self.phase = .open
        self.onOpen?()
    }

    private func readAvailable() {
        let buffer = self.loop.receiveBuffer
        for _ in 0..<8 {
            guard self.fd >= 0 else { return }
            let result: IOResult<Int>
            do {
                result = try Socket.read(self.fd, into: buffer)
            } catch {
                self.fail("receive from \(self.authority) failed: \(error)")
                return
            }
            guard case .processed(let count) = result else { return }
            guard count > 0 else {
                self.closedByPeer()
                return
            }
            let bytes = UnsafeRawBufferPointer(rebasing: buffer[0..<count])
            if let tls = self.tls {
                tls.receiveCiphertext(bytes)
                if self.phase == .handshaking {
                    self.advanceHandshake(tls)
                    guard self.fd >= 0, self.phase == .open else { continue }
                }
                self.decrypt(tls)
            } else {
                self.deliver(bytes)
            }
            if count < buffer.count { return }
        }
    }

    private func decrypt(_ tls: TLSConnection) {
        let scratch = self.loop.scratchBuffer
        while self.fd >= 0 {
            let result: TLSReadResult
            do {
                result = try tls.readPlaintext(into: scratch)
            } catch {
                self.fail("TLS with \(self.authority) failed: \(error)")
                return
            }
            // Records the engine wrote while reading (alerts, key updates) go out too.
            if tls.hasPendingCiphertext {
                tls.takeCiphertext(into: &self.output)
                self.writePending()
            }
            switch result {
            case .bytes(let count): self.deliver(UnsafeRawBufferPointer(rebasing: scratch[0..<count]))
            case .wouldBlock: return
            case .closed:
                self.closedByPeer()
                return
            }
        }
    }

    /// Answer bytes: to the reader while an answer is awaited; anything while idle ends the connection.
    private func deliver(_ bytes: UnsafeRawBufferPointer) {
        guard var reader = self.reader else {
            self.fail("the receiver sent bytes nobody asked for")
            return
        }
        let outcome = reader.feed(bytes)
        self.reader = reader
        switch outcome {
        case .incomplete:
            return
        case .complete(let status, let keepAlive):
            self.reader = nil
            self.onAnswer?(status, keepAlive)
        case .failed(let message):
            self.fail(message)
        }
    }

    private func closedByPeer() {
        guard var reader = self.reader else {
            self.fail("the receiver closed the connection")
            return
        }
        guard case .failed(let message) = reader.finish() else { return }
        self.fail(message)
    }

    private func fail(_ reason: String) {
        let started = self.reader?.hasStarted ?? false
        self.close()
        self.onClose?(reason, started)
    }

    // MARK: Writing

    /// Encrypts as much of the request as the engine takes now.
    private func encrypt() {
        guard let tls = self.tls else { return }
        while self.plaintextStart < self.plaintext.count {
            let start = self.plaintextStart
            let accepted: Int
            do {
                accepted = try self.plaintext.withUnsafeBytes { bytes throws(TLSError) in
                    try tls.writePlaintext(UnsafeRawBufferPointer(rebasing: bytes[start...]))
                }
            } catch {
                self.fail("TLS with \(self.authority) failed: \(error)")
                return
            }
            tls.takeCiphertext(into: &self.output)
            guard accepted > 0 else { return }
            self.plaintextStart += accepted
        }
        self.plaintext = []
        self.plaintextStart = 0
    }

    private func writePending() {
        while self.fd >= 0 {
            while self.outputStart < self.output.count {
                let start = self.outputStart
                let result: IOResult<Int>
                do {
                    result = try self.output.withUnsafeBytes { bytes throws(IOError) in
                        try Socket.send(self.fd, UnsafeRawBufferPointer(rebasing: bytes[start...]))
                    }
                } catch {
                    self.fail("send to \(self.authority) failed: \(error)")
                    return
                }
                guard case .processed(let written) = result else {
                    self.watchWritable(true)
                    return
                }
                self.outputStart += written
            }
            self.output.removeAll(keepingCapacity: self.output.capacity <= 256 * 1024)
            self.outputStart = 0
            let before = self.plaintextStart
            guard before < self.plaintext.count else { break }
            self.encrypt()
            guard self.plaintextStart > before || !self.output.isEmpty else { break }
        }
        self.watchWritable(self.phase == .connecting)
    }

    private func watchWritable(_ watch: Bool) {
        guard watch != self.watchingWritable, self.fd >= 0 else { return }
        self.watchingWritable = watch
        self.loop.modify(self.fd, for: watch ? [.readable, .writable] : [.readable])
    }
}

@available(*, unavailable) extension WebhookConnection: Sendable {}
