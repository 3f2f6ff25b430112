/// Where a client's connection to the gateway stands, with what each stage holds: one value under the client's lock,
/// so a stage's data lives exactly as long as the stage (a transport while one is open, the connect waiter until
/// the first welcome, the close's waiters while it closes) and no mix of them can be held.
///
/// The transitions are pure: the client's thread and its public methods call them under the lock and act on what
/// they return (publish a status, resume a waiter, close a transport) after releasing it.
enum ConnectionState {
    /// `connect()` was not called.
    case idle
    /// A connection attempt: the token asked for, the transport opening, or the welcome awaited.
    case connecting(Attempt)
    /// Welcomed: requests go out over the transport.
    case open(Link)
    /// The connection dropped; the client waits `delay` seconds before attempt `attempt` of the reconnect policy.
    case reconnecting(attempt: Int, delay: Double)
    /// Ending for good (`close()` was called, or the last connection ended without another to come).
    case closing(Closing)
    /// Closed for good, with how the last connection ended.
    case closed(RollcallCloseInfo?)

    /// Resumes `connect()`.
    typealias ConnectWaiter = @Sendable (Result<Void, RollcallError>) -> Void

    /// One connection attempt, before its welcome.
    struct Attempt {
        /// The first connection, whose `connect()` waits; or attempt `n` of the reconnect policy.
        enum Purpose {
            case first(ConnectWaiter)
            case reconnect(attempt: Int)
        }

        var purpose: Purpose
        /// The transport and its inbox, once made (the token comes first).
        var transport: (any RollcallTransport)?
        var inbox: TransportInbox?
        /// When a welcome is overdue (monotonic seconds): infinity until the transport opens.
        var welcomeDeadline = Double.infinity
        /// Why the gateway refused the session, when it did (an error without a request, or no welcome in time).
        var authenticationFailure: RollcallError?

        init(_ purpose: Purpose) {
            self.purpose = purpose
        }
    }

    /// A welcomed connection.
    struct Link {
        var transport: any RollcallTransport
        var inbox: TransportInbox
        /// When to ask the token provider for the next token (monotonic seconds).
        var refreshAt: Double
    }

    /// A client ending for good.
    struct Closing {
        /// The status shown until it is closed.
        var status: RollcallClientStatus
        /// The transport still running, to drop on `dropConnection()`.
        var transport: (any RollcallTransport)?
        /// The first connection's waiter, when `close()` came before the welcome.
        var connectWaiter: ConnectWaiter?
        /// The `close()` calls waiting for the end.
        var finishWaiters: [@Sendable () -> Void] = []
    }

    /// The status the public API shows.
    var status: RollcallClientStatus {
        switch self {
        case .idle: return .idle
        case .connecting(let attempt):
            switch attempt.purpose {
            case .first: return .connecting
            case .reconnect(let number): return .reconnecting(attempt: number)
            }
        case .open: return .connected
        case .reconnecting(let attempt, _): return .reconnecting(attempt: attempt)
        case .closing(let closing): return closing.status
        case .closed(let info): return .closed(info)
        }
    }

    /// The transport of the current connection, opening or open.
    var transport: (any RollcallTransport)? {
        switch self {
        case .connecting(let attempt): return attempt.transport
        case .open(let link): return link.transport
        case .closing(let closing): return closing.transport
        case .idle, .reconnecting, .closed: return nil
        }
    }

    /// The open connection's transport, over which requests go; nil before the welcome and once closing.
    var welcomedTransport: (any RollcallTransport)? {
        if case .open(let link) = self { return link.transport }
        return nil
    }

    /// Whether the current attempt reconnects after an earlier connection was welcomed.
    var isReconnectAttempt: Bool {
        guard case .connecting(let attempt) = self, case .reconnect = attempt.purpose else { return false }
        return true
    }

    /// Whether `close()` was called or the client is ending anyway.
    var isEnding: Bool {
        switch self {
        case .closing, .closed: return true
        case .idle, .connecting, .open, .reconnecting: return false
        }
    }

    // MARK: Transitions

    /// `connect()`: starts the first attempt; false when it was called before.
    mutating func start(_ waiter: @escaping ConnectWaiter) -> Bool {
        guard case .idle = self else { return false }
        self = .connecting(Attempt(.first(waiter)))
        return true
    }

