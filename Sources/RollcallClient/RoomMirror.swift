import JSONCoding

/// One subscription's bookkeeping without I/O: what it joins with, its `RosterStore`, its two resume positions, and
/// what to do next.
///
/// The mirror applies `snapshot`, `patch`, `event` and `resumed` messages of its room. It keeps the roster's sequence
/// number (its last snapshot or patch) and the highest sequence number received on any message of the room (messages
/// arrive in log order, so the subscription has every event it takes up to there), which a rejoin sends as `resume`
/// and `resumeEvents`. When the roster drifts it asks for a rejoin: with `resume` after a gap (a patch that starts
/// after the roster), for a fresh snapshot after anything else (a checksum mismatch, a patch out of order), at most
/// `maximumDriftStreak` times in a row.
///
/// `RoomSubscription` drives one over the client's connection; a program with a connection of its own can drive one
/// directly.
public struct RoomMirror: Sendable {
    /// Rejoins asked for in a row after drift before the mirror stops asking (the roster stays as it is).
    public static let maximumDriftStreak = 3

    /// Join the room again: with `resume` to replay what was missed, without for a fresh snapshot.
    public struct Rejoin: Hashable, Sendable {
        /// Whether the join carries the mirror's positions (`resume`, `resumeEvents`).
        public var resume: Bool

        /// Creates a rejoin.
        ///
        /// - Parameters:
        ///   - resume: whether to resume from the positions held.
        public init(resume: Bool) {
            self.resume = resume
        }
    }

    /// What one message did.
    public struct Outcome: Hashable, Sendable {
        /// What changed, in order, for the subscription to publish.
        public var changes: [RoomChange]
        /// The join to send because the roster drifted; nil when none is needed.
        public var rejoin: Rejoin?

        /// Creates an outcome.
        ///
        /// - Parameters:
        ///   - changes: the changes, in order.
        ///   - rejoin: the rejoin to send, if any.
        public init(changes: [RoomChange] = [], rejoin: Rejoin? = nil) {
            self.changes = changes
            self.rejoin = rejoin
        }
    }

    /// The room id.
    public let room: String
    /// Whether the join is a participant's or an observer's.
    public let kind: RollcallJoinKind
    /// The device id sent with the join.
    public let device: String
    /// The roster view mirrored; set it when a `view` request was answered.
    public var view: RollcallView
    /// The events received besides patches.
    public let events: RollcallEventMode
    /// The call type sent with a participant's join (`audio` or `video`), if any.
    public let callType: String?
    /// The roster, nil before the first snapshot.
    public private(set) var store: RosterStore?
    /// The highest sequence number received on any message of the room: its last event's, or a later snapshot's,
    /// patch's or resume's.
    public private(set) var lastEventSequence: UInt64 = 0
    /// Whether the last resume replayed everything missed (true), fell back to a fresh snapshot (false), or no
    /// resume happened yet (nil).
    public private(set) var recovered: Bool?
    /// How many times in a row the roster drifted; a snapshot or patch applied starts it again from 0.
    public private(set) var driftStreak = 0

    /// Creates a mirror with no roster yet.
    ///
    /// - Parameters:
    ///   - room: the room id.
    ///   - kind: a participant's join (default) or an observer's.
    ///   - device: the device id; default `default`.
    ///   - view: the roster view; default the whole roster.
    ///   - events: the events besides patches; default all.
    ///   - callType: `audio` or `video`, sent with a participant's join.
    public init(
        room: String,
        kind: RollcallJoinKind = .participant,
        device: String = "default",
        view: RollcallView = .all,
        events: RollcallEventMode = .all,
        callType: String? = nil
    ) {
        self.room = room
        self.kind = kind
        self.device = device
        self.view = view
        self.events = events
        self.callType = callType
    }

    /// The sequence number the roster is at; 0 before the first snapshot.
    public var rosterSequence: UInt64 { self.store?.sequence ?? 0 }

    /// The `join` message for this room (without an id).
    ///
    /// - Parameters:
    ///   - resume: whether to ask for what was missed since the positions held (ignored before a first snapshot).
    public func joinMessage(resume: Bool) -> JSONObject {
        JSONObject(
            uniqueKeysWithValues: [("type", .string(RollcallClientMessageType.join.rawValue))]
                + self.joinFields(resume: resume))
    }

