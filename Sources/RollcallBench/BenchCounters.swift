import EventIO
import Synchronization

/// One client loop's counters, written on the loop's thread and read by the runner for progress.
final class BenchCounters: Sendable {
    /// Connections upgraded and not closed yet.
    let open = Atomic<Int>(0)
    /// Upgrades completed.
    let opened = Atomic<Int>(0)
    /// Connections that failed before the upgrade completed.
    let connectFailures = Atomic<Int>(0)
    /// Connections that failed after the upgrade, and protocol errors.
    let errors = Atomic<Int>(0)
    /// Messages sent (echo requests, meeting messages).
    let sent = Atomic<Int>(0)
    /// Messages received and accounted for (echo replies, deliveries).
    let received = Atomic<Int>(0)
    /// Messages never received: skipped in the sequence, timed out, or undelivered at the end.
    let lost = Atomic<Int>(0)
    /// Duplicated, reordered or corrupted messages.
    let mismatched = Atomic<Int>(0)
    /// Echo requests waiting for their reply.
    let outstanding = Atomic<Int>(0)
    /// Deliveries expected (fanout): meeting messages sent times the observers of the room.
    let expected = Atomic<Int>(0)
    /// Participants ready for the load (fanout: observers joined and publishers connected).
    let ready = Atomic<Int>(0)
    /// State changes acknowledged by the server (roster).
    let acknowledged = Atomic<Int>(0)
    /// Observers whose roster reached the last acknowledged sequence number after the load (roster).
    let caughtUp = Atomic<Int>(0)
    /// The highest room sequence number acknowledged to this loop's participants (roster; one writer).
    let highestSequence = Atomic<Int>(0)
    /// Upgrades where the server agreed to permessage-deflate.
    let compressionAgreed = Atomic<Int>(0)
    /// Compressed messages received (RSV1) and inflated.
    let compressedReceived = Atomic<Int>(0)
    /// Their payload bytes as received (frame headers excluded).
    let compressedReceivedWireBytes = Atomic<Int>(0)
    /// Their bytes after inflation.
    let compressedReceivedInflatedBytes = Atomic<Int>(0)
    /// Messages sent compressed.
    let compressedSent = Atomic<Int>(0)
    /// Their bytes before compression.
    let compressedSentOriginalBytes = Atomic<Int>(0)
    /// Their payload bytes as sent (frame headers excluded).
    let compressedSentWireBytes = Atomic<Int>(0)
    /// Bytes written to and read from the sockets (TLS: ciphertext), HTTP upgrades included, counted by the
    /// connections' streams.
    let wire = StreamConnectionStatistics()

    /// Names the counters for `add`.
    enum Counter {
        case open, opened, connectFailures, errors, sent, received, lost, mismatched, outstanding, expected, ready
        case acknowledged, caughtUp
        case compressionAgreed, compressedReceived, compressedReceivedWireBytes, compressedReceivedInflatedBytes
        case compressedSent, compressedSentOriginalBytes, compressedSentWireBytes
    }

    @inline(__always)
    func add(_ counter: Counter, _ amount: Int = 1) {
        switch counter {
        case .open: self.open.wrappingAdd(amount, ordering: .relaxed)
        case .opened: self.opened.wrappingAdd(amount, ordering: .relaxed)
        case .connectFailures: self.connectFailures.wrappingAdd(amount, ordering: .relaxed)
        case .errors: self.errors.wrappingAdd(amount, ordering: .relaxed)
        case .sent: self.sent.wrappingAdd(amount, ordering: .relaxed)
        case .received: self.received.wrappingAdd(amount, ordering: .relaxed)
        case .lost: self.lost.wrappingAdd(amount, ordering: .relaxed)
        case .mismatched: self.mismatched.wrappingAdd(amount, ordering: .relaxed)
        case .outstanding: self.outstanding.wrappingAdd(amount, ordering: .relaxed)
        case .expected: self.expected.wrappingAdd(amount, ordering: .relaxed)
        case .ready: self.ready.wrappingAdd(amount, ordering: .relaxed)
        case .acknowledged: self.acknowledged.wrappingAdd(amount, ordering: .releasing)
        case .caughtUp: self.caughtUp.wrappingAdd(amount, ordering: .relaxed)
        case .compressionAgreed: self.compressionAgreed.wrappingAdd(amount, ordering: .relaxed)
        case .compressedReceived: self.compressedReceived.wrappingAdd(amount, ordering: .relaxed)
        case .compressedReceivedWireBytes: self.compressedReceivedWireBytes.wrappingAdd(amount, ordering: .relaxed)
        case .compressedReceivedInflatedBytes:
            self.compressedReceivedInflatedBytes.wrappingAdd(amount, ordering: .relaxed)
        case .compressedSent: self.compressedSent.wrappingAdd(amount, ordering: .relaxed)
        case .compressedSentOriginalBytes: self.compressedSentOriginalBytes.wrappingAdd(amount, ordering: .relaxed)
        case .compressedSentWireBytes: self.compressedSentWireBytes.wrappingAdd(amount, ordering: .relaxed)
        }
    }

