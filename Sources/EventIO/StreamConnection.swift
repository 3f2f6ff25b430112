/// One client byte stream on an event loop: a non-blocking TCP connect, optionally TLS through `TLSConnection`,
/// reads handed to a delegate, and a write queue (`OutboundQueue`) flushed at the end of each loop iteration.
///
/// Everything happens on the loop's thread. The delegate gets the bytes of each read straight from the loop's
/// receive buffer (over TLS, from its scratch buffer); what it leaves unused is kept, up to a bound, and handed to it
/// again with the next bytes behind it, so a partial reply or frame costs no copy until it is split across reads.
/// Writes made during one iteration leave together when it ends (over TLS, encrypted then). Both directions are
/// bounded (`StreamConnectionOptions`); idle connections keep no buffers beyond small reusable ones.
///
/// The Redis client, the webhooks' HTTP client and the load generator's WebSocket connections run on it.
public final class StreamConnection: EventLoopHandler, EventLoopFlushable {
    /// Where the connection stands.
    public enum Phase: Sendable {
        /// Created; `connect` not called yet (nothing can be written yet).
        case idle
        /// The TCP connect is under way.
        case connecting
        /// Connected; the TLS handshake is under way.
        case handshaking
        /// Ready: bytes flow both ways.
        case open
        /// Closed, by `close` or by the end the delegate was told of.
        case closed
    }

    /// Told of the connection's events. From `connect` until the connection closes it is kept alive too, as the loop
    /// keeps the connection, so an owner that lets go of an open connection still has it end by its own rules.
    public weak var delegate: (any StreamConnectionDelegate)?
    /// The delegate while the socket is open.
    private var delegateWhileOpen: (any StreamConnectionDelegate)?
    /// The loop the connection runs on.
    public let loop: EventLoop
    /// Where the connection stands.
    public private(set) var phase = Phase.idle
    /// The TLS engine, or nil for plain TCP.
    private(set) var tls: TLSConnection?
    let options: StreamConnectionOptions
    var fd: Int32 = -1
    /// Bytes for the socket (over TLS, ciphertext).
    var outbound = OutboundQueue()
    /// Over TLS: bytes written and not yet encrypted, from `plaintextStart` on.
    var plaintext: [UInt8] = []
    var plaintextStart = 0
    /// Encoded bytes on their way into `outbound` (`write(encoding:)` on plain TCP), kept for reuse.
    var staging: [UInt8] = []
    /// Bytes the delegate left unused, handed to it again with the next read.
    var buffered: [UInt8] = []
    var isFlushScheduled = false
    var isWatchingWritable = true
    /// Set when a write passed `maximumQueuedBytes`; the connection fails at the next flush.
    var isOverQueueLimit = false

    /// Buffers larger than this are given back once empty, rather than kept for reuse.
    static let retainedBufferCapacity = 64 * 1024

    /// - Parameters:
    ///   - loop: the loop the connection runs on; call everything on its thread.
    ///   - options: bounds and the statistics to count into.
    public init(loop: EventLoop, options: StreamConnectionOptions = StreamConnectionOptions()) {
        self.loop = loop
        self.options = options
    }

    deinit {
        if self.fd >= 0 {
            self.loop.deregister(self.fd)
            Socket.close(self.fd)
        }
    }

    /// Bytes written and not yet taken by the socket (over TLS, plaintext not yet encrypted and ciphertext).
    public var queuedByteCount: Int { self.outbound.byteCount + self.plaintext.count - self.plaintextStart }

    /// Starts the non-blocking connect; the delegate hears `streamConnectionDidOpen` or the end. Call once, before
    /// any write.
    ///
    /// - Parameters:
    ///   - address: the peer.
    ///   - source: a local address to bind first (port 0 picks one), or nil.
    ///   - tls: a client TLS engine for this connection (its context decides how the peer is checked), or nil for
    ///     plain TCP.
    /// - Throws: `IOError` when the socket cannot be made or the connect is refused at once; the connection is
    ///   closed then, and the delegate is not told.
    public func connect(
        to address: SocketAddress, from source: SocketAddress? = nil, tls: TLSConnection? = nil
    ) throws(IOError) {
        precondition(self.phase == .idle, "a stream connection connects once")
        self.phase = .connecting
        self.tls = tls
        self.delegateWhileOpen = self.delegate
        do {
            self.fd = try Socket.connect(to: address, from: source)
            Socket.setNoDelay(self.fd)
            try self.loop.register(self.fd, for: [.writable, .readable], handler: self)
        } catch {
            self.close()
            throw error
        }
    }

    /// Closes the socket at once, dropping what is queued, and tells the delegate nothing more.
    ///
    /// - Parameter reset: whether to end the TCP connection with a reset (RST) instead of a FIN, as a peer that
    ///   vanished from the network would.
    public func close(reset: Bool = false) {
        guard self.phase != .closed else { return }
        self.phase = .closed
        if self.fd >= 0 {
            self.loop.deregister(self.fd)
            if reset { Socket.setResetOnClose(self.fd) }
            Socket.close(self.fd)
            self.fd = -1
        }
        self.outbound.removeAll()
        self.plaintext = []
        self.plaintextStart = 0
        self.staging = []
        self.buffered = []
        self.delegateWhileOpen = nil
    }

    /// Closes the connection and tells the delegate why.
    func end(_ ending: StreamConnectionEnding) {
        guard self.phase != .closed else { return }
        let delegate = self.delegate
        self.close()
        delegate?.streamConnection(self, didEndWith: ending)
    }

    /// Fails the connection with `kind`.
    func fail(_ kind: StreamConnectionError.Kind) {
        self.end(.failed(StreamConnectionError(kind)))
    }

    // MARK: Events

    /// Called by the loop when the socket is ready.
    public func handleEvents(_ events: EventSet) {
        switch self.phase {
        case .connecting:
            guard !events.isDisjoint(with: [.writable, .error, .hangup]) else { return }
            self.finishConnect()
        case .handshaking, .open:
            if events.contains(.writable) {
                self.flush()
                guard self.phase != .closed else { return }
            }
            if !events.isDisjoint(with: [.readable, .readHangup, .hangup, .error]) {
                self.readAvailable()
            }
        case .idle, .closed:
            return
        }
    }

    /// The connect finished: fail, start the TLS handshake, or open.
    private func finishConnect() {
        let error = Socket.pendingError(self.fd)
        guard error == 0 else {
            self.fail(.connect(IOError(errnoCode: error, function: "connect")))
            return
        }
        if let tls = self.tls {
            self.phase = .handshaking
            self.advanceHandshake(tls)
            return
        }
        self.open()
    }

    /// Reports the connection ready and sends what was written before.
    func open() {
        self.phase = .open
        self.delegate?.streamConnectionDidOpen(self)
        guard self.phase == .open else { return }
        self.flush()
    }
}

@available(*, unavailable)
extension StreamConnection: Sendable {}
