/// The rules of an open WebSocket session, for either end (RFC 6455 §5.5 and §7): pongs for pings, keep-alive pings
/// after a silence, the close handshake in both directions, and the idle, pong and close timeouts.
///
/// It does no I/O and reads no clock. The caller reports what arrived and what time it is, in milliseconds of any
/// monotonic clock, and does what the returned `Action` says; between events it asks `nextDeadline` when to call
/// `timerFired(now:)`. One value per connection, created when the upgrade completes and mutated in place; every
/// state is a plain value, so no event allocates or touches a reference count.
///
/// The roles differ once the close handshake is complete: the server closes the TCP connection as soon as its
/// output is written, while the client waits for the server to close it (§7.1.1), so the TIME_WAIT state stays on
/// the server. A failed connection (a protocol violation) is closed by either end once its Close is written.
public struct WebSocketSessionStateMachine: Sendable {
    /// Which end of the connection this is.
    public enum Role: Hashable, Sendable {
        /// The end that accepted the connection; it closes the TCP connection first.
        case server
        /// The end that opened the connection; it waits for the server to close the TCP connection.
        case client
    }

    /// The session's timers, in milliseconds, each at most `UInt32.max` (about 49 days; longer values are cut to
    /// it). Kept in four bytes each: every connection holds a copy.
    public struct Timeouts: Hashable, Sendable {
        private var ping: UInt32
        private var pong: UInt32
        private var idle: UInt32
        private var close: UInt32

        /// Silence from the peer after which a Ping goes out; 0 sends no pings.
        public var pingInterval: UInt64 {
            get { UInt64(self.ping) }
            set { self.ping = UInt32(clamping: newValue) }
        }
        /// Time for the peer to send anything after our Ping before the connection is dropped.
        public var pongTimeout: UInt64 {
            get { UInt64(self.pong) }
            set { self.pong = UInt32(clamping: newValue) }
        }
        /// Time without a text or binary message from the peer after which we close with 1001; 0 is never.
        public var idleTimeout: UInt64 {
            get { UInt64(self.idle) }
            set { self.idle = UInt32(clamping: newValue) }
        }
        /// Time for the close handshake to finish (and, after it, for the TCP connection to close).
        public var closeTimeout: UInt64 {
            get { UInt64(self.close) }
            set { self.close = UInt32(clamping: newValue) }
        }

        /// - Parameters:
        ///   - pingInterval: silence before a keep-alive Ping, in milliseconds; default 30 s; 0: no pings.
        ///   - pongTimeout: time to answer a Ping, in milliseconds; default 20 s.
        ///   - idleTimeout: time without a message before closing with 1001, in milliseconds; default 0 (never).
        ///   - closeTimeout: time for the close handshake, in milliseconds; default 5 s.
        public init(
            pingInterval: UInt64 = 30_000,
            pongTimeout: UInt64 = 20_000,
            idleTimeout: UInt64 = 0,
            closeTimeout: UInt64 = 5_000
        ) {
            self.ping = UInt32(clamping: pingInterval)
            self.pong = UInt32(clamping: pongTimeout)
            self.idle = UInt32(clamping: idleTimeout)
            self.close = UInt32(clamping: closeTimeout)
        }
    }

    /// The open session's clocks.
    public struct OpenState: Hashable, Sendable {
        /// When the peer last sent anything.
        public var lastReceivedAt: UInt64
        /// When the peer last sent a text or binary message (for the idle timeout).
        public var lastMessageAt: UInt64
        /// When our unanswered Ping went out; nil when none is outstanding.
        public var pingSentAt: UInt64?

        /// - Parameters:
        ///   - lastReceivedAt: when the peer last sent anything.
        ///   - lastMessageAt: when the peer last sent a text or binary message.
        ///   - pingSentAt: when our unanswered Ping went out, or nil.
        public init(lastReceivedAt: UInt64, lastMessageAt: UInt64, pingSentAt: UInt64?) {
            self.lastReceivedAt = lastReceivedAt
            self.lastMessageAt = lastMessageAt
            self.pingSentAt = pingSentAt
        }
    }

    /// Where the session is.
    public enum State: Hashable, Sendable {
        /// Messages flow both ways.
        case open(OpenState)
        /// We sent a Close at this time and wait for the peer's; messages and pings from the peer are dropped.
        case closeSent(at: UInt64)
        /// The session is over (the close handshake completed on the server, or the connection failed) since this
        /// time: close the socket once the output already queued is written.
        case closing(since: UInt64)
        /// The client's close handshake completed at this time; the server is to close the TCP connection.
        case awaitingServerClose(since: UInt64)
        /// The socket is closed.
        case closed
    }

