import EventIO
import HTTPCore
import WebSocketCore
import WebSocketDeflate

/// One client socket, from the first byte of its handshake to the end of its close handshake.
///
/// A connection lives on one event loop and is touched only from that loop's thread. Bytes are read into the
/// loop's shared buffer; only the bytes of an unfinished frame are copied into the connection, so an idle
/// connection holds no receive buffer. Output goes through a bounded write queue flushed once per loop iteration;
/// its storage is given back once the connection stops writing.
///
/// An idle open connection is two compact records, this object and its session (about 200 bytes each): what
/// is the same for every connection (limits, timeouts, the message rate, the write queue's bounds) is held once
/// by the server, the request head is not kept past `connectionDidOpen`, and buffers are attached only while a
/// partial frame or message is being read or unsent bytes wait.
///
/// Its state is one `Phase`, each case with the data only that phase needs; the WebSocket session's rules (pongs,
/// keep-alive pings, the close handshake and its timeouts) are a `WebSocketSessionStateMachine` inside the session
/// phase, and this class does the I/O its actions call for. The work is split by job: reading and dispatching
/// input (`+Input`), the opening handshake (`+Handshake`), plain HTTP requests (`+HTTP`), the WebSocket session
/// (`+Session`), output (`+Output`) and timers and shutdown (`+Timers`).
public final class WebSocketConnection {
    // The fields are ordered so that the small ones share words: the object is one of the two records an idle
    // connection costs.

    /// The loop this connection lives on.
    public let loop: EventLoop
    /// The loop's server state. Not reference counted: the server loop owns its connections and closes every one
    /// of them before it goes away, and a closed connection never touches it again (every use is guarded by the
    /// phase). A checked `unowned` reference cost a strong retain and release on each message.
    unowned(unsafe) let server: ServerLoop
    /// The loop's counters, kept here so the per-message path does not go through `server` (whose fields could
    /// only be read with a retain and a release).
    let statistics: LoopStatistics
    /// The client's address.
    public let remoteAddress: SocketAddress?
    /// The path the client upgraded on.
    public internal(set) var path: String = ""
    /// The negotiated subprotocol.
    public internal(set) var subprotocol: String?
    /// Free for the endpoint's own per-connection state.
    public var userData: AnyObject?
    /// The agreed permessage-deflate parameters, behind one reference: nil (a word) while uncompressed.
    var compressionParameters: CompressionParameters?
    var tls: TLSConnection?
    /// The bytes of an unfinished request head or frame.
    var pending: [UInt8] = []
    /// Output, its storage attached while bytes are queued and for as long as the connection keeps writing. Its
    /// last word holds one byte; the flags below start in the rest of it.
    var outbound = OutboundQueue()
    /// Whether the connection came in over TLS.
    public let isSecure: Bool
    /// Whether the write queue is under its high watermark.
    public internal(set) var isWritable = true
    /// Whether this connection still counts against the pending-handshake and per-address limits.
    var holdsHandshakeSlot = true
    var holdsAddressSlot = true
    /// Whether `compression` is set, for the per-message path.
    var agreedCompression = false
    var isFlushScheduled = false
    /// Whether anything was written since the last sweep; a connection that wrote nothing gives back the write
    /// queue's reusable buffers, so idle connections hold none.
    var wroteSinceSweep = false
    /// Where the connection is in its life, with that phase's data. Changed with `enter(_:)`, which gives back the
    /// handshake slot once the handshake is over; a phase's data is updated in place.
    var phase: Phase
    /// In the byte after the phase's tag.
    var isWatchingWritability = false
    let fd: Int32
    /// The connection's place in its server loop's list.
    var registryIndex: Int32 = -1
    /// The size of the frame whose header arrived without all of its payload (0 when not known), a hint for the
    /// capacity of `pending`: four bytes, cut to `UInt32.max`.
    var expectedFrameSize: UInt32 = 0

    init(fd: Int32, remoteAddress: SocketAddress?, tls: TLSConnection?, server: ServerLoop) {
        self.fd = fd
        self.remoteAddress = remoteAddress
        self.tls = tls
        self.isSecure = tls != nil
        self.server = server
        self.statistics = server.loopStatistics
        self.loop = server.loop
        let handshake = Handshake(limits: server.configuration.httpLimits, startedAt: server.loop.now)
        self.phase = tls == nil ? .readingRequest(handshake) : .tlsHandshake(handshake)
    }

    /// The permessage-deflate parameters agreed in the upgrade; nil when the connection runs uncompressed. Set before
    /// the endpoint hears of the connection and never changed after.
    public var compression: PerMessageDeflateParameters? { self.compressionParameters?.parameters }

    /// The head of the upgrade request (headers such as `Authorization`), while the endpoint's `connectionDidOpen`
    /// runs; nil before and after it. An open connection keeps no copy of its request, so an idle one costs less:
    /// read what you need from it there.
    public var requestHead: HTTPRequestHead? {
        guard !self.phase.isClosed, let opening = self.server.opening, opening.connection == ObjectIdentifier(self)
        else { return nil }
        return opening.head
    }

    /// The query string of the upgrade request, while the endpoint's `connectionDidOpen` runs (see `requestHead`).
    public var query: String? { self.requestHead?.query }

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
        self.expectedFrameSize = 0
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
