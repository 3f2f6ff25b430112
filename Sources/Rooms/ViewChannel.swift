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
    /// The view as last sent, and the room sequence number it corresponds to.
    private(set) var view: RosterView
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

    init(spec: RosterViewSpec, view: RosterView, sequence: UInt64) {
        self.spec = spec
        self.view = view
        self.sequence = sequence
        self.roomHash = RosterChecksum.hash(key: "room", .object(view.room))
        self.checksum = self.roomHash
        for (uid, entry) in view.participants {
            let hash = RosterChecksum.hash(key: uid, .object(entry))
            self.entryHashes[uid] = hash
            self.checksum &+= hash
        }
    }

    /// Sets one participant's entry (nil removes it) and returns the merge patch for it, if anything changed.
    func update(_ uid: String, to entry: JSONObject?) -> JSONValue? {
        let old = self.view.participants[uid]
        switch (old, entry) {
        case (nil, nil):
            return nil
        case (let old?, nil):
            _ = old
            self.view.participants[uid] = nil
            self.checksum &-= self.entryHashes.removeValue(forKey: uid) ?? 0
            return .null
        case (nil, let new?):
            self.setEntry(uid, new)
            return .object(new)
        case (let old?, let new?):
            guard let patch = JSONMergePatch.diff(old, new) else { return nil }
            self.setEntry(uid, new)
            return .object(patch)
        }
    }

    private func setEntry(_ uid: String, _ entry: JSONObject) {
        self.view.participants[uid] = entry
        let hash = RosterChecksum.hash(key: uid, .object(entry))
        self.checksum &-= self.entryHashes[uid] ?? 0
        self.checksum &+= hash
        self.entryHashes[uid] = hash
    }

    /// Sets the room entry and returns its merge patch, if anything changed.
    func updateRoom(_ room: JSONObject) -> JSONObject? {
        guard let patch = JSONMergePatch.diff(self.view.room, room) else { return nil }
        self.view.room = room
        let hash = RosterChecksum.hash(key: "room", .object(room))
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
