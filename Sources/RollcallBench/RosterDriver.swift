import EventIO
import JSONCoding
import RollcallClient
import WebSocketCore

#if canImport(Glibc)
import Glibc
#endif

/// `roster`: participants join one room and change their state (mute, hand, video, presenting) at a fixed total
/// rate, while observers mirror the roster from its snapshot and patches.
///
/// Every state change also sets the participant's `mid` to `b` followed by the send time (20 digits, monotonic
/// nanoseconds), so a patch that reflects the change carries its send time: each participant entry with a `mid` in
/// a patch an observer receives is one latency sample (the patch window coalesces changes; the newest one counts).
///
/// Observers mirror with `RosterStore` (merge patches, `from`/`seq` continuity, checksum verified against the
/// server's on every step). Observers on one loop that hold the same roster and receive the same bytes reach the
/// same roster, so the result of applying a message to a roster is computed once per loop and shared: the
/// per-message cost for the other observers is a hash of the payload and a table lookup.
///
/// Connection indexes: participants are `0..<participants`, observers follow; a loop owns the ones whose number
/// (among participants, or among observers) is its index modulo the number of loops.
final class RosterDriver: BenchDriver {
    /// The room and its tokens, shared by all loops.
    struct Spec: Sendable {
        var room: String
        var participantTokens: [String]
        var observerTokens: [String]
        var participantIDs: [String]
    }

    /// What one participant last asked for.
    struct IntendedState: Sendable {
        var uid: String
        var flags: [Bool]
        var mid: String?
    }

    /// The state fields a change flips, in turn.
    static let fields = ["audioMuted", "handRaised", "videoPaused", "presenting"]
    static let timeDigits = 20
    private static let midMarker = Array("\"mid\":\"b".utf8)
    private static let seqMarker = Array("\"seq\":".utf8)
    /// Snapshots of a full room (a thousand participants) are far larger than the parser's defaults.
    private static let parserLimits = JSONParser.Limits(
        maxInputBytes: 16 << 20, maxDepth: 16, maxStringBytes: 64 * 1024, maxElementsPerContainer: 100_000,
        maxTotalNodes: 4_000_000)

    private struct Participant {
        var global: Int
        var connection: BenchConnection
        var joined = false
        var state: IntendedState
        var changes = 0
    }

    struct Observer {
        var connection: BenchConnection
        var store: RosterStore?
        /// Identifies `store`'s value on this loop (0: none).
        var stateID = 0
        var caughtUp = false
    }

    private struct MemoKey: Hashable {
        var base: Int
        var hash: UInt64
        var count: Int
    }

    private let spec: Spec
    private let loopIndex: Int
    private let loopCount: Int
    private var participants: [Participant] = []
    private(set) var observers: [Observer] = []
    private var memo: [MemoKey: (id: Int, store: RosterStore)] = [:]
    private var nextStateID = 1
    private var changeStart: UInt64 = 0
    private var nextChange = 0
    private var targetSequence: UInt64?
    /// The highest `seq` in an acknowledgement of a state change.
    private(set) var highestAcknowledged: UInt64 = 0

    init(
        loop: EventLoop, options: BenchOptions, counters: BenchCounters, tlsContext: TLSContext?, spec: Spec,
        loopIndex: Int, loopCount: Int
    ) {
        self.spec = spec
        self.loopIndex = loopIndex
        self.loopCount = loopCount
        super.init(loop: loop, options: options, counters: counters, tlsContext: tlsContext)
    }

    override var tickInterval: UInt64 { 5_000_000 }

    /// The participants' intended states on this loop (read after the loop stopped).
    var intendedStates: [IntendedState] { self.participants.map(\.state) }

    private func path(token: String) -> String {
        let base = self.options.target.path
        return base + (base.contains("?") ? "&" : "?") + "token=" + token
    }

