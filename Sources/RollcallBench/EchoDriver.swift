import EventIO
import WebSocketCore

#if canImport(Glibc)
import Glibc
#endif

/// `echo`: each connection keeps `inFlight` binary messages of `size` bytes in flight to an echo endpoint.
///
/// A payload starts with its sequence number and send time (8 bytes each, little-endian), followed by a fixed
/// pattern that repeats every 256 bytes, so with compression the payloads shrink on the wire (within a message, and
/// from one message to the next while the context is kept) as repetitive text would. The echo endpoint answers in
/// order, so a reply whose sequence number skips ahead reveals lost messages, and one that goes back (or whose
/// pattern differs) is counted as mismatched. A connection whose oldest message got no reply within the reply
/// timeout counts its outstanding messages as lost and carries on.
final class EchoDriver: BenchDriver {
    private struct Client {
        var connection: BenchConnection
        var nextSequence: UInt64 = 0
        var expectedSequence: UInt64 = 0
        var lastProgress: UInt64 = 0
        var isOpen = false
        var outstanding: Int { Int(self.nextSequence - self.expectedSequence) }
    }

    private var clients: [Client] = []
    /// The payload every message starts from; bytes 0..<16 are overwritten per message.
    private let template: [UInt8]
    private let connectionCount: Int
    private let firstIndex: Int

    /// - Parameters:
    ///   - connections: how many connections this loop runs.
    ///   - firstIndex: the scenario-wide index of the first (to pick source addresses).
    init(
        loop: EventLoop, options: BenchOptions, counters: BenchCounters, tlsContext: TLSContext?, connections: Int,
        firstIndex: Int
    ) {
        self.connectionCount = connections
        self.firstIndex = firstIndex
        self.template = (0..<options.size).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 17) }
        super.init(loop: loop, options: options, counters: counters, tlsContext: tlsContext)
    }

    override func start() {
        super.start()
        self.clients.reserveCapacity(self.connectionCount)
        for local in 0..<self.connectionCount {
            let connection = self.makeConnection(index: self.firstIndex + local)
            self.clients.append(Client(connection: connection))
        }
        for client in self.clients { self.open(client.connection) }
    }

    private func slot(of connection: BenchConnection) -> Int { connection.index - self.firstIndex }

    override func startLoad() {
        super.startLoad()
        for slot in self.clients.indices where self.clients[slot].isOpen { self.fill(slot) }
    }

    override func closeAll() {
        super.closeAll()
        for client in self.clients { client.connection.close() }
    }

    override func didOpen(_ connection: BenchConnection) {
        let slot = self.slot(of: connection)
        self.clients[slot].isOpen = true
        self.clients[slot].lastProgress = EventLoop.monotonicNow()
        if self.isLoading { self.fill(slot) }
    }

    override func didClose(_ connection: BenchConnection, error: String?) {
        let slot = self.slot(of: connection)
        self.clients[slot].isOpen = false
        self.declareLost(slot)
    }

    /// Sends until the connection has `inFlight` messages outstanding.
    private func fill(_ slot: Int) {
        let connection = self.clients[slot].connection
        let inFlight = self.options.inFlight
        var sentNow = 0
        while self.isLoading, self.clients[slot].isOpen, self.clients[slot].outstanding < inFlight {
            if self.clients[slot].outstanding == 0 { self.clients[slot].lastProgress = EventLoop.monotonicNow() }
            let sequence = self.clients[slot].nextSequence
            self.clients[slot].nextSequence += 1
            self.template.withUnsafeBytes { template in
                connection.sendFrame(.binary, payloadCount: template.count) { payload in
                    payload.copyMemory(from: template)
                    payload.storeBytes(of: sequence.littleEndian, toByteOffset: 0, as: UInt64.self)
                    payload.storeBytes(of: EventLoop.monotonicNow().littleEndian, toByteOffset: 8, as: UInt64.self)
                }
            }
            sentNow += 1
        }
        if sentNow > 0 {
            self.counters.add(.sent, sentNow)
            self.counters.add(.outstanding, sentNow)
        }
    }

    override func connection(
        _ connection: BenchConnection,
        didReceive opcode: WebSocketOpcode,
        payload: UnsafeMutableRawBufferPointer
    ) {
        let now = EventLoop.monotonicNow()
        let slot = self.slot(of: connection)
        guard opcode == .binary, payload.count == self.template.count else {
            self.counters.add(.mismatched)
            self.noteError("unexpected \(opcode) reply of \(payload.count) bytes")
            return
        }
        let sequence = UInt64(littleEndian: payload.loadUnaligned(fromByteOffset: 0, as: UInt64.self))
        let sentAt = UInt64(littleEndian: payload.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        let expected = self.clients[slot].expectedSequence
        guard sequence >= expected, sequence < self.clients[slot].nextSequence else {
            // A duplicate, a reply after its message was given up on, or garbage.
            self.counters.add(.mismatched)
            return
        }
        let skipped = Int(sequence - expected)
        self.clients[slot].expectedSequence = sequence + 1
        self.clients[slot].lastProgress = now
        self.counters.add(.outstanding, -(skipped + 1))
        if skipped > 0 { self.counters.add(.lost, skipped) }
        let intact = self.template.withUnsafeBytes { template in
            memcmp(template.baseAddress! + 16, payload.baseAddress! + 16, template.count - 16) == 0
        }
        if intact {
            self.counters.add(.received)
            self.histogram.record(now &- sentAt)
        } else {
            self.counters.add(.mismatched)
        }
        self.fill(slot)
    }

    /// Counts a connection's outstanding messages as lost.
    private func declareLost(_ slot: Int) {
        let outstanding = self.clients[slot].outstanding
        guard outstanding > 0 else { return }
        self.clients[slot].expectedSequence = self.clients[slot].nextSequence
        self.counters.add(.outstanding, -outstanding)
        self.counters.add(.lost, outstanding)
    }

    override func tick(now: UInt64) {
        let timeout = UInt64(self.options.replyTimeout * 1e9)
        for slot in self.clients.indices
        where self.clients[slot].isOpen && self.clients[slot].outstanding > 0
            && now &- self.clients[slot].lastProgress > timeout
        {
            self.declareLost(slot)
            self.clients[slot].lastProgress = now
            self.fill(slot)
        }
    }
}
