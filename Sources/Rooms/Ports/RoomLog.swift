/// How much of a room's log is kept for history queries and resume.
public struct HistoryRetention: Hashable, Sendable {
    /// Most entries kept per room.
    public var maximumEntries: Int
    /// Entries older than this are dropped, in milliseconds.
    public var maximumAgeMilliseconds: Int64

    /// - Parameters:
    ///   - maximumEntries: default 1,000.
    ///   - maximumAgeMilliseconds: default one hour.
    public init(maximumEntries: Int = 1000, maximumAgeMilliseconds: Int64 = 3_600_000) {
        self.maximumEntries = maximumEntries
        self.maximumAgeMilliseconds = maximumAgeMilliseconds
    }
}

/// The ordered event log of one room: appending gives each event the next sequence number.
///
/// This is the embedded, in-memory log; a cluster keeps the same log in a shared store so that every node assigns
/// the same numbers. The retained entries are a ring: once the retention is reached, each append drops the oldest
/// entry in O(1), without moving or copying the others.
public struct RoomLog: Sendable {
    /// The retained entries, oldest first; their sequence numbers are contiguous.
    public private(set) var entries = RingBuffer<RoomLogEntry>()
    /// The sequence number of the last appended entry (0 when none).
    public private(set) var lastSequence: UInt64 = 0
    /// How many entries, and how old, the log keeps for history and resume.
    public let retention: HistoryRetention
    /// The newest sequence number of a dropped entry that subscribers in the `notable` event mode may have been
    /// sent (`EventMode.mayDeliver`); the log's start while it has dropped none of them.
    private var lastDroppedNotable: UInt64
    /// The same for the `none` event mode (meeting messages and unmute requests).
    private var lastDroppedQuiet: UInt64

    /// - Parameters:
    ///   - retention: how much to keep.
    ///   - sequence: the sequence number of the last entry before this log (a checkpoint's), 0 for a new room.
    ///     What came before it counts as dropped, for every event mode.
    public init(retention: HistoryRetention, after sequence: UInt64 = 0) {
        self.retention = retention
        self.lastSequence = sequence
        self.lastDroppedNotable = sequence
        self.lastDroppedQuiet = sequence
    }

    /// Appends an event and returns its entry (`trim` drops what is no longer retained).
    ///
    /// - Parameters:
    ///   - event: the event.
    ///   - time: now, in milliseconds since the epoch.
    ///   - actor: who caused it.
    ///   - reason: a moderator's reason.
    public mutating func append(_ event: RoomEvent, time: Int64, actor: String?, reason: String? = nil) -> RoomLogEntry
    {
        self.lastSequence += 1
        let entry = RoomLogEntry(sequence: self.lastSequence, time: time, actor: actor, reason: reason, event: event)
        self.entries.append(entry)
        return entry
    }

    /// Appends an entry numbered elsewhere (a cluster's shared log); it must be the next one.
    ///
    /// - Parameter entry: the entry, whose sequence number follows `lastSequence`.
    public mutating func insert(_ entry: RoomLogEntry) {
        precondition(entry.sequence == self.lastSequence + 1, "log entries must arrive in order")
        self.lastSequence = entry.sequence
        self.entries.append(entry)
    }

    /// The sequence number of the oldest retained entry; `lastSequence + 1` when none is retained.
    public var firstSequence: UInt64 { self.lastSequence + 1 - UInt64(self.entries.count) }

    /// Whether the oldest retained entry is beyond the retention count or age (`trim` would drop it).
    ///
    /// - Parameter now: now, in milliseconds since the epoch.
    public func isOverRetention(now: Int64) -> Bool {
        // The count first, then the oldest entry's time, read in place.
        !self.entries.isEmpty
            && (self.entries.count > self.retention.maximumEntries
                || now - self.entries[0].time > self.retention.maximumAgeMilliseconds)
    }

    /// Drops the entries beyond the retention count or age, oldest first, handing each to `dropped` as it goes.
    /// Each dropped entry costs O(1): nothing else moves.
    ///
    /// - Parameters:
    ///   - now: now, in milliseconds since the epoch.
    ///   - restricted: the entries only one participant could receive (about a hidden participant), by sequence
    ///     number: such an entry is no loss to the other subscribers' modes (`droppedThrough`), the caller keeps
    ///     track of it for that participant.
    ///   - dropped: called with each dropped entry, oldest first.
    public mutating func trim(
        now: Int64, restricted: [UInt64: String] = [:], dropped: (RoomLogEntry) -> Void = { _ in }
    ) {
        while self.isOverRetention(now: now), let oldest = self.entries.popFirst() {
            if restricted.isEmpty || restricted[oldest.sequence] == nil {
                if EventMode.notable.mayDeliver(oldest.event) { self.lastDroppedNotable = oldest.sequence }
                if EventMode.none.mayDeliver(oldest.event) { self.lastDroppedQuiet = oldest.sequence }
            }
            dropped(oldest)
        }
    }

    /// The newest sequence number up to which a subscriber in `mode` may have been sent an entry that the log no
    /// longer holds (everything before the log's start counts): every entry after it that the mode takes is
    /// retained. For `all` it is the entry before the first retained one; the other modes take fewer events, so a
    /// subscriber that takes few can resume from further back than the retained entries reach.
    ///
    /// - Parameter mode: the subscriber's event mode.
    public func droppedThrough(takenBy mode: EventMode) -> UInt64 {
        switch mode {
        case .all: return self.firstSequence - 1
        case .notable: return self.lastDroppedNotable
        case .none: return self.lastDroppedQuiet
        }
    }

    /// Every entry after `sequence`, or nil when some of them are no longer retained (a resume must then start
    /// from a fresh snapshot: never a partial recovery).
    ///
    /// - Parameter sequence: the last sequence number the client saw.
    public func entries(after sequence: UInt64) -> [RoomLogEntry]? {
        if sequence >= self.lastSequence { return sequence == self.lastSequence ? [] : nil }
        guard !self.entries.isEmpty, self.firstSequence <= sequence + 1 else { return nil }
        return Array(self.retained(after: sequence))
    }

    /// The retained entries after `sequence`, oldest first: all of them when `sequence` is before the first, none
    /// when it is at or after the last. Found by position (the sequence numbers are contiguous), not by a scan.
    ///
    /// - Parameter sequence: a sequence number.
    public func retained(after sequence: UInt64) -> Slice<RingBuffer<RoomLogEntry>> {
        let first = self.firstSequence
        guard sequence >= first else { return self.entries[...] }
        let start = min(Int(sequence - first) + 1, self.entries.count)
        return self.entries[start...]
    }
}
