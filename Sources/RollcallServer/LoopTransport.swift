import EventIO
import Rooms
import WebSocketCore
import WebSocketDeflate
import WebSocketServer

/// The gateway's transport: groups recipients by event loop and hands each loop one frame.
///
/// What the gateway sends during one iteration of its loop (every message of every room, and closes, in order) is
/// handed to each connection loop at the end of that iteration as one task, so a busy gateway costs each loop one
/// cross-thread hand-over per iteration rather than one per message.
///
/// A message is encoded once, and compressed once for each compressor setting among its recipients that agreed to
/// permessage-deflate (in practice one: the server's settings, with the window the client asked for); every
/// recipient's connection queues the same bytes. Messages below the compression threshold, and recipients without
/// compression, get the uncompressed frame.
final class LoopTransport: RoomsTransport, EventLoopFlushable {
    /// A recipient as the table keeps it: its connection (whose loop is `connection.loop`) and its compression
    /// variant, 0 for none, otherwise the `SharedMessageCompressor` variant plus one.
    struct Recipient {
        let connection: WebSocketConnection
        let variant: UInt8
    }

    /// What compression has done since start, for `/metrics`.
    struct CompressionStatistics {
        /// Messages compressed, once per message and compressor setting however many recipients share it.
        var messages = 0
        /// Their bytes before compression.
        var bytesIn = 0
        /// Their bytes after compression (the payloads, without frame headers).
        var bytesOut = 0
        /// Deliveries of a compressed frame.
        var deliveries = 0
    }

    /// The frames one message was encoded into: the uncompressed one and, by variant, the compressed ones.
    private struct EncodedMessage {
        var plain: WebSocketOutboundFrame
        var compressed: [WebSocketOutboundFrame?]
    }

    /// Work for one loop, done there in the order it was queued.
    private enum LoopWork {
        /// Queue a message to recipients on that loop; `handedOverAt` is when the gateway sent it.
        case deliver(EncodedMessage, [Recipient], handedOverAt: UInt64)
        /// Close a connection after what was queued to it before.
        case close(WebSocketConnection, code: UInt16, reason: String)
    }

    /// Each session's connection and compression variant, looked up once per recipient of every event.
    private var recipients = SessionTable<Recipient>()
    private let compressor = SharedMessageCompressor()
    private let latency: LatencyHistogram
    private let logger: GatewayLogger
    private(set) var compression = CompressionStatistics()
    /// The last large message sent and its frames. The gateway sends some messages again unchanged (a room's cached
    /// snapshot to each observer who joins while nothing changes, with a short ack in between); those arrive in the
    /// same array storage, which this reference keeps alive, so the same base address means the same, unmodified
    /// bytes, and they are neither copied nor compressed again.
    private var lastMessage: (text: [UInt8], encoded: EncodedMessage)?
    /// Messages shorter than this are cheap to encode again and do not replace `lastMessage`.
    private static let reuseMinimumBytes = 1024

    /// The gateway's own loop, at the end of whose iterations work is handed to the connection loops.
    private let gatewayLoop: EventLoop
    /// Work queued for each loop during the current iteration of the gateway's loop.
    private var pendingWork: [(loop: EventLoop, work: [LoopWork])] = []
    private var isHandOverScheduled = false
    /// Tasks handed to connection loops since start (one per loop per iteration of the gateway's loop with output).
    private(set) var handOvers = 0
    /// Runs before each hand-over: with a store, the group commit of what the iteration wrote, so nothing that
    /// acknowledges a change leaves before the change is committed. It answers false when the store cannot commit:
    /// the output is then held here, in order and with what later iterations add, until a commit succeeds
    /// (`handOverHeld`); only what is sent ahead (`sendAhead`) goes out meanwhile.
    var beforeHandOver: (() -> Bool)?
    /// Whether the last hand-over was held back because the store could not commit.
    private(set) var isHolding = false
    /// Messages sent ahead of the held output during this iteration, handed over at its end in any case.
    private var aheadWork: [(loop: EventLoop, work: [LoopWork])] = []

