import JSONCoding

/// One roster view of a room and its subscribers: the view as last sent, its checksum, and the patches sent
/// recently (for resume). Subscribers with the same view share the computed and encoded patch.
final class ViewChannel {
    struct SentPatch {
        var from: UInt64
        var to: UInt64
        var time: Int64
        var message: [UInt8]
    }

    let spec: RosterViewSpec
    /// The room entry as last sent.
    private(set) var room: RoomRecord
    /// The participants' entries as last sent, by uid, as typed records (compared, diffed and hashed field by
    /// field).
    private(set) var records: [String: RosterRecord]
    /// The room sequence number the view as last sent corresponds to.
    private(set) var sequence: UInt64
    private var entryHashes: [String: UInt64] = [:]
    private var roomHash: UInt64 = 0
    private(set) var checksum: UInt64 = 0
    var subscribers: [SessionID] = []
    private(set) var history: [SentPatch] = []
    /// When the last subscriber left (channels without subscribers are dropped after the history age).
    var idleSince: Int64?

    /// An encoded plain snapshot of this view, reusable while the room and the view stay at these sequence numbers
    /// and before `validUntil` (when a participant's minute totals change).
    struct CachedSnapshot {
        var stateSequence: UInt64
        var viewSequence: UInt64
        var validUntil: Int64
        var bytes: [UInt8]
    }

    var cachedSnapshot: CachedSnapshot?

    init(spec: RosterViewSpec, room: RoomRecord, records: [String: RosterRecord], sequence: UInt64) {
        self.spec = spec
        self.room = room
        self.records = records
        self.sequence = sequence
        self.roomHash = room.checksumHash
        self.checksum = self.roomHash
        for (uid, record) in records {
            let hash = record.checksumHash
            self.entryHashes[uid] = hash
            self.checksum &+= hash
        }
    }

    /// The view as last sent, as JSON objects.
    var view: RosterView {
        RosterView(room: self.room.object, participants: self.records.mapValues(\.object))
    }

    /// Sets one participant's entry (nil removes it) and returns the merge patch for it, if anything changed.
    ///
    /// - Parameters:
    ///   - uid: the participant.
    ///   - record: the entry now, nil when the participant is not in the view.
    ///   - hashes: entries' checksum hashes already computed in this round of patches (shared by the views).
    func update(_ uid: String, to record: RosterRecord?, hashes: inout [String: UInt64]) -> JSONValue? {
        switch (self.records[uid], record) {
        case (nil, nil):
            return nil
        case (.some, nil):
            self.records[uid] = nil
            self.checksum &-= self.entryHashes.removeValue(forKey: uid) ?? 0
            return .null
        case (nil, let new?):
            self.setEntry(uid, new, hashes: &hashes)
            return .object(new.object)
        case (let old?, let new?):
            guard let patch = new.patch(from: old) else { return nil }
            self.setEntry(uid, new, hashes: &hashes)
            return .object(patch)
        }
    }

    private func setEntry(_ uid: String, _ record: RosterRecord, hashes: inout [String: UInt64]) {
        self.records[uid] = record
        let hash: UInt64
        if let known = hashes[uid] {
            hash = known
        } else {
            hash = record.checksumHash
            hashes[uid] = hash
        }
        self.checksum &-= self.entryHashes[uid] ?? 0
        self.checksum &+= hash
        self.entryHashes[uid] = hash
    }

    /// Sets the room entry and returns its merge patch, if anything changed.
    func updateRoom(_ room: RoomRecord) -> JSONObject? {
        guard let patch = room.patch(from: self.room) else { return nil }
        self.room = room
        let hash = room.checksumHash
        self.checksum &-= self.roomHash
        self.checksum &+= hash
        self.roomHash = hash
        return patch
    }

    /// Records a sent patch and moves the view's sequence number forward.
    func recordPatch(from: UInt64, to: UInt64, time: Int64, message: [UInt8], retention: HistoryRetention) {
        self.sequence = to
        self.history.append(SentPatch(from: from, to: to, time: time, message: message))
        var drop = max(0, self.history.count - retention.maximumEntries)
        while drop < self.history.count && time - self.history[drop].time > retention.maximumAgeMilliseconds {
            drop += 1
        }
        if drop > 0 { self.history.removeFirst(drop) }
    }

    /// Every patch a client that has seen everything up to `sequence` is missing, or nil when they are not all
    /// retained. Between two patches the view does not change, so any sequence number works, not only patch
    /// boundaries: the view at `sequence` is the one the first later patch starts from.
    func patches(after sequence: UInt64) -> [SentPatch]? {
        if sequence >= self.sequence { return [] }
        guard let index = self.history.firstIndex(where: { $0.to > sequence }),
            self.history[index].from <= sequence
        else { return nil }
        return Array(self.history[index...])
    }
}
