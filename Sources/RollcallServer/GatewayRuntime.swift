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

/// Runs the rooms layer on threads of its own (one by default; `threads` rooms threads, each a gateway on its own thread)
/// and connects it to WebSocket connections on the server's event loops.
///
/// Connections report to the rooms threads through their task queues, each connection loop handing each rooms thread
/// at most one batch per iteration; each gateway's output is grouped by event loop, so a message for many subscribers
/// is encoded into one frame and handed to each loop once, where it is queued to every subscriber's connection
/// without a copy. With several threads a room belongs to one of them by a hash of its id (`RoomThreadPlacement`),
/// and with a store each rooms thread commits its rooms through a connection of its own to the store's file.
public final class GatewayRuntime: @unchecked Sendable {
    /// The path clients connect to.
    public let path: String
    /// The rooms threads, one gateway each; each has its connection to the store, when there is one; the first has
    /// the shared log in cluster mode.
    let roomThreads: [RoomThread]
    /// Reads messages on the connection loops and finds their rooms thread; nil with one thread (the gateway reads them).
    let router: RoomThreadRouter?
    private var loop: EventLoop { self.roomThreads[0].loop }
    private var gateway: RoomsNode { self.roomThreads[0].gateway }
    private var transport: LoopTransport { self.roomThreads[0].transport }
    private let nextSessionID = Atomic<UInt64>(1)
    /// Batches handed by connection loops to rooms threads since start (at most one per loop, rooms thread and
    /// iteration of the loop).
    let connectionHandOvers = Atomic<Int>(0)
    /// Where log lines go (connections at debug, authentication failures and moderation at info).
    let logger: GatewayLogger
    /// Time from the gateway handing a message to the transport to the connection loop queueing it on the
    /// recipients' sockets, once per message and loop.
    public let deliveryLatency = LatencyHistogram()
    /// In cluster mode, the shared room log; nil in the single-process default.
    public let sharedLog: (any SharedLogService)?
    /// Whether the shared log's node can trust what it receives (readable from any thread); nil without one.
    let sharedLogHealth: SharedLogHealth?
    /// The embedded store's group commit, one per rooms thread (each commits its own rooms); empty when rooms live
    /// in memory only (or in a cluster's shared log).
    var committers: [StoreCommitter] { self.roomThreads.compactMap(\.committer) }
    /// The webhook deliveries, started and stopped with the gateway; nil when no endpoint is configured.
    public let webhooks: WebhookDispatcher?
    /// Rooms threads whose store commits fail, from a failed commit until one succeeds (`/readyz` answers 503 while
    /// any does).
    private let failingStores = Atomic<Int>(0)

