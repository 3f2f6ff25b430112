import EventIO
import HTTPCore
import Synchronization

/// The part of the server that lives on one event loop: its listeners, its connections, its endpoints and the
/// periodic sweep that runs their timers.
final class ServerLoop {
    /// Counted transport events, for logs and metrics.
    enum Event {
        case accepted(secure: Bool)
        case closed(secure: Bool)
        case rejectedOverLimit
        case upgraded
        case handshakeRejected(Int)
        case handshakeTimeout
        case tlsHandshakeFailure
        case protocolViolation
        case keepAliveTimeout
        case slowConsumerClosed
        case rejectedPerAddress
        case rejectedPendingHandshakes
        case rateLimited
    }

    let loop: EventLoop
    let configuration: ServerConfiguration
    let statistics: ServerStatistics
    /// This loop's own counters (messages, bytes, connections).
    let loopStatistics: LoopStatistics
    let admission: ConnectionAdmission
    private let tlsContext: TLSContext?
    private var listeners: [Listener] = []
    private var endpoints: [String: any WebSocketEndpoint] = [:]
    private let httpRoutes: [String: HTTPRoute]
    private let prefixRoutes: [HTTPRoute]
    private var connections: [WebSocketConnection] = []
    private var isShuttingDown = false
    private var onDrained: (() -> Void)?

    // Settings every connection reads on its own path, held here once instead of in each connection (reading
    // them through `configuration` would copy, retaining and releasing, the whole configuration).
    /// The write queue's bounds.
    let writeQueueLimit: Int
    let writeQueueHighWatermark: Int
    let writeQueueLowWatermark: Int
    /// The peers' message rate.
    let messageRate: MessageRateLimiter.Rate
    /// The head of the upgrade request while its endpoint's `connectionDidOpen` runs (see
    /// `WebSocketConnection.requestHead`): an open connection keeps no copy of its request.
    private(set) var opening: (connection: ObjectIdentifier, head: HTTPRequestHead)?

