import Rooms

/// How a node follows the rooms of a shared log: the part of cluster mode that is the same whatever keeps the log
/// (Redis, or the in-memory store of tests). It hands each followed room's entries to the delegate strictly in
/// order, each once; buffers what comes early or while the room loads; asks its reader for the entries of a gap;
/// and loads the room again when a gap cannot be filled or the room's records started afresh (a new epoch).
///
/// It does no I/O: the node's store side calls it with what arrived and carries out the reads it asks for through
/// `SharedRoomReader`. Confined to the gateway's thread, like the delegate it calls.
public final class SharedLogFollower {
    /// What this node knows of one room it follows.
    final class FollowedRoom {
        var isLoading = true
        /// Counts the loads, so that answers to an earlier one are ignored.
        var generation = 0
        /// The last sequence number delivered to the delegate.
        var applied: UInt64 = 0
        /// The epoch of the room's shared records the applied entries belong to.
        var epoch: String?
        /// Entries that arrived out of order or while loading, by sequence number.
        var buffered: [UInt64: SharedLogEntry] = [:]
        var isFetching = false
        /// The room must be loaded again when the store is back.
        var needsReload = false
        /// When this node last renewed the room's records with its lease (milliseconds).
        var touchedAt = Int64.min / 2
    }

    /// Most entries one read of a gap asks for; a full answer is followed by another read.
    public static let fetchLimit = 1000

    /// Told what was loaded and delivered; held weakly.
    public weak var delegate: (any SharedRoomLogDelegate)?
    /// Carries out the reads; held weakly (it is the node's store side, which owns this follower).
    public weak var reader: (any SharedRoomReader)?
    /// Logs what goes wrong (a room that cannot be loaded, entries missing); none by default.
    public var log: ((String) -> Void)?
    /// Counters for metrics and tests; the store side counts its own (appends, checkpoints) here too.
    public var statistics = SharedLogStatistics()
    var rooms: [String: FollowedRoom] = [:]
    /// Whether this node has renewed its lease at least once.
    var hasLease = false

    /// A follower of no room yet; set its `reader` and `delegate`.
    public init() {}

    /// The rooms followed, in order.
    public var roomIDs: [String] { self.rooms.keys.sorted() }

    /// The sequence number of the last entry of `roomID` this node applied; nil when it does not follow the room.
    ///
    /// - Parameter roomID: the room.
    public func appliedSequence(of roomID: String) -> UInt64? {
        self.rooms[roomID]?.applied
    }

    /// Whether the room is followed.
    ///
    /// - Parameter roomID: the room.
    public func isFollowing(_ roomID: String) -> Bool {
        self.rooms[roomID] != nil
    }

    /// Starts following a room: loads it. The store side listens for its entries first.
    ///
    /// - Parameter roomID: the room.
    /// - Returns: false when the room was followed already.
    @discardableResult
    public func follow(_ roomID: String) -> Bool {
        guard self.rooms[roomID] == nil else { return false }
        self.rooms[roomID] = FollowedRoom()
        self.load(roomID)
        return true
    }

    /// Stops following a room; answers still on their way for it are ignored.
    ///
    /// - Parameter roomID: the room.
    /// - Returns: false when the room was not followed.
    @discardableResult
    public func unfollow(_ roomID: String) -> Bool {
        self.rooms.removeValue(forKey: roomID) != nil
    }

    // MARK: Answers from the store

    /// A load's answer: the room's epoch, its checkpoint and its retained entries (oldest first). Entries of
    /// another epoch, and a checkpoint of another epoch, are left out; the delegate gets the room as the
    /// checkpoint and the contiguous entries after it describe it.
    ///
    /// - Parameters:
    ///   - roomID: the room.
    ///   - generation: the number `SharedRoomReader.readRoom` was given.
    ///   - epoch: the epoch of the room's records; nil when it has none.
    ///   - checkpoint: the room's checkpoint, if there is one.
    ///   - entries: the retained entries, oldest first.
    public func loaded(
        _ roomID: String,
        generation: Int,
        epoch: String?,
        checkpoint: SharedCheckpoint?,
        entries retained: [SharedLogEntry]
    ) {
        guard let room = self.rooms[roomID], room.generation == generation, room.isLoading else { return }
        let replica = checkpoint?.replica(in: epoch)
        var entries: [RoomLogEntry] = []
        for shared in retained where shared.epoch == epoch {
            if let last = entries.last, shared.entry.sequence != last.sequence + 1 { entries.removeAll() }
            entries.append(shared.entry)
        }
        let base = replica?.state.sequence ?? 0
        if let first = entries.first, first.sequence > base + 1 {
            // Entries missing between the checkpoint and the retained log: the room cannot be rebuilt exactly.
            self.log?(
                "room \(roomID): the shared log lacks entries \(base + 1)..<\(first.sequence); starting from them")
            entries.removeAll()
        }
        room.isLoading = false
        room.epoch = epoch
        room.applied = max(base, entries.last?.sequence ?? 0)
        if room.generation > 1 { self.statistics.reloads += 1 }
        self.delegate?.sharedLogLoaded(room: roomID, checkpoint: replica, entries: entries)
        let buffered = room.buffered.values.sorted { $0.entry.sequence < $1.entry.sequence }
        room.buffered = [:]
        self.received(buffered, in: roomID)
    }