    /// - Parameters:
    ///   - gatewayLoop: the loop the gateway runs on; every call to the transport happens on it.
    ///   - latency: where the hand-over latency is recorded.
    ///   - logger: where authentication failures are logged.
    init(gatewayLoop: EventLoop, latency: LatencyHistogram, logger: GatewayLogger) {
        self.gatewayLoop = gatewayLoop
        self.latency = latency
        self.logger = logger
    }

    func register(_ id: SessionID, _ handle: ConnectionHandle) {
        let variant = handle.compression.flatMap { self.compressor.variant(for: $0) }.map { UInt8($0 + 1) } ?? 0
        self.recipients.insert(Recipient(connection: handle.connection, variant: variant), for: id)
    }

    func unregister(_ id: SessionID) {
        self.recipients.removeValue(for: id)
    }

    func send(_ text: [UInt8], to sessions: [SessionID]) {
        self.send(text, to: sessions, ahead: false)
    }

    func sendAhead(_ text: [UInt8], to sessions: [SessionID]) {
        self.send(text, to: sessions, ahead: self.isHolding)
    }

    private func send(_ text: [UInt8], to sessions: [SessionID], ahead: Bool) {
        // One group per loop, found by identity: there are only as many loops as cores, and a linear scan costs
        // less per recipient than hashing into a dictionary. Consecutive recipients are mostly on the same loop, so
        // the last group is tried first; only the connection is taken out of the table (one retain per recipient).
        var byLoop: [(loop: EventLoop, recipients: [Recipient])] = []
        var current = -1
        var variants: UInt32 = 0
        var compressing = 0
        for id in sessions {
            guard let recipient = self.recipients[id] else { continue }
            variants |= 1 &<< UInt32(recipient.variant)
            if recipient.variant != 0 { compressing += 1 }
            let loop = ObjectIdentifier(recipient.connection.loop)
            if current < 0 || ObjectIdentifier(byLoop[current].loop) != loop {
                current = byLoop.firstIndex { ObjectIdentifier($0.loop) == loop } ?? -1
            }
            if current >= 0 {
                byLoop[current].recipients.append(recipient)
            } else {
                var recipients: [Recipient] = []
                recipients.reserveCapacity(sessions.count)
                recipients.append(recipient)
                byLoop.append((recipient.connection.loop, recipients))
                current = byLoop.count - 1
            }
        }
        guard !byLoop.isEmpty else { return }
        let frames = self.encode(text, variants: variants)
        // Every variant has the server's one compression threshold: either all compressed or none.
        if frames.compressed.contains(where: { $0 != nil }) { self.compression.deliveries += compressing }
        let handedOverAt = EventLoop.monotonicNow()
        for (loop, recipients) in byLoop {
            let work = LoopWork.deliver(frames, recipients, handedOverAt: handedOverAt)
            if ahead {
                Self.append(work, for: loop, to: &self.aheadWork)
            } else {
                Self.append(work, for: loop, to: &self.pendingWork)
            }
        }
        self.scheduleHandOver()
    }

    /// Queues work for a loop, to be handed over with the rest at the end of the gateway's iteration.
    private static func append(
        _ work: LoopWork, for loop: EventLoop, to queue: inout [(loop: EventLoop, work: [LoopWork])]
    ) {
        if let index = queue.firstIndex(where: { $0.loop === loop }) {
            queue[index].work.append(work)
        } else {
            queue.append((loop, [work]))
        }
    }

    private func scheduleHandOver() {
        if !self.isHandOverScheduled {
            self.isHandOverScheduled = true
            self.gatewayLoop.scheduleFlush(self)
        }
    }

    /// Hands each loop everything queued for it during this iteration of the gateway's loop, as one task: one
    /// cross-thread hand-over (and at most one wake-up) per loop however many messages the iteration produced.
    /// When the commit before it fails, only what was sent ahead goes; the rest is held.
    func flush() {
        self.isHandOverScheduled = false
        let committed = self.beforeHandOver?() ?? true
        if !self.aheadWork.isEmpty {
            self.handOver(self.aheadWork)
            self.aheadWork.removeAll(keepingCapacity: true)
        }
        self.isHolding = !committed
        guard committed else { return }
        self.handOver(self.pendingWork)
        self.pendingWork.removeAll(keepingCapacity: true)
    }