    /// The attempt's transport was made; false when the client is ending (the transport is not to be started).
    mutating func attach(_ transport: any RollcallTransport, inbox: TransportInbox) -> Bool {
        guard case .connecting(var attempt) = self else { return false }
        attempt.transport = transport
        attempt.inbox = inbox
        attempt.welcomeDeadline = .infinity
        attempt.authenticationFailure = nil
        self = .connecting(attempt)
        return true
    }

    /// The transport opened: the welcome is due by `deadline`.
    mutating func opened(welcomeBy deadline: Double) {
        guard case .connecting(var attempt) = self else { return }
        attempt.welcomeDeadline = deadline
        self = .connecting(attempt)
    }

    /// What a welcome did.
    struct Welcome {
        /// Whether it opened the connection (false for the answer to a token refresh).
        var isFirst: Bool
        /// The `connect()` to resume, after the first connection's welcome.
        var connectWaiter: ConnectWaiter?
    }

    /// A `welcome` arrived: the attempt becomes an open connection; an open one keeps going (a refresh's answer).
    /// Nil when there is nothing to welcome (the client is ending).
    mutating func welcomed(refreshAt: Double) -> Welcome? {
        switch self {
        case .connecting(let attempt):
            guard let transport = attempt.transport, let inbox = attempt.inbox else { return nil }
            self = .open(Link(transport: transport, inbox: inbox, refreshAt: refreshAt))
            if case .first(let waiter) = attempt.purpose { return Welcome(isFirst: true, connectWaiter: waiter) }
            return Welcome(isFirst: true, connectWaiter: nil)
        case .open(var link):
            link.refreshAt = refreshAt
            self = .open(link)
            return Welcome(isFirst: false, connectWaiter: nil)
        case .idle, .reconnecting, .closing, .closed:
            return nil
        }
    }

    /// The gateway refused the session before the welcome (an error that answers no request).
    mutating func refused(_ error: RollcallError) {
        guard case .connecting(var attempt) = self else { return }
        attempt.authenticationFailure = error
        self = .connecting(attempt)
    }

    /// Checks the welcome's deadline: the transport to close when the welcome is overdue (once).
    mutating func overdueWelcome(now: Double) -> (any RollcallTransport)? {
        guard case .connecting(var attempt) = self, now > attempt.welcomeDeadline else { return nil }
        attempt.welcomeDeadline = .infinity
        attempt.authenticationFailure = RollcallError(.timedOut("the welcome"))
        self = .connecting(attempt)
        return attempt.transport
    }

    /// When the open connection should refresh its token; infinity when none is open.
    var refreshAt: Double {
        if case .open(let link) = self { return link.refreshAt }
        return .infinity
    }

    /// Moves the open connection's next token refresh.
    mutating func refresh(at time: Double) {
        guard case .open(var link) = self else { return }
        link.refreshAt = time
        self = .open(link)
    }

    /// What the end of a connection leads to.
    enum Next: Equatable {
        /// Wait `delay` seconds, then make attempt `attempt`.
        case reconnect(attempt: Int, delay: Double)
        /// End the client.
        case finish
    }

    /// How a connection ended, for the client's thread.
    struct Ending {
        /// Whether it had been welcomed.
        var wasOpen: Bool
        /// What comes next.
        var next: Next
        /// The first connection's `connect()`, to fail with `authenticationFailure` or the close.
        var connectWaiter: ConnectWaiter?
        /// Why the gateway refused the session, when it did.
        var authenticationFailure: RollcallError?
    }