    /// - Parameters:
    ///   - configuration: the rooms layer's settings.
    ///   - verifier: checks tokens.
    ///   - path: the WebSocket path, e.g. `/v1/ws`.
    ///   - logger: where log lines go; none by default.
    ///   - sharedLog: cluster mode: makes the shared room log on the gateway's event loop, on which every call to it
    ///     and from it happens (the runtime starts and stops it with the loop); nil (the default) keeps every room in
    ///     this process.
    ///   - store: a single process's embedded store (rooms are read from it when first used and every change is
    ///     committed to it before it is acknowledged); nil keeps rooms in memory only. Not with a shared log. The
    ///     first rooms thread commits through it, every other one through a connection of its own to the same file
    ///     (`SQLiteRoomStore.forAnotherThread()`).
    ///   - checkpointInterval: a room's checkpoint goes to the store every this many entries.
    ///   - webhooks: deliveries of the room log to webhook endpoints, read from the store (with `store`) or, in a
    ///     cluster, from the shared log (the dispatcher's feed); started and stopped with the gateway.
    ///   - threads: rooms threads; more than one with rooms in memory or with the store and webhooks, not with a
    ///     shared log.
    /// - Throws: `RoomThreadsError` for several threads with a shared log; what opening an event loop or another
    ///   connection to the store throws.
    public init(
        configuration: RoomsConfiguration,
        verifier: TokenVerifier,
        path: String = "/v1/ws",
        logger: GatewayLogger = GatewayLogger(),
        sharedLog makeSharedLog: ((EventLoop) -> any SharedLogService)? = nil,
        store: SQLiteRoomStore? = nil,
        checkpointInterval: Int = 100,
        webhooks: WebhookDispatcher? = nil,
        threads: Int = 1
    ) throws {
        guard threads >= 1 else { throw RoomThreadsError("rooms.threads must be at least 1") }
        if threads > 1, makeSharedLog != nil { throw RoomThreadsError.withCluster }
        self.path = path
        self.logger = logger
        let latency = self.deliveryLatency
        let authority = threads > 1 ? SessionAuthority(placement: RoomThreadPlacement(count: threads)) : nil
        // The first thread's gateway has the shared log in cluster mode, else a local log with its connection to the
        // store, if any; the others a local log each, with a connection of their own. A gateway is its log's delegate.
        var sharedLog: (any SharedLogService)?
        var stores: [SQLiteRoomStore] = []
        if makeSharedLog == nil, let store {
            stores.append(store)
            for _ in 1..<threads { stores.append(try store.forAnotherThread()) }
        }
        self.roomThreads = try (0..<threads).map { index in
            try RoomThread(
                index: index, configuration: configuration, verifier: verifier, latency: latency, logger: logger,
                authority: authority,
                log: { loop in
                    guard index == 0, let makeSharedLog else {
                        return LocalRoomLog(
                            store: stores.isEmpty ? nil : stores[index],
                            checkpointInterval: UInt64(max(1, checkpointInterval)))
                    }
                    let made = makeSharedLog(loop)
                    sharedLog = made
                    return made
                })
        }
        self.sharedLog = sharedLog
        self.sharedLogHealth = sharedLog?.health
        self.router = authority.map { RoomThreadRouter(configuration: configuration, placement: $0.placement) }
        self.webhooks = webhooks
        for (roomThread, store) in zip(self.roomThreads, stores) {
            let committer = StoreCommitter(store: store, loop: roomThread.loop, logger: logger)
            roomThread.committer = committer
            roomThread.gateway.onStoreFailure = { message in
                logger.log(.error, "store read failed", [("error", message)])
            }
            roomThread.transport.beforeHandOver = { [unowned committer] in committer.commit() }
            // While its store cannot commit, a thread's transport holds its output and its gateway refuses requests;
            // the other threads go on.
            committer.onAvailabilityChange = { [unowned self, unowned roomThread] available in
                roomThread.gateway.storeCannotCommit = !available
                self.failingStores.add(available ? -1 : 1, ordering: .acquiringAndReleasing)
                if available { roomThread.transport.handOverHeld() }
            }
            // The deliveries wait for news of committed entries (with a slow poll behind), not a short poll.
            if let webhooks { committer.onEntriesCommitted = { webhooks.tellOfNewEntries() } }
        }
    }

    /// Whether the store commits (always true without one): false from a failed commit on any rooms thread until
    /// that thread's commits succeed again, while that thread's output waits and its requests are refused with
    /// `ERR_UNAVAILABLE`. Readable from any thread.
    public var isStoreCommitting: Bool { self.failingStores.load(ordering: .acquiring) == 0 }

    /// How many rooms threads there are.
    public var threads: Int { self.roomThreads.count }

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