    /// A copy of the counters' values.
    func snapshot() -> BenchCounterValues {
        BenchCounterValues(
            open: self.open.load(ordering: .relaxed),
            opened: self.opened.load(ordering: .relaxed),
            connectFailures: self.connectFailures.load(ordering: .relaxed),
            errors: self.errors.load(ordering: .relaxed),
            sent: self.sent.load(ordering: .relaxed),
            received: self.received.load(ordering: .relaxed),
            lost: self.lost.load(ordering: .relaxed),
            mismatched: self.mismatched.load(ordering: .relaxed),
            outstanding: self.outstanding.load(ordering: .relaxed),
            expected: self.expected.load(ordering: .relaxed),
            ready: self.ready.load(ordering: .relaxed),
            // Acquiring: the highest sequence number, stored before each acknowledgement, is read after it.
            acknowledged: self.acknowledged.load(ordering: .acquiring),
            caughtUp: self.caughtUp.load(ordering: .relaxed),
            highestSequence: self.highestSequence.load(ordering: .relaxed),
            compressionAgreed: self.compressionAgreed.load(ordering: .relaxed),
            compressedReceived: self.compressedReceived.load(ordering: .relaxed),
            compressedReceivedWireBytes: self.compressedReceivedWireBytes.load(ordering: .relaxed),
            compressedReceivedInflatedBytes: self.compressedReceivedInflatedBytes.load(ordering: .relaxed),
            compressedSent: self.compressedSent.load(ordering: .relaxed),
            compressedSentOriginalBytes: self.compressedSentOriginalBytes.load(ordering: .relaxed),
            compressedSentWireBytes: self.compressedSentWireBytes.load(ordering: .relaxed),
            bytesSent: self.wire.bytesSent,
            bytesReceived: self.wire.bytesReceived
        )
    }
}

/// Counter values summed over loops.
public struct BenchCounterValues: Sendable {
    public var open = 0
    public var opened = 0
    public var connectFailures = 0
    public var errors = 0
    public var sent = 0
    public var received = 0
    public var lost = 0
    public var mismatched = 0
    public var outstanding = 0
    public var expected = 0
    public var ready = 0
    public var acknowledged = 0
    public var caughtUp = 0
    /// The highest of the loops' values (not a sum).
    public var highestSequence = 0
    /// Upgrades where the server agreed to permessage-deflate.
    public var compressionAgreed = 0
    /// Compressed messages received and inflated.
    public var compressedReceived = 0
    /// The payload bytes of the compressed messages received, as received (frame headers excluded).
    public var compressedReceivedWireBytes = 0
    /// The bytes of the compressed messages received, after inflation.
    public var compressedReceivedInflatedBytes = 0
    /// Messages sent compressed.
    public var compressedSent = 0
    /// The bytes of the messages sent compressed, before compression.
    public var compressedSentOriginalBytes = 0
    /// The payload bytes of the messages sent compressed, as sent (frame headers excluded).
    public var compressedSentWireBytes = 0
    /// Bytes written to the sockets (TLS: ciphertext), HTTP upgrades included.
    public var bytesSent = 0
    /// Bytes read from the sockets (TLS: ciphertext), HTTP upgrades included.
    public var bytesReceived = 0

    static func + (lhs: BenchCounterValues, rhs: BenchCounterValues) -> BenchCounterValues {
        BenchCounterValues(
            open: lhs.open + rhs.open,
            opened: lhs.opened + rhs.opened,
            connectFailures: lhs.connectFailures + rhs.connectFailures,
            errors: lhs.errors + rhs.errors,
            sent: lhs.sent + rhs.sent,
            received: lhs.received + rhs.received,
            lost: lhs.lost + rhs.lost,
            mismatched: lhs.mismatched + rhs.mismatched,
            outstanding: lhs.outstanding + rhs.outstanding,
            expected: lhs.expected + rhs.expected,
            ready: lhs.ready + rhs.ready,
            acknowledged: lhs.acknowledged + rhs.acknowledged,
            caughtUp: lhs.caughtUp + rhs.caughtUp,
            highestSequence: max(lhs.highestSequence, rhs.highestSequence),
            compressionAgreed: lhs.compressionAgreed + rhs.compressionAgreed,
            compressedReceived: lhs.compressedReceived + rhs.compressedReceived,
            compressedReceivedWireBytes: lhs.compressedReceivedWireBytes + rhs.compressedReceivedWireBytes,
            compressedReceivedInflatedBytes: lhs.compressedReceivedInflatedBytes + rhs.compressedReceivedInflatedBytes,
            compressedSent: lhs.compressedSent + rhs.compressedSent,
            compressedSentOriginalBytes: lhs.compressedSentOriginalBytes + rhs.compressedSentOriginalBytes,
            compressedSentWireBytes: lhs.compressedSentWireBytes + rhs.compressedSentWireBytes,
            bytesSent: lhs.bytesSent + rhs.bytesSent,
            bytesReceived: lhs.bytesReceived + rhs.bytesReceived
        )
    }
}