    override func start() {
        super.start()
        let participantCount = self.spec.participantTokens.count
        for global in stride(from: self.loopIndex, to: participantCount, by: self.loopCount) {
            let connection = self.makeConnection(
                index: global, path: self.path(token: self.spec.participantTokens[global]))
            let state = IntendedState(
                uid: self.spec.participantIDs[global], flags: Array(repeating: false, count: Self.fields.count))
            self.participants.append(Participant(global: global, connection: connection, state: state))
        }
        for observer in stride(from: self.loopIndex, to: self.spec.observerTokens.count, by: self.loopCount) {
            let connection = self.makeConnection(
                index: participantCount + observer, path: self.path(token: self.spec.observerTokens[observer]))
            self.observers.append(Observer(connection: connection))
        }
        // Participants first, so most observers join a populated room.
        for participant in self.participants { self.open(participant.connection) }
        for observer in self.observers { self.open(observer.connection) }
    }

    override func startLoad() {
        super.startLoad()
        self.changeStart = EventLoop.monotonicNow()
    }

    override func closeAll() {
        super.closeAll()
        for participant in self.participants { participant.connection.close() }
        for observer in self.observers { observer.connection.close() }
    }

    /// Counts observers at `sequence` or later as caught up (the drain after the load).
    func awaitSequence(_ sequence: UInt64) {
        self.targetSequence = sequence
        for index in self.observers.indices { self.checkCaughtUp(index) }
    }

    private func checkCaughtUp(_ index: Int) {
        guard let target = self.targetSequence, !self.observers[index].caughtUp,
            let store = self.observers[index].store, store.sequence >= target
        else { return }
        self.observers[index].caughtUp = true
        self.counters.add(.caughtUp)
    }

    @inline(__always)
    private func slot(of connection: BenchConnection) -> (isParticipant: Bool, local: Int) {
        let participantCount = self.spec.participantTokens.count
        if connection.index < participantCount { return (true, connection.index / self.loopCount) }
        return (false, (connection.index - participantCount) / self.loopCount)
    }

    override func didOpen(_ connection: BenchConnection) {
        let (isParticipant, _) = self.slot(of: connection)
        let join =
            isParticipant
            ? "{\"type\":\"join\",\"id\":1,\"room\":\"\(self.spec.room)\",\"device\":\"bench\",\"events\":\"none\"}"
            : "{\"type\":\"join\",\"id\":1,\"room\":\"\(self.spec.room)\",\"as\":\"observer\",\"events\":\"none\"}"
        var bytes = Array(join.utf8)
        bytes.withUnsafeMutableBytes { connection.send(.text, payload: UnsafeRawBufferPointer($0)) }
    }

    override func didClose(_ connection: BenchConnection, error: String?) {
        let (isParticipant, local) = self.slot(of: connection)
        if isParticipant { self.participants[local].joined = false }
    }

    // MARK: Changes

    override func tick(now: UInt64) {
        guard self.isLoading else { return }
        let due = Int(Double(now &- self.changeStart) * Double(self.options.rate) / 1e9)
        let participantCount = self.spec.participantTokens.count
        var burst = 0
        while self.nextChange < due, burst < 1000 {
            let global = self.nextChange % participantCount
            self.nextChange += 1
            burst += 1
            if global % self.loopCount == self.loopIndex { self.change(global / self.loopCount) }
        }
    }

    private func change(_ local: Int) {
        guard self.participants[local].joined else { return }
        let field = self.participants[local].changes % Self.fields.count
        self.participants[local].changes += 1
        let value = !self.participants[local].state.flags[field]
        self.participants[local].state.flags[field] = value
        var stamp = String(EventLoop.monotonicNow())
        stamp = String(repeating: "0", count: Self.timeDigits - stamp.count) + stamp
        let mid = "b" + stamp
        self.participants[local].state.mid = mid
        let message =
            "{\"type\":\"state\",\"id\":\(self.participants[local].changes),\"room\":\"\(self.spec.room)\","
            + "\"\(Self.fields[field])\":\(value),\"mid\":\"\(mid)\"}"
        var bytes = Array(message.utf8)
        bytes.withUnsafeMutableBytes {
            self.participants[local].connection.send(.text, payload: UnsafeRawBufferPointer($0))
        }
        self.counters.add(.sent)
    }

