import EventIO
import WebSocketCore
import WebSocketDeflate

/// One client socket, from the first byte of its handshake to the end of its close handshake.
///
/// A connection lives on one event loop and is touched only from that loop's thread. Bytes are read into the
/// loop's shared buffer; only the bytes of an unfinished frame are copied into the connection, so an idle
/// connection holds no receive buffer. Output goes through a bounded write queue flushed once per loop iteration.
///
/// Its state is one `Phase`, each case with the data only that phase needs; the WebSocket session's rules (pongs,
/// keep-alive pings, the close handshake and its timeouts) are a `WebSocketSessionStateMachine` inside the session
/// phase, and this class does the I/O its actions call for. The work is split by job: reading and dispatching
/// input (`+Input`), the opening handshake (`+Handshake`), plain HTTP requests (`+HTTP`), the WebSocket session
/// (`+Session`), output (`+Output`) and timers and shutdown (`+Timers`).
public final class WebSocketConnection {
    /// The loop this connection lives on.
    public let loop: EventLoop
    /// The client's address.
    public let remoteAddress: SocketAddress?
    /// Whether the connection came in over TLS.
    public let isSecure: Bool
    /// The path the client upgraded on.
    public internal(set) var path: String = ""
    /// The query string of the upgrade request.
    public internal(set) var query: String?
    /// The negotiated subprotocol.
    public internal(set) var subprotocol: String?
    /// The request head of the upgrade (headers such as `Authorization` for the layers above).
    public internal(set) var requestHead: HTTPRequestHead?
    /// Free for the endpoint's own per-connection state.
    public var userData: AnyObject?
    /// Whether the write queue is under its high watermark.
    public internal(set) var isWritable = true
    /// The permessage-deflate parameters agreed in the upgrade; nil when the connection runs uncompressed. Set before
    /// the endpoint hears of the connection and never changed after.
    public internal(set) var compression: PerMessageDeflateParameters?

    let fd: Int32
    /// The loop's server state. Not reference counted: the server loop owns its connections and closes every one
    /// of them before it goes away, and a closed connection never touches it again (every use is guarded by the
    /// phase). A checked `unowned` reference cost a strong retain and release on each message.
    unowned(unsafe) let server: ServerLoop
    /// The loop's counters, kept here so the per-message path does not go through `server`.
    let statistics: LoopStatistics
    var registryIndex = -1
    /// Where the connection is in its life, with that phase's data. Changed with `enter(_:)`, which gives back the
    /// handshake slot once the handshake is over; a phase's data is updated in place.
    var phase: Phase
    /// Whether this connection still counts against the pending-handshake and per-address limits.
    var holdsHandshakeSlot = true
    var holdsAddressSlot = true
    var tls: TLSConnection?
    /// Whether `compression` is set, for the per-message path: testing the optional copies the parameters.
    var agreedCompression = false

    // Input: the bytes of an unfinished request head or frame, and the size of the frame whose header arrived
    // without all of its payload.
    var pending: [UInt8] = []
    var expectedFrameSize: Int?

    // Output.
    var outbound = OutboundQueue()
    var isFlushScheduled = false
    /// Whether anything was written since the last sweep; a connection that wrote nothing gives back the write
    /// queue's reusable buffers, so idle connections hold none.
    var wroteSinceSweep = false
    var isWatchingWritability = false

    /// When the connection was accepted, in the loop's monotonic nanoseconds (for the handshake timeout).
    let createdAt: UInt64

    // The write queue's bounds, read on every enqueue and flush: copied out of the server's configuration once,
    // since reading them through it copies (retains and releases) the whole configuration each time.
    let writeQueueLimit: Int
    let writeQueueHighWatermark: Int
    let writeQueueLowWatermark: Int

    init(fd: Int32, remoteAddress: SocketAddress?, tls: TLSConnection?, server: ServerLoop) {
        self.fd = fd
        self.remoteAddress = remoteAddress
        self.tls = tls
        self.isSecure = tls != nil
        self.server = server
        self.statistics = server.loopStatistics
        self.loop = server.loop
        let configuration = server.configuration
        self.phase = tls == nil ? .readingRequest(HTTPRequestParser(limits: configuration.httpLimits)) : .tlsHandshake
        self.writeQueueLimit = configuration.writeQueueLimit
        self.writeQueueHighWatermark = configuration.writeQueueHighWatermark
        self.writeQueueLowWatermark = configuration.writeQueueLowWatermark
        self.createdAt = server.loop.now
    }

    /// Moves to another phase; leaving the handshake (for any phase but the two handshake phases) gives back the
    /// pending-handshake slot.
    ///
    /// - Parameter phase: the new phase, with its data.
    func enter(_ phase: Phase) {
        self.phase = phase
        if self.holdsHandshakeSlot && !phase.isHandshake {
            self.holdsHandshakeSlot = false
            self.server.admission.handshakeEnded()
        }
    }

    /// Gives back the admission slots this connection holds (once; the loop calls it when the connection ends).
    func releaseAdmission() {
        if self.holdsHandshakeSlot {
            self.holdsHandshakeSlot = false
            self.server.admission.handshakeEnded()
        }
        if self.holdsAddressSlot {
            self.holdsAddressSlot = false
            self.server.admission.connectionClosed(self.remoteAddress)
        }
    }

    // MARK: Teardown

    /// Closes the socket at once (the shutdown grace period is over).
    func abandon() {
        self.closeSocket()
    }

    /// Closes the socket after a failure of the transport (read, write, TLS).
    ///
    /// - Parameter detail: what failed, for the close reason when none was recorded yet.
    func abort(detail: String) {
        if let session = self.phase.session, session.closeReason == nil {
            session.closeReason = WebSocketCloseReason(code: .abnormalClosure, initiatedByServer: false, detail: detail)
        }
        self.closeSocket()
    }

    /// Closes the socket now, dropping queued output, and tells the endpoint when the connection was open.
    func closeSocket() {
        let previous = self.phase
        if case .closed = previous { return }
        self.enter(.closed)
        self.outbound.removeAll()
        self.pending = []
        self.tls = nil
        self.loop.deregister(self.fd)
        Socket.close(self.fd)
        self.server.connectionDidClose(self)
        if case .session(let session) = previous {
            let reason =
                session.closeReason
                ?? WebSocketCloseReason(code: .abnormalClosure, initiatedByServer: false, detail: "connection lost")
            session.endpoint.connectionDidClose(self, reason: reason)
        }
    }
}

extension WebSocketConnection: EventLoopHandler, EventLoopFlushable {
    /// Called by the event loop at the end of an iteration to write queued output; not for endpoints.
    public func flush() {
        self.flushNow()
    }
}

@available(*, unavailable)
extension WebSocketConnection: Sendable {}
