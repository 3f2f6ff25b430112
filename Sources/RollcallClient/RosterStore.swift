import JSONCoding

/// A live mirror of one room's roster view: applies the snapshot, then every patch, exactly as
/// docs/PROTOCOL.md specifies (RFC 7386 merge patches, `from`/`seq` continuity, the checksum).
///
/// It holds the roster as the gateway's JSON object (the source of truth, so checksums are computed on exactly
/// what the server hashed) and exposes participants as `Identifiable` values in join order.
public struct RosterStore: Sendable {
    /// Why a message could not be applied; the client should resubscribe (with resume) to get a fresh snapshot.
    public struct Drift: Error, Hashable, Sendable, CustomStringConvertible {
        /// What did not match.
        public let description: String
    }

    /// The room id.
    public private(set) var room: String
    /// The sequence number the roster is at.
    public private(set) var sequence: UInt64
    /// The roster object: `{"room": {...}, "participants": {uid: {...}}}`.
    public private(set) var roster: JSONObject
    /// The checksum the server sent with the last snapshot or patch.
    public private(set) var serverChecksum: String?

    /// Starts from a `snapshot` message.
    ///
    /// - Parameter snapshot: the message, parsed.
    /// - Throws: `Drift` when the message is not a snapshot with a roster, or its checksum does not match.
    public init(snapshot: JSONValue) throws(Drift) {
        guard snapshot["type"] == "snapshot", let room = snapshot["room"]?.stringValue,
            let sequence = snapshot["seq"]?.intValue, let roster = snapshot["roster"]?.objectValue
        else { throw Drift(description: "not a snapshot with a roster") }
        self.room = room
        self.sequence = UInt64(sequence)
        self.roster = roster
        self.serverChecksum = snapshot["checksum"]?.stringValue
        try self.verifyChecksum()
    }

    /// Applies a `patch` message.
    ///
    /// - Parameter patch: the message, parsed.
    /// - Throws: `Drift` when the patch does not start where the roster is (`from` ≠ `sequence`), or the checksum
    ///   after applying it differs from the server's.
    public mutating func apply(patch message: JSONValue) throws(Drift) {
        guard message["type"] == "patch", message["room"]?.stringValue == self.room,
            let from = message["from"]?.intValue, let to = message["seq"]?.intValue, let patch = message["patch"]
        else { throw Drift(description: "not a patch for room \(self.room)") }
        if message["recovered"] == true, UInt64(to) <= self.sequence {
            return  // Applied before the reconnect.
        }
        // A view does not change between patches, so the roster at any seq in from..<to is the patch's base.
        guard UInt64(from) <= self.sequence, self.sequence < UInt64(to) else {
            throw Drift(description: "patch from \(from) to \(to) does not follow seq \(self.sequence)")
        }
        guard case .object(let result) = JSONMergePatch.apply(patch, to: .object(self.roster)) else {
            throw Drift(description: "patch replaced the roster with a non-object")
        }
        self.roster = result
        self.sequence = UInt64(to)
        self.serverChecksum = message["checksum"]?.stringValue
        try self.verifyChecksum()
    }

    /// The room entry (`callType`, `recording`, `activeSpeaker`, ...).
    public var roomState: JSONObject { self.roster["room"]?.objectValue ?? JSONObject() }

    /// What every view counts (the room entry's `counts`): who is in the call, muted, on video, presenting, with a
    /// hand raised, and by role.
    public var counts: RollcallViewCounts { RollcallViewCounts(self.roomState["counts"]?.objectValue) }

    /// How many entries match the view's filter (and query) before its `offset` and `limit` (the room entry's
    /// `total`): a page of `limit` is one of `(total + limit - 1) / limit`. Nil from a gateway that does not send it.
    public var viewTotal: Int? { self.roomState["total"]?.intValue.map { Int($0) } }

    /// The participants in join order.
    public var participants: [RosterParticipant] {
        guard let entries = self.roster["participants"]?.objectValue else { return [] }
        return entries.entries.compactMap { uid, value in
            value.objectValue.map { RosterParticipant(uid: uid, entry: $0) }
        }.sorted { ($0.order, $0.id) < ($1.order, $1.id) }
    }

    /// One participant by uid.
    public subscript(uid: String) -> RosterParticipant? {
        self.roster["participants"]?[uid]?.objectValue.map { RosterParticipant(uid: uid, entry: $0) }
    }

    /// The checksum of the roster as held, computed as docs/PROTOCOL.md specifies.
    public var checksum: String { RosterChecksum.hex(of: self.roster) }

    private func verifyChecksum() throws(Drift) {
        guard let expected = self.serverChecksum else { return }
        let actual = self.checksum
        guard actual == expected else {
            throw Drift(description: "checksum \(actual) differs from the server's \(expected) at seq \(self.sequence)")
        }
    }
}
