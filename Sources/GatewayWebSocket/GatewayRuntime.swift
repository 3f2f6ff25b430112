import EventIO
import Rooms
import Storage
import Synchronization
import TokenAuth
import WebSocketCore
import WebSocketDeflate
import WebSocketServer
import Webhooks

#if canImport(Glibc)
import Glibc
#endif

/// Runs the gateway on its own thread and connects it to WebSocket connections on the server's event loops.
///
/// Connections report to the gateway thread through its task queue; the gateway's output is grouped by event loop,
/// so a message for many subscribers is encoded into one frame and handed to each loop once, where it is queued to
/// every subscriber's connection without a copy.
public final class GatewayRuntime: @unchecked Sendable {
    /// The path clients connect to.
    public let path: String
    private let loop: EventLoop
    private var thread: EventLoopThread?
    private var gateway: Gateway!
    private let transport: LoopTransport
    private let nextSessionID = Atomic<UInt64>(1)
    /// Where log lines go (connections at debug, authentication failures and moderation at info).
    let logger: GatewayLogger
    /// Time from the gateway handing a message to the transport to the connection loop queueing it on the
    /// recipients' sockets, once per message and loop.
    public let deliveryLatency = LatencyHistogram()
    /// In cluster mode, the shared room log; nil in the single-process default.
    public let sharedLog: (any SharedLogService)?
    /// The embedded store's group commit; nil when rooms live in memory only (or in a cluster's shared log).
    let committer: StoreCommitter?
    /// The webhook deliveries, started and stopped with the gateway; nil when no endpoint is configured.
    public let webhooks: WebhookDispatcher?

    /// - Parameters:
    ///   - configuration: the rooms layer's settings.
    ///   - verifier: checks tokens.
    ///   - path: the WebSocket path, e.g. `/v1/ws`.
    ///   - logger: where log lines go; none by default.
    ///   - sharedLog: cluster mode: makes the shared room log on the gateway's event loop, on which every call to it
    ///     and from it happens (the runtime starts and stops it with the loop); nil (the default) keeps every room in
    ///     this process.
    ///   - store: a single process's embedded store (rooms are read from it when first used and every change is
    ///     committed to it before it is acknowledged); nil keeps rooms in memory only. Not with a shared log.
    ///   - checkpointInterval: a room's checkpoint goes to the store every this many entries.
    ///   - webhooks: deliveries of the room log to webhook endpoints, read from the store (with `store`) or, in a
    ///     cluster, from the shared log (the dispatcher's feed); started and stopped with the gateway.
    public init(
        configuration: GatewayConfiguration,
        verifier: TokenVerifier,
        path: String = "/v1/ws",
        logger: GatewayLogger = GatewayLogger(),
        sharedLog makeSharedLog: ((EventLoop) -> any SharedLogService)? = nil,
        store: SQLiteRoomStore? = nil,
        checkpointInterval: Int = 100,
        webhooks: WebhookDispatcher? = nil
    ) throws {
        self.path = path
        self.logger = logger
        self.loop = try EventLoop(index: -1, receiveBufferSize: 4096)
        self.transport = LoopTransport(gatewayLoop: self.loop, latency: self.deliveryLatency, logger: logger)
        self.gateway = Gateway(
            configuration: configuration,
            verifier: verifier,
            transport: self.transport,
            clock: { GatewayRuntime.wallClockMilliseconds() }
        )
        if let makeSharedLog {
            // The gateway registers itself as the log's delegate.
            let sharedLog = makeSharedLog(self.loop)
            self.gateway.sharedLog = sharedLog
            self.sharedLog = sharedLog
        } else {
            self.sharedLog = nil
        }
        self.webhooks = webhooks
        if let store, makeSharedLog == nil {
            let committer = StoreCommitter(store: store, loop: self.loop, logger: logger)
            self.committer = committer
            self.gateway.store = store
            self.gateway.storeCheckpointInterval = UInt64(max(1, checkpointInterval))
            self.gateway.onStoreFailure = { message in logger.log(.error, "store read failed", [("error", message)]) }
            self.transport.beforeHandOver = { [unowned committer] in committer.commit() }
        } else {
            self.committer = nil
        }
        self.gateway.onModeration = { record in
            logger.log(
                .info, "moderator action",
                [
                    ("room", record.room), ("action", record.action), ("actor", record.actor),
                    ("target", record.target ?? ""), ("reason", record.reason ?? ""),
                    ("changed", String(record.changed)),
                ])
        }
    }