    // MARK: Receiving

    override func connection(
        _ connection: BenchConnection,
        didReceive opcode: WebSocketOpcode,
        payload: UnsafeMutableRawBufferPointer
    ) {
        let bytes = UnsafeRawBufferPointer(payload)
        if PayloadSearch.hasPrefix(bytes, "{\"type\":\"error\"") {
            self.counters.add(.errors)
            self.noteError(String(decoding: bytes.prefix(200), as: UTF8.self))
            return
        }
        let (isParticipant, local) = self.slot(of: connection)
        if isParticipant {
            guard PayloadSearch.hasPrefix(bytes, "{\"type\":\"ack\"") else { return }
            if !self.participants[local].joined {
                self.participants[local].joined = true
                self.counters.add(.ready)
            } else if let at = PayloadSearch.end(of: Self.seqMarker, in: bytes) {
                var sequence: UInt64 = 0
                var index = at
                while index < bytes.count, bytes[index] &- UInt8(ascii: "0") < 10 {
                    sequence = sequence &* 10 &+ UInt64(bytes[index] &- UInt8(ascii: "0"))
                    index += 1
                }
                if sequence > self.highestAcknowledged {
                    self.highestAcknowledged = sequence
                    self.counters.highestSequence.store(Int(sequence), ordering: .releasing)
                }
                // Counted after the sequence number is published: whoever sees every change acknowledged also sees
                // the highest sequence number among them (the drain's target).
                self.counters.add(.acknowledged)
            }
            return
        }
        if PayloadSearch.hasPrefix(bytes, "{\"type\":\"patch\"") {
            guard self.observers[local].store != nil else { return }
            let now = EventLoop.monotonicNow()
            self.apply(bytes, to: local, isSnapshot: false)
            self.counters.add(.received)
            var offset = 0
            while let start = PayloadSearch.end(of: Self.midMarker, in: bytes, from: offset) {
                offset = start + Self.timeDigits
                guard let sentAt = FixedWidthDigits.read(bytes, at: start, width: Self.timeDigits) else { continue }
                self.histogram.record(now &- sentAt)
            }
            self.checkCaughtUp(local)
        } else if PayloadSearch.hasPrefix(bytes, "{\"type\":\"snapshot\"") {
            let first = self.observers[local].store == nil
            self.apply(bytes, to: local, isSnapshot: true)
            if first && self.observers[local].store != nil { self.counters.add(.ready) }
            self.checkCaughtUp(local)
        }
    }

    /// Applies a snapshot or patch to an observer's roster, computing the result once per (roster, bytes).
    private func apply(_ bytes: UnsafeRawBufferPointer, to local: Int, isSnapshot: Bool) {
        let key = MemoKey(
            base: isSnapshot ? 0 : self.observers[local].stateID, hash: Self.fnv1a(bytes), count: bytes.count)
        if let known = self.memo[key] {
            self.observers[local].store = known.store
            self.observers[local].stateID = known.id
            return
        }
        do {
            let message = try JSONParser.parse(bytes, limits: Self.parserLimits)
            var store: RosterStore
            if isSnapshot {
                store = try RosterStore(snapshot: message)
            } else {
                store = self.observers[local].store!
                try store.apply(patch: message)
            }
            let id = self.nextStateID
            self.nextStateID += 1
            if self.memo.count >= 4096 { self.memo.removeAll(keepingCapacity: true) }
            self.memo[key] = (id, store)
            self.observers[local].store = store
            self.observers[local].stateID = id
        } catch {
            // A drifted mirror: counted, and the observer keeps its last good roster (it will not converge).
            self.counters.add(.mismatched)
            self.noteError("observer \(local) on loop \(self.loopIndex): \(error)")
        }
    }

    // MARK: Bytes

    @inline(__always)
    private static func fnv1a(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return hash
    }

}
