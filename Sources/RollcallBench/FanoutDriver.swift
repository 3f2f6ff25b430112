import EventIO
import WebSocketCore

/// `fanout`: per room, observers joined with `"as":"observer"` and one publisher sending `meeting` messages at a
/// fixed rate through the rooms protocol.
///
/// A meeting message's `text` is `bench SEQUENCE SENDTIME` (fixed width), so each delivery's latency is its
/// receive time minus the send time, and an observer that sees a sequence number twice counts a mismatch. Every
/// message sent is expected once by each observer of the room that was joined when it was sent.
final class FanoutDriver: BenchDriver {
    /// One room's publisher and observers on this loop.
    struct RoomSpec {
        var id: String
        var publisherToken: String
        var observerTokens: [String]
    }

    private struct Room {
        var spec: RoomSpec
        var publisher: BenchConnection?
        var publisherOpen = false
        var observers: [BenchConnection] = []
        var joined: [Bool] = []
        var nextExpected: [UInt64] = []
        var readyObservers = 0
        var published: UInt64 = 0
        /// The encoded meeting message; the digits are patched in per send.
        var message: [UInt8] = []
        var stampOffset = 0
    }

    private static let textMarker = Array("\"text\":\"bench ".utf8)

    private var rooms: [Room]
    private let perRoom: Int
    private var publishStart: UInt64 = 0

    init(loop: EventLoop, options: BenchOptions, counters: BenchCounters, tlsContext: TLSContext?, rooms: [RoomSpec]) {
        self.rooms = rooms.map { Room(spec: $0) }
        self.perRoom = options.subscribers + 1
        super.init(loop: loop, options: options, counters: counters, tlsContext: tlsContext)
    }

    override var tickInterval: UInt64 { 5_000_000 }

    private func path(token: String, on target: BenchTarget? = nil) -> String {
        let base = (target ?? self.options.target).path
        return base + (base.contains("?") ? "&" : "?") + "token=" + token
    }

    override func start() {
        super.start()
        for local in self.rooms.indices {
            let spec = self.rooms[local].spec
            let prefix = "{\"type\":\"meeting\",\"group\":\"\(spec.id)\",\"sessionId\":\"bench\",\"text\":\"bench "
            var message = Array(prefix.utf8)
            self.rooms[local].stampOffset = message.count
            message += DeliveryStamp.template
            message += Array("\"}".utf8)
            self.rooms[local].message = message
            let base = local * self.perRoom
            for observer in 0..<self.options.subscribers {
                let targets = self.options.observerTargets
                let target = targets.isEmpty ? self.options.target : targets[observer % targets.count]
                let connection = self.makeConnection(
                    index: base + 1 + observer, path: self.path(token: spec.observerTokens[observer], on: target),
                    target: target
                )
                self.rooms[local].observers.append(connection)
                self.rooms[local].joined.append(false)
                self.rooms[local].nextExpected.append(0)
            }
            self.rooms[local].publisher = self.makeConnection(index: base, path: self.path(token: spec.publisherToken))
        }
        for room in self.rooms {
            for observer in room.observers { self.open(observer) }
            self.open(room.publisher!)
        }
    }

    override func startLoad() {
        super.startLoad()
        self.publishStart = EventLoop.monotonicNow()
    }

    override func closeAll() {
        super.closeAll()
        for room in self.rooms {
            room.publisher?.close()
            for observer in room.observers { observer.close() }
        }
    }

    override func didOpen(_ connection: BenchConnection) {
        let (local, role) = (connection.index / self.perRoom, connection.index % self.perRoom)
        if role == 0 {
            self.rooms[local].publisherOpen = true
            self.counters.add(.ready)
            return
        }
        let join = "{\"type\":\"join\",\"id\":1,\"room\":\"\(self.rooms[local].spec.id)\",\"as\":\"observer\"}"
        var bytes = Array(join.utf8)
        bytes.withUnsafeMutableBytes { connection.send(.text, payload: UnsafeRawBufferPointer($0)) }
    }

    override func didClose(_ connection: BenchConnection, error: String?) {
        let (local, role) = (connection.index / self.perRoom, connection.index % self.perRoom)
        if role == 0 {
            self.rooms[local].publisherOpen = false
        } else if self.rooms[local].joined[role - 1] {
            self.rooms[local].joined[role - 1] = false
            self.rooms[local].readyObservers -= 1
        }
    }

    override func tick(now: UInt64) {
        guard self.isLoading else { return }
        let elapsed = now &- self.publishStart
        let due = UInt64(Double(elapsed) * Double(self.options.rate) / 1e9)
        for local in self.rooms.indices where self.rooms[local].publisherOpen {
            var burst = 0
            while self.rooms[local].published < due, burst < 1000 {
                self.publish(local)
                burst += 1
            }
        }
    }

    private func publish(_ local: Int) {
        guard let publisher = self.rooms[local].publisher else { return }
        let sequence = self.rooms[local].published
        self.rooms[local].published += 1
        let stampOffset = self.rooms[local].stampOffset
        self.rooms[local].message.withUnsafeBytes { message in
            publisher.sendFrame(.text, payloadCount: message.count) { payload in
                payload.copyMemory(from: message)
                DeliveryStamp.write(
                    sequence: sequence, sentAt: EventLoop.monotonicNow(), into: payload, at: stampOffset)
            }
        }
        self.counters.add(.sent)
        self.counters.add(.expected, self.rooms[local].readyObservers)
    }

    override func connection(
        _ connection: BenchConnection,
        didReceive opcode: WebSocketOpcode,
        payload: UnsafeMutableRawBufferPointer
    ) {
        let (local, role) = (connection.index / self.perRoom, connection.index % self.perRoom)
        let received = UnsafeRawBufferPointer(payload)
        if PayloadSearch.hasPrefix(received, "{\"type\":\"error\"") {
            self.counters.add(.errors)
            self.noteError(String(decoding: UnsafeRawBufferPointer(payload).prefix(200), as: UTF8.self))
            return
        }
        guard role > 0 else { return }  // The publisher's acks and its own copies of the events.
        let observer = role - 1
        if !self.rooms[local].joined[observer] {
            if PayloadSearch.hasPrefix(received, "{\"type\":\"ack\"") {
                self.rooms[local].joined[observer] = true
                self.rooms[local].readyObservers += 1
                self.counters.add(.ready)
            }
            return
        }
        guard PayloadSearch.hasPrefix(received, "{\"type\":\"event\""),
            let start = PayloadSearch.end(of: Self.textMarker, in: received),
            let (sequence, sentAt) = DeliveryStamp.read(received, at: start)
        else { return }
        let now = EventLoop.monotonicNow()
        guard sequence >= self.rooms[local].nextExpected[observer] else {
            self.counters.add(.mismatched)
            return
        }
        self.rooms[local].nextExpected[observer] = sequence + 1
        self.counters.add(.received)
        self.recordDelivery(latency: now &- sentAt, at: now)
    }
}

#if canImport(Glibc)
import Glibc
#endif