    /// The fields of the `join` message after its type.
    func joinFields(resume: Bool) -> [(String, JSONValue)] {
        var fields: [(String, JSONValue)] = [("room", .string(self.room))]
        if self.kind == .observer { fields.append(("as", .string("observer"))) }
        fields.append(("device", .string(self.device)))
        if let callType = self.callType, self.kind == .participant {
            fields.append(("callType", .string(callType)))
        }
        fields.append(("view", self.view.json))
        fields.append(("events", .string(self.events.rawValue)))
        if resume, let store = self.store {
            fields.append(("resume", .int(Int64(store.sequence))))
            fields.append(("resumeEvents", .int(Int64(self.lastEventSequence))))
        }
        return fields
    }

    /// Applies a `snapshot`, `patch`, `event` or `resumed` message of this room; other messages change nothing.
    ///
    /// - Parameters:
    ///   - message: the parsed message.
    /// - Returns: what changed, and the rejoin to send when the roster drifted.
    public mutating func handle(_ message: JSONValue) -> Outcome {
        switch message["type"]?.stringValue {
        case "snapshot":
            return self.applySnapshot(message)
        case "patch":
            return self.applyPatch(message)
        case "event":
            guard let event = RollcallEvent(message: message), event.sequence > self.lastEventSequence else {
                return Outcome()
            }
            self.lastEventSequence = event.sequence
            return Outcome(changes: [.eventReceived(event)])
        case "resumed":
            let recovered = message["recovered"]?.boolValue ?? false
            self.recovered = recovered
            if let seq = message["seq"]?.intValue {
                self.lastEventSequence = max(self.lastEventSequence, UInt64(max(0, seq)))
            }
            return Outcome(changes: [.resumed(recovered: recovered)])
        default:
            return Outcome()
        }
    }

    private mutating func applySnapshot(_ message: JSONValue) -> Outcome {
        let store: RosterStore
        do {
            store = try RosterStore(snapshot: message)
        } catch {
            return self.drifted(error.description, resume: false)
        }
        let recovered = message["recovered"]?.boolValue
        self.store = store
        self.driftStreak = 0
        self.lastEventSequence = max(self.lastEventSequence, store.sequence)
        var changes: [RoomChange] = [
            .snapshotReplaced(resync: message["resync"]?.boolValue ?? false, recovered: recovered)
        ]
        if recovered == false {
            self.recovered = false
            changes.append(.resumed(recovered: false))
        }
        return Outcome(changes: changes)
    }

    private mutating func applyPatch(_ message: JSONValue) -> Outcome {
        guard var store = self.store else { return Outcome() }
        let before = store.sequence
        if let from = message["from"]?.intValue, UInt64(max(0, from)) > before {
            return self.drifted("patch from \(from) while the roster is at \(before)", resume: true)
        }
        let existing = store.roster["participants"]?.objectValue
        do {
            try store.apply(patch: message)
        } catch {
            return self.drifted(error.description, resume: false)
        }
        // A replayed patch the roster holds already.
        guard store.sequence != before else { return Outcome() }
        self.store = store
        self.driftStreak = 0
        self.lastEventSequence = max(self.lastEventSequence, store.sequence)
        var changes: [RoomChange] = []
        if message["patch"]?["room"] != nil { changes.append(.roomUpdated) }
        for (uid, value) in message["patch"]?["participants"]?.objectValue?.entries ?? [] {
            let existed = existing?[uid] != nil
            if value.isNull {
                if existed { changes.append(.participantRemoved(uid: uid)) }
            } else {
                changes.append(existed ? .participantUpdated(uid: uid) : .participantAdded(uid: uid))
            }
        }
        return Outcome(changes: changes)
    }

    /// Reports drift, and asks for a rejoin unless the streak is over `maximumDriftStreak`.
    private mutating func drifted(_ detail: String, resume: Bool) -> Outcome {
        self.driftStreak += 1
        let rejoin = self.driftStreak <= Self.maximumDriftStreak ? Rejoin(resume: resume) : nil
        return Outcome(changes: [.driftDetected(detail)], rejoin: rejoin)
    }
}