    /// Milliseconds since the epoch.
    public static func wallClockMilliseconds() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    }

    /// The route to give the server.
    public var route: WebSocketRoute {
        WebSocketRoute(path: self.path) { _ in GatewayEndpoint(runtime: self) }
    }

    /// Starts the gateway thread.
    public func start() {
        let loop = self.loop
        let gateway = self.gateway!
        func scheduleTick() {
            // Fine enough for the coalescing window (default 50 ms) and the speaker hold.
            loop.scheduleTimer(afterNanoseconds: 10_000_000) {
                gateway.tick()
                scheduleTick()
            }
        }
        // A window's patches go out when it closes, not at the tick after: one timer per window that opens.
        gateway.onFlushDue = { [unowned gateway] due in
            let wait = max(0, due - GatewayRuntime.wallClockMilliseconds()) + 1
            loop.scheduleTimer(afterNanoseconds: UInt64(wait) * 1_000_000) { gateway.flushDueRooms() }
        }
        let sharedLog = self.sharedLog.map { UnsafeTransfer($0) }
        let committer = self.committer.map { UnsafeTransfer($0) }
        let endpoints = self.webhooks?.endpointNames ?? []
        let logger = self.logger
        func scheduleRetention() {
            guard let committer else { return }
            loop.scheduleTimer(afterNanoseconds: Self.retentionIntervalNanoseconds) {
                do {
                    try committer.value.store.trim(
                        now: GatewayRuntime.wallClockMilliseconds(), webhookEndpoints: endpoints)
                } catch {
                    logger.log(.error, "store retention failed", [("error", "\(error)")])
                }
                scheduleRetention()
            }
        }
        loop.execute {
            sharedLog?.value.start()
            scheduleTick()
            scheduleRetention()
        }
        self.thread = EventLoopThread(name: "rollcall-rooms") { loop.run() }
        do {
            try self.webhooks?.start()
        } catch {
            self.logger.log(.error, "webhooks cannot start", [("error", error.description)])
        }
    }

    /// How often the store drops what retention no longer keeps.
    static let retentionIntervalNanoseconds: UInt64 = 10_000_000_000

    /// Runs `work` on the gateway thread once what the gateway wrote so far is committed to the store (at once
    /// without a store): for answers that acknowledge a change outside the transport, such as the server API's.
    ///
    /// - Parameter work: what to run; call this on the gateway thread.
    public func whenCommitted(_ work: @escaping () -> Void) {
        guard let committer = self.committer else {
            work()
            return
        }
        committer.whenCommitted(work)
    }

    /// The store's counters, when there is a store; read it on the gateway thread.
    var storageStatistics: StorageStatistics? { self.committer?.store.statistics }

    /// Stops the gateway thread (after the server has shut down).
    public func stop() {
        if let sharedLog = self.sharedLog.map({ UnsafeTransfer($0) }) {
            self.loop.execute { sharedLog.value.stop() }
        }
        self.loop.stop()
        self.thread?.join()
        self.thread = nil
        // The loop has stopped: what its last iteration wrote is committed from here.
        self.committer?.commit()
        self.webhooks?.stop()
    }

    /// Runs `body` with the gateway on its thread and waits for the result (for the HTTP API and tests).
    public func inspect<Result: Sendable>(_ body: @escaping @Sendable (Gateway) -> Result) -> Result {
        let result = Mutex<Result?>(nil)
        let done = Atomic<Bool>(false)
        let gateway = UnsafeTransfer(self.gateway!)
        self.loop.execute {
            result.withLock { $0 = body(gateway.value) }
            done.store(true, ordering: .releasing)
        }
        while !done.load(ordering: .acquiring) { usleep(200) }
        return result.withLock { $0! }
    }

    /// What compression of room messages has done since start; read it on the gateway thread (inside `perform`).
    var compressionStatistics: LoopTransport.CompressionStatistics { self.transport.compression }

    /// Tasks handed by the transport to connection loops since start; read it on the gateway thread.
    var transportHandOvers: Int { self.transport.handOvers }

    /// Runs `body` with the gateway on its thread, without waiting: for work that answers asynchronously (the
    /// HTTP API and metrics complete an `HTTPResponder` from inside `body`).
    public func perform(_ body: @escaping @Sendable (Gateway) -> Void) {
        let gateway = UnsafeTransfer(self.gateway!)
        self.loop.execute { body(gateway.value) }
    }

    // MARK: Called from connection loops

    fileprivate func open(_ connection: WebSocketConnection, token: String?) -> SessionID {
        let id = SessionID(self.nextSessionID.add(1, ordering: .relaxed).oldValue)
        let handle = UnsafeTransfer(
            ConnectionHandle(connection: connection, loop: connection.loop, compression: connection.compression)
        )
        let gateway = UnsafeTransfer(self.gateway!)
        let transport = self.transport
        self.loop.execute {
            transport.register(id, handle.value)
            gateway.value.sessionOpened(id, token: token)
        }
        return id
    }

    fileprivate func received(_ id: SessionID, text: [UInt8]) {
        let gateway = UnsafeTransfer(self.gateway!)
        self.loop.execute {
            text.withUnsafeBytes { gateway.value.sessionReceived(id, text: $0) }
        }
    }

    fileprivate func receivedBinary(_ id: SessionID) {
        let gateway = UnsafeTransfer(self.gateway!)
        self.loop.execute { gateway.value.sessionReceivedBinary(id) }
    }

    fileprivate func writabilityChanged(_ id: SessionID, isWritable: Bool) {
        let gateway = UnsafeTransfer(self.gateway!)
        self.loop.execute { gateway.value.sessionWritabilityChanged(id, isWritable: isWritable) }
    }

    fileprivate func closed(_ id: SessionID, cleanly: Bool) {
        let gateway = UnsafeTransfer(self.gateway!)
        let transport = self.transport
        self.loop.execute {
            gateway.value.sessionClosed(id, cleanly: cleanly)
            transport.unregister(id)
        }
    }
}