    /// Starts the rooms threads.
    public func start() {
        for roomThread in self.roomThreads { roomThread.startTicks() }
        let loop = self.loop
        let sharedLog = self.sharedLog.map { UnsafeTransfer($0) }
        // The first thread's connection drops what retention no longer keeps, for every thread's rooms.
        let committer = self.roomThreads[0].committer.map { UnsafeTransfer($0) }
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
            scheduleRetention()
        }
        for roomThread in self.roomThreads { roomThread.startThread() }
        do {
            try self.webhooks?.start()
        } catch {
            self.logger.log(.error, "webhooks cannot start", [("error", error.description)])
        }
    }

    /// How often the store drops what retention no longer keeps.
    static let retentionIntervalNanoseconds: UInt64 = 10_000_000_000

    /// Runs `work` on the first rooms thread once what its gateway wrote so far is committed to the store (at once
    /// without a store): for answers that acknowledge a change outside the transport, such as the server API's.
    ///
    /// - Parameter work: what to run; call this on the first rooms thread.
    public func whenCommitted(_ work: @escaping () -> Void) {
        self.whenCommitted(by: self.gateway, work)
    }

    /// Runs `work` on a gateway's rooms thread once what that gateway wrote so far is committed to the store (at
    /// once without a store).
    ///
    /// - Parameters:
    ///   - gateway: the gateway whose writes the answer acknowledges; call this on its thread.
    ///   - work: what to run.
    public func whenCommitted(by gateway: RoomsNode, _ work: @escaping () -> Void) {
        guard let committer = self.roomThreads.first(where: { $0.gateway === gateway })?.committer else {
            work()
            return
        }
        committer.whenCommitted(work)
    }

    /// The counters of a gateway's connection to the store, when there is a store; read it on that gateway's thread.
    func storageStatistics(of gateway: RoomsNode) -> StorageStatistics? {
        self.roomThreads.first { $0.gateway === gateway }?.committer?.store.statistics
    }

    /// Stops the rooms threads (after the server has shut down).
    public func stop() {
        if let sharedLog = self.sharedLog.map({ UnsafeTransfer($0) }) {
            self.loop.execute { sharedLog.value.stop() }
        }
        for roomThread in self.roomThreads { roomThread.stop() }
        // The loops have stopped: what their last iterations wrote is committed from here.
        for committer in self.committers { committer.commitAtStop() }
        self.webhooks?.stop()
    }

    /// Runs `body` with the (first) gateway on its thread and waits for the result (for the HTTP API and tests).
    public func inspect<Result: Sendable>(_ body: @escaping @Sendable (RoomsNode) -> Result) -> Result {
        self.inspect(roomThread: 0, body)
    }

    /// Runs `body` with one rooms thread's gateway on its thread and waits for the result (for tests).
    ///
    /// - Parameters:
    ///   - rooms thread: the rooms thread's index, below `threads`.
    ///   - body: what to run.
    /// - Returns: what `body` returned.
    public func inspect<Result: Sendable>(
        roomThread: Int, _ body: @escaping @Sendable (RoomsNode) -> Result
    ) -> Result {
        let result = Mutex<Result?>(nil)
        let done = Atomic<Bool>(false)
        self.perform(roomThread: roomThread) { gateway in
            result.withLock { $0 = body(gateway) }
            done.store(true, ordering: .releasing)
        }
        while !done.load(ordering: .acquiring) { usleep(200) }
        return result.withLock { $0! }
    }

    /// What compression has done on the rooms thread whose gateway this is; read it on that gateway's thread.
    func compressionStatistics(of gateway: RoomsNode) -> LoopTransport.CompressionStatistics {
        self.roomThreads.first { $0.gateway === gateway }?.transport.compression
            ?? LoopTransport.CompressionStatistics()
    }

    /// Tasks handed by the transports to connection loops since start; read it on a rooms thread.
    var transportHandOvers: Int { self.roomThreads.reduce(0) { $0 + $1.transport.handOvers } }

    /// Runs `body` with the (first) gateway on its thread, without waiting: for work that answers asynchronously
    /// (the HTTP API and metrics complete an `HTTPResponder` from inside `body`).
    public func perform(_ body: @escaping @Sendable (RoomsNode) -> Void) {
        self.perform(roomThread: 0, body)
    }

    /// Runs `body` with one rooms thread's gateway on its thread, without waiting.
    ///
    /// - Parameters:
    ///   - rooms thread: the rooms thread's index, below `threads`.
    ///   - body: what to run.
    public func perform(roomThread: Int, _ body: @escaping @Sendable (RoomsNode) -> Void) {
        let gateway = UnsafeTransfer(self.roomThreads[roomThread].gateway)
        self.roomThreads[roomThread].loop.execute { body(gateway.value) }
    }

    /// Runs `body` on the thread of the rooms thread that owns a room, without waiting.
    ///
    /// - Parameters:
    ///   - room: the room.
    ///   - body: what to run.
    public func perform(owning room: String, _ body: @escaping @Sendable (RoomsNode) -> Void) {
        self.perform(roomThread: self.router?.placement.roomThread(ofRoom: room) ?? 0, body)
    }

    /// Runs `body` on every rooms thread's thread and hands what they returned, in rooms thread order, to `combine` on the thread
    /// of the last one to finish.
    ///
    /// - Parameters:
    ///   - body: what each rooms thread computes.
    ///   - combine: what to do with every rooms thread's part.
    public func performOnEveryRoomThread<Part: Sendable>(
        _ body: @escaping @Sendable (RoomsNode) -> Part, combine: @escaping @Sendable ([Part]) -> Void
    ) {
        let parts = Mutex<(parts: [Part?], remaining: Int)>((Array(repeating: nil, count: self.threads), self.threads))
        for index in self.roomThreads.indices {
            self.perform(roomThread: index) { gateway in
                let part = body(gateway)
                let complete = parts.withLock { state -> [Part]? in
                    state.parts[index] = part
                    state.remaining -= 1
                    return state.remaining == 0 ? state.parts.map { $0! } : nil
                }
                if let complete { combine(complete) }
            }
        }
    }

    // MARK: Called from connection loops

    /// A new session id for a connection that opened.
    func newSessionID() -> SessionID {
        SessionID(self.nextSessionID.add(1, ordering: .relaxed).oldValue)
    }

    /// Hands one connection loop's batch of session events to a rooms thread, as one task.
    func hand(_ batch: [(SessionID, SessionEvent)], to roomThread: Int) {
        self.connectionHandOvers.add(1, ordering: .relaxed)
        self.roomThreads[roomThread].take(batch)
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