    /// Why the session gives up on the peer without a Close frame.
    public enum Timeout: Hashable, Sendable {
        /// The peer sent nothing for `pongTimeout` after our Ping.
        case pong
        /// The close handshake (or the TCP close after it) did not finish within `closeTimeout`.
        case close
    }

    /// What the caller does for an event.
    public enum Action: Equatable {
        /// Nothing to send or close.
        case doNothing
        /// Send a Pong with this payload, the Ping's (valid as long as the Ping's payload is).
        case sendPong(UnsafeRawBufferPointer)
        /// Send a Ping with an empty payload: the peer has been silent for the ping interval.
        case sendPing
        /// Send a Close frame with this code (nil: an empty Close) and reason. Then `state` says what follows:
        /// `.closeSent` waits for the peer's Close, `.closing` closes the socket once the frame is written.
        case sendClose(code: WebSocketCloseCode?, reason: String)
        /// Close the socket now, dropping queued output.
        case closeSocket(Timeout)

        public static func == (lhs: Action, rhs: Action) -> Bool {
            switch (lhs, rhs) {
            case (.doNothing, .doNothing), (.sendPing, .sendPing):
                return true
            case (.sendPong(let left), .sendPong(let right)):
                return left.elementsEqual(right)
            case (.sendClose(let leftCode, let leftReason), .sendClose(let rightCode, let rightReason)):
                return leftCode == rightCode && leftReason == rightReason
            case (.closeSocket(let left), .closeSocket(let right)):
                return left == right
            default:
                return false
            }
        }
    }

    // One value per connection: the one-byte role goes last, after the state, to share its word.
    /// The timers.
    public let timeouts: Timeouts
    /// Where the session is.
    public private(set) var state: State
    /// Which end this is.
    public let role: Role

    /// Opens a session.
    ///
    /// - Parameters:
    ///   - role: which end this is.
    ///   - timeouts: the timers, in milliseconds.
    ///   - now: the time the upgrade completed, in milliseconds; the ping and idle timers start here.
    public init(role: Role, timeouts: Timeouts, now: UInt64) {
        self.role = role
        self.timeouts = timeouts
        self.state = .open(OpenState(lastReceivedAt: now, lastMessageAt: now, pingSentAt: nil))
    }

    /// Whether messages flow both ways.
    public var isOpen: Bool {
        if case .open = self.state { return true }
        return false
    }

    /// Whether the socket is to be closed once the output already queued is written.
    public var closesSocketOnceWritten: Bool {
        if case .closing = self.state { return true }
        return false
    }

    /// The earliest time at which `timerFired(now:)` has something to do; nil when no timer runs.
    public var nextDeadline: UInt64? {
        switch self.state {
        case .open(let open):
            var deadline: UInt64?
            if self.timeouts.idleTimeout > 0 {
                deadline = open.lastMessageAt &+ self.timeouts.idleTimeout &+ 1
            }
            let keepAlive: UInt64?
            if let pingSentAt = open.pingSentAt {
                keepAlive = pingSentAt &+ self.timeouts.pongTimeout &+ 1
            } else if self.timeouts.pingInterval > 0 {
                keepAlive = open.lastReceivedAt &+ self.timeouts.pingInterval &+ 1
            } else {
                keepAlive = nil
            }
            if let keepAlive { deadline = min(deadline ?? keepAlive, keepAlive) }
            return deadline
        case .closeSent(let since), .closing(let since), .awaitingServerClose(let since):
            return since &+ self.timeouts.closeTimeout &+ 1
        case .closed:
            return nil
        }
    }

    // MARK: Events from the peer

    /// Bytes arrived from the peer: it is alive, so an outstanding Ping counts as answered and the ping interval
    /// starts over.
    ///
    /// - Parameter now: the time, in milliseconds.
    public mutating func receivedData(now: UInt64) {
        guard case .open(var open) = self.state else { return }
        self.state = .closed
        open.lastReceivedAt = now
        open.pingSentAt = nil
        self.state = .open(open)
    }

    /// A whole text or binary message arrived.
    ///
    /// - Parameter now: the time, in milliseconds; the idle timer starts over.
    /// - Returns: whether to deliver the message: not after our Close.
    public mutating func receivedMessage(now: UInt64) -> Bool {
        guard case .open(var open) = self.state else { return false }
        self.state = .closed
        open.lastMessageAt = now
        self.state = .open(open)
        return true
    }

    /// A Ping arrived.
    ///
    /// - Parameter payload: its payload.
    /// - Returns: `.sendPong` with the same payload while open; `.doNothing` after our Close.
    public mutating func receivedPing(_ payload: UnsafeRawBufferPointer) -> Action {
        guard self.isOpen else { return .doNothing }
        return .sendPong(payload)
    }