/// A connection and what the gateway thread needs to know of it, taken on the connection's loop when it opens.
struct ConnectionHandle {
    let connection: WebSocketConnection
    let loop: EventLoop
    /// The permessage-deflate parameters the connection agreed to, nil when it runs uncompressed.
    let compression: PerMessageDeflateParameters?
}

/// Moves a loop-confined reference across a thread hop whose ordering is guaranteed by the task queue.
struct UnsafeTransfer<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// The per-loop endpoint: turns connection callbacks into gateway sessions.
final class GatewayEndpoint: WebSocketEndpoint {
    private let runtime: GatewayRuntime

    init(runtime: GatewayRuntime) {
        self.runtime = runtime
    }

    private final class SessionBox {
        let id: SessionID
        init(_ id: SessionID) { self.id = id }
    }

    func connectionDidOpen(_ connection: WebSocketConnection) {
        let id = self.runtime.open(connection, token: Self.bearerToken(of: connection))
        connection.userData = SessionBox(id)
        let logger = self.runtime.logger
        if logger.isEnabled(.debug) {
            logger.log(
                .debug, "connection opened",
                [
                    ("session", id.description), ("remote", connection.remoteAddress?.description ?? ""),
                    ("transport", connection.isSecure ? "wss" : "ws"), ("loop", String(connection.loop.index)),
                ])
        }
    }

    func connection(_ connection: WebSocketConnection, didReceive message: WebSocketMessage) {
        guard let box = connection.userData as? SessionBox else { return }
        switch message {
        case .text(let bytes): self.runtime.received(box.id, text: Array(bytes))
        case .binary: self.runtime.receivedBinary(box.id)
        }
    }

    func connection(_ connection: WebSocketConnection, writabilityDidChange isWritable: Bool) {
        guard let box = connection.userData as? SessionBox else { return }
        self.runtime.writabilityChanged(box.id, isWritable: isWritable)
    }

    func connectionDidClose(_ connection: WebSocketConnection, reason: WebSocketCloseReason) {
        guard let box = connection.userData as? SessionBox else { return }
        connection.userData = nil
        self.runtime.closed(box.id, cleanly: reason.code != .abnormalClosure)
        let logger = self.runtime.logger
        if logger.isEnabled(.debug) {
            logger.log(
                .debug, "connection closed",
                [
                    ("session", box.id.description), ("code", String(reason.code.rawValue)),
                    ("by", reason.initiatedByServer ? "server" : "client"), ("reason", reason.detail),
                ])
        }
    }

    /// The token from `Authorization: Bearer …` or the `token` query parameter.
    static func bearerToken(of connection: WebSocketConnection) -> String? {
        if let header = connection.requestHead?.value(of: "Authorization") {
            let parts = header.split(separator: " ", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "bearer" { return String(parts[1]) }
        }
        guard let query = connection.query else { return nil }
        for pair in query.split(separator: "&") {
            let keyValue = pair.split(separator: "=", maxSplits: 1)
            if keyValue.count == 2, keyValue[0] == "token" {
                // A token with a broken escape goes to the verifier as it came, which refuses it.
                return PercentEncoding.decode(keyValue[1], plus: .space) ?? String(keyValue[1])
            }
        }
        return nil
    }
}