    /// Hands over what failed commits held back, once a later commit has succeeded.
    func handOverHeld() {
        guard !self.pendingWork.isEmpty else { return }
        self.scheduleHandOver()
    }

    private func handOver(_ queue: [(loop: EventLoop, work: [LoopWork])]) {
        self.handOvers += queue.count
        let latency = self.latency
        for (loop, work) in queue {
            let batch = UnsafeTransfer(work)
            loop.execute {
                for item in batch.value {
                    switch item {
                    case .deliver(let frames, let recipients, let handedOverAt):
                        if frames.compressed.isEmpty {
                            // Nobody in this message agreed to compression: no per-recipient choice of frame.
                            for recipient in recipients { recipient.connection.send(frame: frames.plain) }
                        } else {
                            for recipient in recipients {
                                let variant = Int(recipient.variant)
                                let frame = variant == 0 ? frames.plain : frames.compressed[variant - 1] ?? frames.plain
                                recipient.connection.send(frame: frame)
                            }
                        }
                        latency.record(nanoseconds: EventLoop.monotonicNow() &- handedOverAt)
                    case .close(let connection, let code, let reason):
                        connection.close(code: WebSocketCloseCode(rawValue: code), reason: reason)
                    }
                }
            }
        }
    }

    /// The frames for `text`: always the uncompressed one, and a compressed one for each variant in `variants` (bit
    /// `v` for variant `v - 1`; bit 0 is the uncompressed frame) when the message is long enough for it.
    private func encode(_ text: [UInt8], variants: UInt32) -> EncodedMessage {
        let isRepeat = self.lastMessage.map { Self.sharesStorage(text, $0.text) } ?? false
        var encoded =
            isRepeat
            ? self.lastMessage.unsafelyUnwrapped.encoded
            : EncodedMessage(
                plain: text.withUnsafeBytes { WebSocketFrameEncoder.encode(opcode: .text, payload: $0) },
                compressed: []
            )
        var wanted = variants >> 1
        var added = false
        while wanted != 0 {
            let variant = wanted.trailingZeroBitCount
            wanted &= wanted - 1
            if encoded.compressed.count <= variant {
                encoded.compressed.append(contentsOf: repeatElement(nil, count: variant + 1 - encoded.compressed.count))
            }
            guard encoded.compressed[variant] == nil,
                let frame = text.withUnsafeBytes({
                    self.compressor.compressedFrame(opcode: .text, payload: $0, variant: variant)
                })
            else { continue }
            self.compression.messages += 1
            self.compression.bytesIn += text.count
            self.compression.bytesOut += frame.payloadCount
            encoded.compressed[variant] = frame
            added = true
        }
        if text.count >= Self.reuseMinimumBytes && (!isRepeat || added) { self.lastMessage = (text, encoded) }
        return encoded
    }

    /// Whether two arrays are the same storage (and so the same bytes, since the storage is shared and therefore
    /// not modified in place).
    private static func sharesStorage(_ first: [UInt8], _ second: [UInt8]) -> Bool {
        guard first.count == second.count, !first.isEmpty else { return false }
        return first.withUnsafeBufferPointer { first in
            second.withUnsafeBufferPointer { second in first.baseAddress == second.baseAddress }
        }
    }

    func close(_ id: SessionID, code: UInt16, reason: String) {
        guard let recipient = self.recipients.removeValue(for: id) else { return }
        if code == GatewayCloseCode.unauthorized.rawValue {
            // The token itself is never logged.
            self.logger.log(.info, "authentication failed", [("session", id.description), ("reason", reason)])
        }
        // Behind what was sent to it before, in the same hand-over.
        Self.append(
            .close(recipient.connection, code: code, reason: reason), for: recipient.connection.loop,
            to: &self.pendingWork)
        self.scheduleHandOver()
    }
}
