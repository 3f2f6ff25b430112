import EventIO
import Rooms
import TokenAuth

#if canImport(Glibc)
import Glibc
#endif

/// What a connection reports to the rooms threads.
enum SessionEvent {
    /// The connection opened, with the token of its upgrade request, if any.
    case opened(ConnectionHandle, token: String?)
    /// A text message, for the gateway to read (one rooms thread).
    case text([UInt8])
    /// A text message read on the connection's loop, for its rooms thread (several rooms threads).
    case routed(RoutedMessage)
    /// A binary message.
    case binary
    /// The connection's write queue crossed a watermark.
    case writability(Bool)
    /// The connection ended.
    case closed(cleanly: Bool)
}

/// One rooms thread: its event loop, its gateway (a rooms thread when there are several) and the gateway's transport.
final class RoomThread {
    let loop: EventLoop
    let transport: LoopTransport
    let gateway: RoomsNode
    /// The group commit of this thread's connection to the store; nil without a store.
    var committer: StoreCommitter?
    private var thread: EventLoopThread?
    private let index: Int

    init(
        index: Int,
        configuration: RoomsConfiguration,
        verifier: TokenVerifier,
        latency: LatencyHistogram,
        logger: GatewayLogger,
        authority: SessionAuthority?,
        log makeLog: (EventLoop) -> any SharedRoomLog
    ) throws {
        self.index = index
        self.loop = try EventLoop(index: -1 - index, receiveBufferSize: 4096)
        self.transport = LoopTransport(gatewayLoop: self.loop, latency: latency, logger: logger)
        self.gateway = RoomsNode(
            configuration: configuration,
            verifier: verifier,
            transport: self.transport,
            clock: { GatewayRuntime.wallClockMilliseconds() },
            log: makeLog(self.loop),
            roomThread: authority.map { RoomThreadPlace(index: index, authority: $0) }
        )
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

    /// Schedules the gateway's ticks and its coalescing windows' flushes on its loop.
    func startTicks() {
        let loop = self.loop
        let gateway = UnsafeTransfer(self.gateway)
        func scheduleTick() {
            // Fine enough for the coalescing window (default 50 ms) and the speaker hold.
            loop.scheduleTimer(afterNanoseconds: 10_000_000) {
                gateway.value.tick()
                scheduleTick()
            }
        }
        // A window's patches go out when it closes, not at the tick after: one timer per window that opens.
        self.gateway.onFlushDue = { due in
            let wait = max(0, due - GatewayRuntime.wallClockMilliseconds()) + 1
            loop.scheduleTimer(afterNanoseconds: UInt64(wait) * 1_000_000) { gateway.value.flushDueRooms() }
        }
        loop.execute { scheduleTick() }
    }

    /// Starts the thread that runs the loop.
    func startThread() {
        let loop = self.loop
        self.thread = EventLoopThread(name: self.index == 0 ? "rollcall-rooms" : "rollcall-rooms\(self.index)") {
            loop.run()
        }
    }

    /// Stops the loop and waits for its thread.
    func stop() {
        self.loop.stop()
        self.thread?.join()
        self.thread = nil
    }

    /// Applies one connection loop's batch of session events on this rooms thread's thread, in order, as one task.
    func take(_ batch: [(SessionID, SessionEvent)]) {
        let gateway = UnsafeTransfer(self.gateway)
        let transport = UnsafeTransfer(self.transport)
        let batch = UnsafeTransfer(batch)
        self.loop.execute {
            for (id, event) in batch.value {
                Self.apply(event, of: id, to: gateway.value, transport: transport.value)
            }
        }
    }

    private static func apply(_ event: SessionEvent, of id: SessionID, to gateway: RoomsNode, transport: LoopTransport)
    {
        switch event {
        case .opened(let handle, let token):
            transport.register(id, handle)
            gateway.sessionOpened(id, token: token)
        case .text(let text):
            text.withUnsafeBytes { gateway.sessionReceived(id, text: $0) }
        case .routed(let message):
            gateway.sessionReceived(id, routed: message)
        case .binary:
            gateway.sessionReceivedBinary(id)
        case .writability(let isWritable):
            gateway.sessionWritabilityChanged(id, isWritable: isWritable)
        case .closed(let cleanly):
            gateway.sessionClosed(id, cleanly: cleanly)
            transport.unregister(id)
        }
    }
}

/// Several rooms threads with something they cannot share yet: a cluster's shared log.
public struct RoomThreadsError: Error, CustomStringConvertible {
    /// What is wrong, for people.
    public let description: String

    init(_ description: String) {
        self.description = description
    }

    static let withCluster = RoomThreadsError(
        "rooms.threads above 1 is for a single process: it cannot be combined with cluster.redis_url")
}
