import Rooms

/// A `RoomStore` in memory with the SQLite store's semantics (buffered writes, all-or-nothing commits, retention
/// only behind a checkpoint), so that restart scenarios run deterministically: keep the store, drop the gateway
/// (and with `crash()` what was not committed), start a new gateway on the same store.
public final class InMemoryRoomStore: RoomStore {
    private struct Room {
        var entries: [StoredLogEntry] = []
        var checkpoints: [RoomReplica] = []
    }

    private var committed: [String: Room] = [:]
    private var pendingEntries: [(room: String, entry: StoredLogEntry)] = []
    private var pendingCheckpoints: [RoomReplica] = []
    /// When set, the next commit fails with this error (and keeps its writes).
    public var failNextCommit: RoomStoreError?
    /// When set, every `loadRoom` fails with this error.
    public var failLoads: RoomStoreError?
    /// When set, every `history` and `checkpoint` read fails with this error.
    public var failReads: RoomStoreError?
    /// Commits that wrote something.
    public private(set) var commits = 0

    /// An empty store.
    public init() {}

    /// Whether writes wait for the next commit.
    public var hasPendingWrites: Bool { !self.pendingEntries.isEmpty || !self.pendingCheckpoints.isEmpty }

    /// The process ended: what was not committed is gone.
    public func crash() {
        self.pendingEntries = []
        self.pendingCheckpoints = []
    }

    /// Committed entries of a room, oldest first.
    ///
    /// - Parameter room: the room id.
    public func committedEntries(of room: String) -> [StoredLogEntry] { self.committed[room]?.entries ?? [] }

    /// Drops a room's committed entries at or below `sequence` that are behind its latest checkpoint, as retention
    /// would.
    ///
    /// - Parameters:
    ///   - room: the room id.
    ///   - sequence: the newest sequence number to drop.
    ///   - keeping: entries of these classes stay.
    public func trim(_ room: String, through sequence: UInt64, keeping: Set<RetentionClass> = []) {
        guard var stored = self.committed[room] else { return }
        let limit = min(sequence, stored.checkpoints.last?.state.sequence ?? 0)
        stored.entries.removeAll { $0.entry.sequence <= limit && !keeping.contains($0.entry.retentionClass) }
        self.committed[room] = stored
    }

    public func loadRoom(_ room: String, maximumEntries: Int) throws(RoomStoreError) -> StoredRoom? {
        if let failLoads { throw failLoads }
        guard let stored = self.committed[room] else { return nil }
        var run: [StoredLogEntry] = []
        for item in stored.entries.reversed() {
            if let next = run.first, item.entry.sequence + 1 != next.entry.sequence { break }
            run.insert(item, at: 0)
        }
        let start = run.first?.entry.sequence ?? ((stored.checkpoints.last?.state.sequence ?? 0) + 1)
        let checkpoint =
            stored.checkpoints.first {
                $0.state.sequence + 1 >= start
                    && $0.state.sequence + UInt64(maximumEntries) >= (run.last?.entry.sequence ?? 0)
            }
            ?? stored.checkpoints.last
        let base = checkpoint?.state.sequence ?? 0
        guard base + 1 >= start else { throw RoomStoreError("room '\(room)': no checkpoint covers \(start - 1)") }
        return StoredRoom(checkpoint: checkpoint, entries: run.filter { $0.entry.sequence > base })
    }

    public func append(_ entry: StoredLogEntry, room: String) {
        self.pendingEntries.append((room, entry))
    }

    public func writeCheckpoint(_ replica: RoomReplica) {
        self.pendingCheckpoints.append(replica)
    }

    public func commit() throws(RoomStoreError) {
        if let failure = self.failNextCommit {
            self.failNextCommit = nil
            throw failure
        }
        guard self.hasPendingWrites else { return }
        for (room, entry) in self.pendingEntries {
            precondition(
                self.committed[room]?.entries.last.map { $0.entry.sequence < entry.entry.sequence } ?? true,
                "entries are stored in order")
            self.committed[room, default: Room()].entries.append(entry)
        }
        for replica in self.pendingCheckpoints {
            self.committed[replica.state.id, default: Room()].checkpoints.append(replica)
        }
        self.pendingEntries = []
        self.pendingCheckpoints = []
        self.commits += 1
    }

    public func history(
        room: String, after: UInt64, eventNames: Set<String>?, limit: Int
    ) throws(RoomStoreError) -> [StoredLogEntry] {
        if let failReads { throw failReads }
        let entries = self.committed[room]?.entries ?? []
        return Array(
            entries.filter { $0.entry.sequence > after && (eventNames?.contains($0.eventName) ?? true) }.prefix(limit))
    }

    public func checkpoint(room: String, atOrBefore sequence: UInt64) throws(RoomStoreError) -> RoomReplica? {
        if let failReads { throw failReads }
        return self.committed[room]?.checkpoints.last { $0.state.sequence <= sequence }
    }

    public func audit(
        room: String?, before: Int64?, limit: Int
    ) throws(RoomStoreError) -> [(room: String, entry: StoredLogEntry)] {
        var found: [(room: String, entry: StoredLogEntry)] = []
        for (id, stored) in self.committed where room == nil || room == id {
            for item in stored.entries
            where item.entry.retentionClass == .moderation && item.entry.time < (before ?? Int64.max) {
                found.append((id, item))
            }
        }
        // Newest first, and within a millisecond the later entry first, as the SQLite store orders them.
        found.sort {
            ($0.entry.entry.time, $0.room, $0.entry.entry.sequence) > (
                $1.entry.entry.time, $1.room, $1.entry.entry.sequence
            )
        }
        return Array(found.prefix(limit))
    }

    public func rooms(after: String?, limit: Int) throws(RoomStoreError) -> [(room: String, sequence: UInt64)] {
        let ids = self.committed.keys.sorted().filter { $0 > (after ?? "") }.prefix(limit)
        return ids.map { ($0, self.committed[$0]?.entries.last?.entry.sequence ?? 0) }
    }
}

@available(*, unavailable) extension InMemoryRoomStore: Sendable {}