    /// A Pong arrived. It answers our Ping when one is outstanding and it carries our (empty) payload; any other
    /// Pong is ignored, as RFC 6455 §5.5.3 allows unsolicited ones.
    ///
    /// - Parameter payload: its payload.
    /// - Returns: `.doNothing`: a Pong is never answered.
    public mutating func receivedPong(_ payload: UnsafeRawBufferPointer) -> Action {
        guard case .open(var open) = self.state, open.pingSentAt != nil, payload.isEmpty else { return .doNothing }
        self.state = .closed
        open.pingSentAt = nil
        self.state = .open(open)
        return .doNothing
    }

    /// A valid Close frame arrived.
    ///
    /// - Parameters:
    ///   - code: its code; nil when it carried none.
    ///   - now: the time, in milliseconds.
    /// - Returns: while open, `.sendClose` echoing the code (RFC 6455 §5.5.1; an empty Close for none); after our
    ///   Close, `.doNothing`. Either way the handshake is complete: the server closes the socket once the output is
    ///   written (`.closing`), the client waits for the server to close it (`.awaitingServerClose`).
    public mutating func receivedClose(code: WebSocketCloseCode?, now: UInt64) -> Action {
        switch self.state {
        case .open:
            self.state = self.role == .server ? .closing(since: now) : .awaitingServerClose(since: now)
            return .sendClose(code: code, reason: "")
        case .closeSent(let sentAt):
            self.state = self.role == .server ? .closing(since: sentAt) : .awaitingServerClose(since: sentAt)
            return .doNothing
        case .closing, .awaitingServerClose, .closed:
            return .doNothing
        }
    }

    /// The peer broke the protocol (a bad frame, invalid UTF-8, a message over a limit): the connection fails.
    ///
    /// - Parameters:
    ///   - violation: what it did.
    ///   - now: the time, in milliseconds.
    /// - Returns: while open, `.sendClose` with the violation's code and description; after our Close,
    ///   `.doNothing`. Either way the socket closes once the output is written (`.closing`).
    public mutating func receivedViolation(_ violation: WebSocketProtocolViolation, now: UInt64) -> Action {
        switch self.state {
        case .open:
            self.state = .closing(since: now)
            return .sendClose(code: violation.closeCode, reason: violation.description)
        case .closeSent(let sentAt):
            self.state = .closing(since: sentAt)
            return .doNothing
        case .closing, .awaitingServerClose, .closed:
            return .doNothing
        }
    }

    // MARK: Events from this side

    /// Starts the close handshake from this side.
    ///
    /// - Parameters:
    ///   - code: the code to send; nil sends an empty Close.
    ///   - reason: a short reason.
    ///   - now: the time, in milliseconds; the close timeout starts here.
    /// - Returns: `.sendClose` while open (then `.closeSent`); `.doNothing` once a close has begun.
    public mutating func close(code: WebSocketCloseCode?, reason: String, now: UInt64) -> Action {
        guard self.isOpen else { return .doNothing }
        self.state = .closeSent(at: now)
        return .sendClose(code: code, reason: reason)
    }

    /// Checks the timers; call it at `nextDeadline` or on any periodic sweep.
    ///
    /// While open, the idle timeout comes first (`.sendClose` with 1001 "idle timeout"), then an unanswered Ping
    /// (`.closeSocket(.pong)`), then the ping interval (`.sendPing`). During and after the close handshake, the
    /// close timeout gives `.closeSocket(.close)`.
    ///
    /// - Parameter now: the time, in milliseconds.
    /// - Returns: what to do; `.doNothing` when no timer has run out.
    public mutating func timerFired(now: UInt64) -> Action {
        switch self.state {
        case .open(var open):
            if self.timeouts.idleTimeout > 0, now &- open.lastMessageAt > self.timeouts.idleTimeout {
                self.state = .closeSent(at: now)
                return .sendClose(code: .goingAway, reason: "idle timeout")
            }
            if let pingSentAt = open.pingSentAt {
                guard now &- pingSentAt > self.timeouts.pongTimeout else { return .doNothing }
                self.state = .closed
                return .closeSocket(.pong)
            }
            guard self.timeouts.pingInterval > 0, now &- open.lastReceivedAt > self.timeouts.pingInterval else {
                return .doNothing
            }
            open.pingSentAt = now
            self.state = .open(open)
            return .sendPing
        case .closeSent(let since), .closing(let since), .awaitingServerClose(let since):
            guard now &- since > self.timeouts.closeTimeout else { return .doNothing }
            self.state = .closed
            return .closeSocket(.close)
        case .closed:
            return .doNothing
        }
    }

    /// The socket was closed, by either end or after an action said so; the session takes no more events.
    public mutating func socketClosed() {
        self.state = .closed
    }
}