    init(
        loop: EventLoop,
        configuration: ServerConfiguration,
        tlsContext: TLSContext?,
        routes: [WebSocketRoute],
        httpRoutes: [HTTPRoute],
        statistics: ServerStatistics,
        admission: ConnectionAdmission
    ) {
        self.loop = loop
        self.configuration = configuration
        self.tlsContext = tlsContext
        self.statistics = statistics
        self.loopStatistics = statistics.loops[max(0, loop.index) % statistics.loops.count]
        self.admission = admission
        self.writeQueueLimit = configuration.writeQueueLimit
        self.writeQueueHighWatermark = configuration.writeQueueHighWatermark
        self.writeQueueLowWatermark = configuration.writeQueueLowWatermark
        self.messageRate = MessageRateLimiter.Rate(
            perSecond: configuration.maximumMessagesPerSecond, burst: configuration.messageBurst)
        for route in routes { self.endpoints[route.path] = route.makeEndpoint(loop.index) }
        let exact = httpRoutes.filter { !$0.matchesSubpaths }
        self.httpRoutes = Dictionary(exact.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        // Longest prefix first, so a more specific route wins.
        self.prefixRoutes = httpRoutes.filter(\.matchesSubpaths).sorted { $0.path.count > $1.path.count }
    }

    /// Starts accepting on the descriptors (one listener per address, owned by this loop).
    func startListening(plain: [Int32], secure: [Int32]) throws(IOError) {
        for fd in plain { try self.addListener(fd, secure: false) }
        for fd in secure { try self.addListener(fd, secure: true) }
        self.scheduleSweep()
    }

    private func addListener(_ fd: Int32, secure: Bool) throws(IOError) {
        let listener = Listener(fd: fd, secure: secure, owner: self)
        try self.loop.register(fd, for: .readable, handler: listener)
        self.listeners.append(listener)
    }

    fileprivate func acceptConnections(from listener: Listener) {
        // A bounded batch per wake-up keeps accepting fair to the connections already open.
        for _ in 0..<64 {
            let accepted: IOResult<(Int32, SocketAddress?)>
            do {
                accepted = try Socket.accept(listener.fd)
            } catch {
                // EMFILE, ENFILE, ENOBUFS and the like: try again on the next wake-up.
                return
            }
            guard case .processed(let (fd, address)) = accepted else { return }
            if self.isShuttingDown
                || self.statistics.openConnections.add(1, ordering: .relaxed).newValue
                    > self.configuration.maximumConnections
            {
                if !self.isShuttingDown { self.statistics.openConnections.subtract(1, ordering: .relaxed) }
                self.count(.rejectedOverLimit)
                Socket.close(fd)
                continue
            }
            if let refusal = self.admission.admit(address) {
                self.statistics.openConnections.subtract(1, ordering: .relaxed)
                self.count(refusal == .tooManyFromAddress ? .rejectedPerAddress : .rejectedPendingHandshakes)
                Socket.close(fd)
                continue
            }
            Socket.setNoDelay(fd)
            var tls: TLSConnection?
            if listener.secure, let context = self.tlsContext {
                tls = try? TLSConnection(context: context)
                if tls == nil {
                    self.statistics.openConnections.subtract(1, ordering: .relaxed)
                    self.admission.handshakeEnded()
                    self.admission.connectionClosed(address)
                    Socket.close(fd)
                    continue
                }
            }
            let connection = WebSocketConnection(fd: fd, remoteAddress: address, tls: tls, server: self)
            do {
                try self.loop.register(fd, for: [.readable, .readHangup], handler: connection)
            } catch {
                self.statistics.openConnections.subtract(1, ordering: .relaxed)
                connection.releaseAdmission()
                Socket.close(fd)
                continue
            }
            connection.registryIndex = Int32(self.connections.count)
            if self.connections.count == self.connections.capacity {
                // Grown by an eighth, not doubled: the array holds one reference per open connection.
                self.connections.reserveCapacity(self.connections.count + max(256, self.connections.count / 8))
            }
            self.connections.append(connection)
            self.loopStatistics.openConnections.add(1, ordering: .relaxed)
            self.count(.accepted(secure: listener.secure))
        }
    }

    func endpoint(forPath path: String) -> (any WebSocketEndpoint)? {
        self.endpoints[path]
    }

    /// Tells `endpoint` that `connection` opened, with the request's head readable meanwhile.
    func open(_ connection: WebSocketConnection, head: HTTPRequestHead, on endpoint: any WebSocketEndpoint) {
        let outer = self.opening
        self.opening = (ObjectIdentifier(connection), head)
        endpoint.connectionDidOpen(connection)
        self.opening = outer
    }

    /// What a plain (non-upgrade) request leads to: a route that takes it, or an answer right away.
    enum HTTPDispatch {
        case route(HTTPRoute)
        case response([UInt8])
    }

    /// Finds the route for a request that is not an upgrade, or the answer when there is none (404, 405, 426).
    func dispatchHTTP(_ head: HTTPRequestHead) -> HTTPDispatch {
        let path = head.path
        if let route = self.httpRoutes[path] ?? self.prefixRoutes.first(where: { $0.serves(path) }) {
            guard route.answers(head.method) else {
                return .response(
                    HTTPResponse.error(
                        .methodNotAllowed, headers: [("Allow", route.allowedMethods.joined(separator: ", "))])
                )
            }
            return .route(route)
        }
        if self.endpoints[path] != nil {
            guard head.hasMethod("GET") || head.hasMethod("HEAD") else {
                return .response(HTTPResponse.error(.methodNotAllowed, headers: [("Allow", "GET, HEAD")]))
            }
            return .response(
                HTTPResponse.error(
                    .upgradeRequired,
                    message: "this path speaks WebSocket",
                    headers: [("Upgrade", "websocket"), ("Sec-WebSocket-Version", "13")]
                )
            )
        }
        return .response(HTTPResponse.error(.notFound))
    }

    func connectionDidClose(_ connection: WebSocketConnection) {
        let index = Int(connection.registryIndex)
        guard index >= 0 else { return }
        let last = self.connections.removeLast()
        if index < self.connections.count {
            self.connections[index] = last
            last.registryIndex = Int32(index)
        }
        connection.registryIndex = -1
        connection.releaseAdmission()
        self.statistics.openConnections.subtract(1, ordering: .relaxed)
        self.loopStatistics.openConnections.subtract(1, ordering: .relaxed)
        self.count(.closed(secure: connection.isSecure))
        if self.isShuttingDown && self.connections.isEmpty { self.finishShutdown() }
    }

    func count(_ event: Event) {
        self.statistics.record(event)
    }

    /// The number of connections on this loop.
    var openConnectionCount: Int { self.connections.count }

    // MARK: Timers

    private var sweepIntervalNanoseconds: UInt64 {
        let configuration = self.configuration
        let candidates = [
            configuration.handshakeTimeoutMilliseconds, configuration.pingIntervalMilliseconds,
            configuration.pongTimeoutMilliseconds, configuration.closeTimeoutMilliseconds,
            configuration.idleTimeoutMilliseconds,
        ].filter { $0 > 0 }
        let shortest = candidates.min() ?? 1000
        return UInt64(min(max(shortest / 4, 10), 500)) * 1_000_000
    }

    private func scheduleSweep() {
        self.loop.scheduleTimer(afterNanoseconds: self.sweepIntervalNanoseconds) { [weak self] in
            guard let self else { return }
            self.sweep()
            self.scheduleSweep()
        }
    }

    private func sweep() {
        let now = self.loop.now
        var index = self.connections.count - 1
        while index >= 0 {
            if index < self.connections.count {
                self.connections[index].checkTimers(now: now)
            }
            index -= 1
        }
    }

    // MARK: Shutdown

    /// Stops accepting, closes every open connection with 1001, and calls `drained` once all are gone or the grace
    /// period ends.
    func shutDown(drained: @escaping () -> Void) {
        self.isShuttingDown = true
        self.onDrained = drained
        for listener in self.listeners {
            self.loop.deregister(listener.fd)
            Socket.close(listener.fd)
        }
        self.listeners = []
        for connection in self.connections { connection.shutDown() }
        if self.connections.isEmpty {
            self.finishShutdown()
            return
        }
        let grace = UInt64(self.configuration.shutdownGracePeriodMilliseconds) * 1_000_000
        self.loop.scheduleTimer(afterNanoseconds: grace) { [weak self] in
            guard let self else { return }
            // Whoever did not finish the close handshake in time is dropped.
            while let connection = self.connections.last {
                connection.abandon()
            }
            self.finishShutdown()
        }
    }

    private func finishShutdown() {
        let drained = self.onDrained
        self.onDrained = nil
        drained?()
    }
}

/// One listening socket registered with a loop.
private final class Listener: EventLoopHandler {
    let fd: Int32
    let secure: Bool
    unowned let owner: ServerLoop

    init(fd: Int32, secure: Bool, owner: ServerLoop) {
        self.fd = fd
        self.secure = secure
        self.owner = owner
    }

    func handleEvents(_ events: EventSet) {
        self.owner.acceptConnections(from: self)
    }
}
