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
/// An idle open connection is two compact records, this object (104 bytes) and its session (88 bytes): what is
/// the same for every connection (limits, timeouts, the message rate, the write queue's bounds) is held once by
/// the server, what the upgrade agreed (path, endpoint, subprotocol) is one `Agreement` shared by the connections
/// that agreed the same, the request head is not kept past `connectionDidOpen`, and buffers, the frame decoder and
/// the write queue's storage are attached only while a partial frame or message is being read or unsent bytes
/// wait.
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
    /// Free for the endpoint's own per-connection state.
    public var userData: AnyObject?
    /// What the upgrade agreed (path, endpoint, subprotocol, compression), behind one reference shared by the
    /// connections that agreed the same; nil before the upgrade.
    var agreement: Agreement?
    /// The TLS engine and the bytes of an unfinished frame, while there are any (see `Extras`).
    var extras: Extras?
    /// Output, its storage attached while bytes are queued and for as long as the connection keeps writing.
    var outbound = OutboundQueue()
    // The 37 bytes of small fields fill the last five words, packed by alignment: the address (19 bytes,
    // 8-aligned), the descriptor in the rest of its third word, the phase (9 bytes) with the flags beside its tag,
    // and the list index in the rest of that word.
    /// The client's address.
    public let remoteAddress: SocketAddress?
    let fd: Int32
    /// Where the connection is in its life, with that phase's data. Changed with `enter(_:)`, which gives back the
    /// handshake slot once the handshake is over; a phase's data is updated in place.
    var phase: Phase
    /// The connection's yes-or-no state in one byte beside the phase (see `WebSocketConnection+Flags`).
    var flags: Flags = [.isWritable, .holdsHandshakeSlot, .holdsAddressSlot]
    /// The connection's place in its server loop's list.
    var registryIndex: Int32 = -1

    init(fd: Int32, remoteAddress: SocketAddress?, tls: TLSConnection?, server: ServerLoop) {
        self.fd = fd
        self.remoteAddress = remoteAddress
        if let tls { self.extras = Extras(tls: tls) }
        if tls != nil { self.flags.insert(.isSecure) }
        self.server = server
        self.loop = server.loop
        let handshake = Handshake(limits: server.configuration.httpLimits, startedAt: server.loop.now)
        self.phase = tls == nil ? .readingRequest(handshake) : .tlsHandshake(handshake)
    }

    /// The permessage-deflate parameters agreed in the upgrade; nil when the connection runs uncompressed. Set before
    /// the endpoint hears of the connection and never changed after.
    /// The loop's counters (read through `server`, which is not reference counted).
    var statistics: LoopStatistics { self.server.loopStatistics }

    public var compression: PerMessageDeflateParameters? { self.agreement?.compression }

    /// The path the client upgraded on; empty before the upgrade. Never changed after it.
    public var path: String { self.agreement?.path ?? "" }

    /// The negotiated subprotocol, nil when none was agreed. Set before the endpoint hears of the connection and
    /// never changed after.
    public var subprotocol: String? { self.agreement?.subprotocol }

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
        self.tls = nil
        self.loop.deregister(self.fd)
        Socket.close(self.fd)
        self.server.connectionDidClose(self)
        if case .session(let session) = previous {
            let reason =
                session.closeReason
                ?? WebSocketCloseReason(code: .abnormalClosure, initiatedByServer: false, detail: "connection lost")
            self.agreement?.endpoint.connectionDidClose(self, reason: reason)
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