    /// The current connection ended (or its attempt failed), closed with `code` when a Close came: decides between
    /// another attempt (`.reconnecting`) and the end (`.closing`). The first connection is not retried, a final close
    /// code (4001–4005) ends the client, and so do more attempts in a row than the policy allows.
    mutating func connectionEnded(code: UInt16?, policy: RollcallReconnectPolicy) -> Ending {
        let status = self.status
        switch self {
        case .connecting(let attempt):
            switch attempt.purpose {
            case .first(let waiter):
                self = .closing(Closing(status: status))
                return Ending(
                    wasOpen: false, next: .finish, connectWaiter: waiter,
                    authenticationFailure: attempt.authenticationFailure)
            case .reconnect(let number):
                let next = self.afterDrop(attempt: number + 1, code: code, policy: policy, status: status)
                return Ending(
                    wasOpen: false, next: next, connectWaiter: nil,
                    authenticationFailure: attempt.authenticationFailure)
            }
        case .open:
            let next = self.afterDrop(attempt: 1, code: code, policy: policy, status: status)
            return Ending(wasOpen: true, next: next, connectWaiter: nil, authenticationFailure: nil)
        case .closing(var closing):
            // Whether `close()` came after the welcome (a client ending for good has no connection left).
            let wasOpen = closing.transport != nil && status == .connected
            closing.transport = nil
            self = .closing(closing)
            return Ending(wasOpen: wasOpen, next: .finish, connectWaiter: nil, authenticationFailure: nil)
        case .idle, .reconnecting, .closed:
            return Ending(wasOpen: false, next: .finish, connectWaiter: nil, authenticationFailure: nil)
        }
    }

    private mutating func afterDrop(
        attempt: Int, code: UInt16?, policy: RollcallReconnectPolicy, status: RollcallClientStatus
    ) -> Next {
        let isFinal = code.flatMap(RollcallCloseCode.init(rawValue:))?.isFinal == true
        guard !isFinal, attempt <= policy.maximumAttempts else {
            self = .closing(Closing(status: status))
            return .finish
        }
        let delay = policy.delay(beforeAttempt: attempt)
        self = .reconnecting(attempt: attempt, delay: delay)
        return .reconnect(attempt: attempt, delay: delay)
    }

    /// The wait before a reconnect is over: the attempt starts; false when the client is ending.
    mutating func beginReconnect() -> Bool {
        guard case .reconnecting(let attempt, _) = self else { return false }
        self = .connecting(Attempt(.reconnect(attempt: attempt)))
        return true
    }

    /// What `close()` has to do.
    enum CloseRequest {
        /// Nothing ran: closed at once, and the status is to be published.
        case closedIdle
        /// The client's thread ends the connection; `transport` (if any) gets a Close, and the caller waits.
        case wait(transport: (any RollcallTransport)?, inbox: TransportInbox?)
        /// Closed already.
        case closedAlready
    }

    /// `close()`: the client starts ending; `waiter` is called once it is closed (not for `closedIdle` or
    /// `closedAlready`, which the caller handles at once).
    mutating func requestClose(_ waiter: @escaping @Sendable () -> Void) -> CloseRequest {
        let status = self.status
        switch self {
        case .idle:
            self = .closed(nil)
            return .closedIdle
        case .connecting(let attempt):
            var waiting: ConnectWaiter?
            if case .first(let connectWaiter) = attempt.purpose { waiting = connectWaiter }
            self = .closing(
                Closing(
                    status: status, transport: attempt.transport, connectWaiter: waiting, finishWaiters: [waiter]))
            return .wait(transport: attempt.transport, inbox: attempt.inbox)
        case .open(let link):
            self = .closing(Closing(status: status, transport: link.transport, finishWaiters: [waiter]))
            return .wait(transport: link.transport, inbox: link.inbox)
        case .reconnecting:
            self = .closing(Closing(status: status, finishWaiters: [waiter]))
            return .wait(transport: nil, inbox: nil)
        case .closing(var closing):
            closing.finishWaiters.append(waiter)
            self = .closing(closing)
            return .wait(transport: nil, inbox: nil)
        case .closed:
            return .closedAlready
        }
    }

    /// Takes the first connection's waiter out of a client that is ending, to fail it.
    mutating func takeConnectWaiter() -> ConnectWaiter? {
        guard case .closing(var closing) = self else { return nil }
        let waiter = closing.connectWaiter
        closing.connectWaiter = nil
        self = .closing(closing)
        return waiter
    }

    /// Shows the client closed, with how the last connection ended, while its thread finishes the streams.
    mutating func showClosed(_ info: RollcallCloseInfo?) {
        guard case .closing(var closing) = self else { return }
        closing.status = .closed(info)
        self = .closing(closing)
    }

    /// The client's thread ended: closed for good. Returns the `close()` calls to resume.
    mutating func finish(_ info: RollcallCloseInfo?) -> [@Sendable () -> Void] {
        var waiters: [@Sendable () -> Void] = []
        if case .closing(let closing) = self { waiters = closing.finishWaiters }
        self = .closed(info)
        return waiters
    }
}
