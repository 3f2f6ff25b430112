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
/// the same numbers.
public struct RoomLog: Sendable {
    /// The retained entries, oldest first.
    public private(set) var entries: [RoomLogEntry] = []
    /// The sequence number of the last appended entry (0 when none).
    public private(set) var lastSequence: UInt64 = 0
    public let retention: HistoryRetention

    /// - Parameters:
    ///   - retention: how much to keep.
    ///   - sequence: the sequence number of the last entry before this log (a checkpoint's), 0 for a new room.
    public init(retention: HistoryRetention, after sequence: UInt64 = 0) {
        self.retention = retention
        self.lastSequence = sequence
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

    /// Drops entries beyond the retention count or age and returns them, oldest first.
    @discardableResult
    public mutating func trim(now: Int64) -> ArraySlice<RoomLogEntry> {
        var drop = max(0, self.entries.count - self.retention.maximumEntries)
        while drop < self.entries.count && now - self.entries[drop].time > self.retention.maximumAgeMilliseconds {
            drop += 1
        }
        guard drop > 0 else { return [] }
        let dropped = self.entries[..<drop]
        self.entries.removeFirst(drop)
        return dropped
    }

    /// Every entry after `sequence`, or nil when some of them are no longer retained (a resume must then start
    /// from a fresh snapshot: never a partial recovery).
    ///
    /// - Parameter sequence: the last sequence number the client saw.
    public func entries(after sequence: UInt64) -> [RoomLogEntry]? {
        if sequence >= self.lastSequence { return sequence == self.lastSequence ? [] : nil }
        guard let first = self.entries.first, first.sequence <= sequence + 1 else { return nil }
        let start = Int(sequence + 1 - first.sequence)
        return Array(self.entries[start...])
    }
}