    /// A load failed (the store unreachable or too slow). A room never loaded is forgotten (the delegate answers
    /// what waited for it); a room loaded before stays as it was and is loaded again when the store is back.
    ///
    /// - Parameters:
    ///   - roomID: the room.
    ///   - generation: the number `SharedRoomReader.readRoom` was given.
    ///   - error: what went wrong, for the log.
    public func loadFailed(_ roomID: String, generation: Int, error: String) {
        guard let room = self.rooms[roomID], room.generation == generation, room.isLoading else { return }
        self.log?("cannot load room \(roomID) from the shared store: \(error)")
        if room.applied == 0 && room.epoch == nil {
            self.rooms[roomID] = nil
            self.reader?.stopListening(to: roomID)
            self.delegate?.sharedLogFailed(room: roomID)
        } else {
            room.isLoading = false
            room.needsReload = true
            self.delegate?.sharedLogReloadFailed(room: roomID)
        }
    }

    /// Entries that arrived (published, or in the answer to this node's own append): delivered in order; what
    /// comes early is buffered and the gap read from the store; an entry of another epoch reloads the room.
    ///
    /// - Parameters:
    ///   - entries: the entries, in the order they arrived.
    ///   - roomID: the room.
    public func received(_ entries: [SharedLogEntry], in roomID: String) {
        guard let room = self.rooms[roomID] else { return }
        for shared in entries {
            let entry = shared.entry
            if room.isLoading || room.needsReload {
                room.buffered[entry.sequence] = shared
                continue
            }
            if room.epoch == nil && room.applied == 0 {
                // The room had no shared records when it was loaded: this entry started them.
                room.epoch = shared.epoch
            }
            guard shared.epoch == room.epoch else {
                // The room's shared records started afresh (expired or flushed): reload from them.
                self.load(roomID)
                return
            }
            if entry.sequence <= room.applied { continue }
            if entry.sequence == room.applied + 1 {
                room.applied = entry.sequence
                self.delegate?.sharedLogReceived(room: roomID, entries: [entry])
                while let next = room.buffered.removeValue(forKey: room.applied + 1) {
                    guard next.epoch == room.epoch else { break }
                    room.applied = next.entry.sequence
                    self.delegate?.sharedLogReceived(room: roomID, entries: [next.entry])
                }
                room.buffered = room.buffered.filter { $0.key > room.applied }
            } else {
                room.buffered[entry.sequence] = shared
                self.fillGap(roomID)
            }
        }
    }

    /// A read of a gap's answer: the entries from the sequence number asked for on, or nil when the read failed
    /// (the next poll or reconnect tries again).
    ///
    /// - Parameters:
    ///   - entries: the entries read, oldest first; nil when the read failed.
    ///   - roomID: the room.
    ///   - generation: the number `SharedRoomReader.readEntries` was given.
    public func fetched(_ entries: [SharedLogEntry]?, in roomID: String, generation: Int) {
        guard let room = self.rooms[roomID], room.generation == generation else { return }
        room.isFetching = false
        guard let entries else { return }
        if let first = entries.first, room.epoch == nil, room.applied == 0 { room.epoch = first.epoch }
        if let first = entries.first, first.entry.sequence > room.applied + 1 || first.epoch != room.epoch {
            // Trimmed past what this node applied, or a new epoch: nothing can fill the gap exactly.
            self.load(roomID)
            return
        }
        if entries.isEmpty, let highest = room.buffered.keys.max(), highest > room.applied {
            // Buffered entries ahead, yet the store has nothing after the applied one: it was trimmed or lost.
            self.load(roomID)
            return
        }
        if !entries.isEmpty { self.statistics.gapsFilled += 1 }
        self.received(entries, in: roomID)
        if entries.count == Self.fetchLimit { self.fillGap(roomID) }
    }

    // MARK: Loading and gaps

    /// Loads a room (again): its checkpoint, epoch and retained log.
    func load(_ roomID: String) {
        guard let room = self.rooms[roomID] else { return }
        let isReload = room.applied > 0 || room.epoch != nil
        if isReload && !room.isLoading { self.delegate?.sharedLogReloading(room: roomID) }
        room.isLoading = true
        room.needsReload = false
        // A read of a gap still on its way belongs to the load before: its answer is ignored.
        room.isFetching = false
        room.generation += 1
        self.reader?.readRoom(roomID, generation: room.generation)
    }

    /// Reads the entries after the last applied one, unless a read or a load is on its way.
    func fillGap(_ roomID: String) {
        guard let room = self.rooms[roomID], !room.isLoading, !room.isFetching else { return }
        if room.needsReload {
            self.load(roomID)
            return
        }
        room.isFetching = true
        self.reader?.readEntries(of: roomID, from: room.applied + 1, generation: room.generation)
    }
}

@available(*, unavailable) extension SharedLogFollower: Sendable {}
