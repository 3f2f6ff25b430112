import EventIO
import HTTPCore
import Rooms
import WebSocketCore
import WebSocketServer

/// The per-loop endpoint: turns connection callbacks into gateway sessions.
///
/// What the loop's connections report during one iteration is handed to each rooms thread at the end of it, as one
/// batch: one cross-thread hand-over per rooms thread and loop iteration however many messages arrived. With several
/// rooms threads the messages are read here, on the connection's loop, and go to the thread that owns their room.
final class GatewayEndpoint: WebSocketEndpoint, EventLoopFlushable {
    private let runtime: GatewayRuntime
    /// Events for each rooms thread, in the order the loop's connections reported them.
    private var pending: [[(SessionID, SessionEvent)]]
    private var hasPending = false
    private var isFlushScheduled = false

    init(runtime: GatewayRuntime) {
        self.runtime = runtime
        self.pending = Array(repeating: [], count: runtime.threads)
    }

    private final class SessionBox {
        let id: SessionID
        init(_ id: SessionID) { self.id = id }
    }

    /// Queues an event for one rooms thread, to be handed over at the end of this loop's iteration.
    private func report(_ id: SessionID, _ event: SessionEvent, to roomThread: Int, on loop: EventLoop) {
        self.pending[roomThread].append((id, event))
        self.scheduleFlush(on: loop)
    }

    /// Queues an event for every rooms thread.
    private func reportToEveryRoomThread(_ id: SessionID, _ event: SessionEvent, on loop: EventLoop) {
        for roomThread in self.pending.indices { self.pending[roomThread].append((id, event)) }
        self.scheduleFlush(on: loop)
    }

    private func scheduleFlush(on loop: EventLoop) {
        guard !self.isFlushScheduled else { return }
        self.isFlushScheduled = true
        loop.scheduleFlush(self)
    }

    /// Hands each rooms thread what this iteration reported for it, as one task.
    func flush() {
        self.isFlushScheduled = false
        for roomThread in self.pending.indices where !self.pending[roomThread].isEmpty {
            self.runtime.hand(self.pending[roomThread], to: roomThread)
            self.pending[roomThread].removeAll(keepingCapacity: true)
        }
    }

    func connectionDidOpen(_ connection: WebSocketConnection) {
        let id = self.runtime.newSessionID()
        let handle = ConnectionHandle(
            connection: connection, loop: connection.loop, compression: connection.compression)
        self.reportToEveryRoomThread(id, .opened(handle, token: Self.bearerToken(of: connection)), on: connection.loop)
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
        case .text(let bytes):
            guard let router = self.runtime.router else {
                self.report(box.id, .text(Array(bytes)), to: 0, on: connection.loop)
                return
            }
            let (destination, routed) = router.route(bytes, from: box.id)
            switch destination {
            case .roomThread(let roomThread): self.report(box.id, .routed(routed), to: roomThread, on: connection.loop)
            case .everyRoomThread: self.reportToEveryRoomThread(box.id, .routed(routed), on: connection.loop)
            }
        case .binary:
            let home = self.runtime.router?.placement.home(of: box.id) ?? 0
            self.report(box.id, .binary, to: home, on: connection.loop)
        }
    }

    func connection(_ connection: WebSocketConnection, writabilityDidChange isWritable: Bool) {
        guard let box = connection.userData as? SessionBox else { return }
        self.reportToEveryRoomThread(box.id, .writability(isWritable), on: connection.loop)
    }

    func connectionDidClose(_ connection: WebSocketConnection, reason: WebSocketCloseReason) {
        guard let box = connection.userData as? SessionBox else { return }
        connection.userData = nil
        self.reportToEveryRoomThread(box.id, .closed(cleanly: reason.code != .abnormalClosure), on: connection.loop)
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
