import JSONCoding

/// The roster's `room` entry as typed fields: what the publisher computes once per round of patches and each view
/// channel compares, diffs and hashes field by field instead of as a JSON object.
///
/// The entry is defined by `RosterView.roomEntry` (`object` builds it from there); the merge patch
/// (`patch(from:)`) and the canonical JSON and hash (`checksumHash`) are exactly what `JSONMergePatch.diff` and
/// `RosterChecksum.hash` give for the objects, which tests hold them to.
struct RoomRecord: Equatable {
    var callType: String
    var startedAt: Int64?
    var initiator: String?
    var isRecording: Bool
    /// Whether the room is locked; the entry carries `locked` only while it is.
    var isLocked: Bool
    /// Whether the waiting room is on; the entry carries `admission` only while it is.
    var requiresAdmission: Bool
    /// How many wait in the waiting room; the entry carries `waiting` only while someone does.
    var waitingCount: Int
    /// The presenter floor's limit; the entry carries `floor` only while one is set.
    var presenterLimit: Int?
    /// Who waits to present, while the floor queues; the entry carries `floorQueue` only then.
    var floorQueue: [String]?
    /// The held active speaker.
    var activeSpeaker: String?
    var metadata: [String: String]
    var capacity: Int
    /// What the views count (`counts`), over the listed participants (joined and not hidden): the same for every
    /// view of the room.
    var counts: RosterCounts
    /// How many entries match the view's filter (and query) before its offset and limit: each view its own.
    var total: Int
    var activeMeeting: MeetingMessage?

    /// Listed participants (joined and not hidden).
    var participantCount: Int { self.counts.inCall }

    /// The room entry of `state`, with `speaker` as the held active speaker, `total` entries in the view before its
    /// window, and `counts` the state's `viewCounts` (computed once for all the views of a round).
    init(_ state: RoomState, speaker: String?, capacity: Int, total: Int, counts: RosterCounts) {
        self.callType = state.callType
        self.startedAt = state.startedAt
        self.initiator = state.initiator
        self.isRecording = state.isRecording
        self.isLocked = state.isLocked
        self.requiresAdmission = state.requiresAdmission
        self.waitingCount = state.waiting.count
        self.presenterLimit = state.presenterLimit
        self.floorQueue = state.floorQueues ? state.floorQueue : nil
        self.activeSpeaker = speaker
        self.metadata = state.metadata
        self.capacity = capacity
        self.counts = counts
        self.total = total
        self.activeMeeting = state.activeMeeting
    }

    /// The room entry of `state`, its counts computed here.
    init(_ state: RoomState, speaker: String?, capacity: Int, total: Int) {
        self.init(state, speaker: speaker, capacity: capacity, total: total, counts: state.viewCounts)
    }

    /// The entry as a JSON object: `RosterView.roomEntry`.
    var object: JSONObject {
        var object = JSONObject()
        object["callType"] = .string(self.callType)
        if let startedAt = self.startedAt { object["startedAt"] = .int(startedAt) }
        if let initiator = self.initiator { object["initiator"] = .string(initiator) }
        object["recording"] = .bool(self.isRecording)
        if self.isLocked { object["locked"] = .bool(true) }
        if self.requiresAdmission { object["admission"] = .bool(true) }
        if let limit = self.presenterLimit { object["floor"] = .int(Int64(limit)) }
        if let queue = self.floorQueue { object["floorQueue"] = Self.strings(queue) }
        if let speaker = self.activeSpeaker { object["activeSpeaker"] = .string(speaker) }
        if !self.metadata.isEmpty { object["metadata"] = ServerMessages.strings(self.metadata) }
        object["capacity"] = .int(Int64(self.capacity))
        object["participantCount"] = .int(Int64(self.participantCount))
        if self.waitingCount > 0 { object["waiting"] = .int(Int64(self.waitingCount)) }
        object["total"] = .int(Int64(self.total))
        object["counts"] = .object(self.counts.object)
        if let meeting = self.activeMeeting { object["activeMeeting"] = .object(Self.meetingEntry(meeting)) }
        return object
    }

    /// The meeting's entry in the view: `ServerMessages.meeting` without the null `text` (a view holds no nulls:
    /// a null in a merge patch removes the member, so it could not be sent).
    private static func meetingEntry(_ meeting: MeetingMessage) -> JSONObject {
        guard case .object(var entry) = ServerMessages.meeting(meeting) else { return JSONObject() }
        if meeting.text == nil { entry["text"] = nil }
        return entry
    }

    /// The merge patch from `old` to this entry, nil when they are the same: exactly
    /// `JSONMergePatch.diff(old.object, self.object)` (members that went away as `null` first, then those added or
    /// changed, each in the entry's order).
    func patch(from old: RoomRecord) -> JSONObject? {
        var patch = JSONObject()
        if old.startedAt != nil && self.startedAt == nil { patch["startedAt"] = .null }
        if old.initiator != nil && self.initiator == nil { patch["initiator"] = .null }
        if old.isLocked && !self.isLocked { patch["locked"] = .null }
        if old.requiresAdmission && !self.requiresAdmission { patch["admission"] = .null }
        if old.presenterLimit != nil && self.presenterLimit == nil { patch["floor"] = .null }
        if old.floorQueue != nil && self.floorQueue == nil { patch["floorQueue"] = .null }
        if old.activeSpeaker != nil && self.activeSpeaker == nil { patch["activeSpeaker"] = .null }
        if !old.metadata.isEmpty && self.metadata.isEmpty { patch["metadata"] = .null }
        if old.waitingCount > 0 && self.waitingCount == 0 { patch["waiting"] = .null }
        if old.activeMeeting != nil && self.activeMeeting == nil { patch["activeMeeting"] = .null }
        if self.callType != old.callType { patch["callType"] = .string(self.callType) }
        if let startedAt = self.startedAt, startedAt != old.startedAt { patch["startedAt"] = .int(startedAt) }
        if let initiator = self.initiator, initiator != old.initiator { patch["initiator"] = .string(initiator) }
        if self.isRecording != old.isRecording { patch["recording"] = .bool(self.isRecording) }
        if self.isLocked && !old.isLocked { patch["locked"] = .bool(true) }
        if self.requiresAdmission && !old.requiresAdmission { patch["admission"] = .bool(true) }
        if let limit = self.presenterLimit, limit != old.presenterLimit { patch["floor"] = .int(Int64(limit)) }
        if let queue = self.floorQueue, queue != old.floorQueue { patch["floorQueue"] = Self.strings(queue) }
        if let speaker = self.activeSpeaker, speaker != old.activeSpeaker { patch["activeSpeaker"] = .string(speaker) }
        if !self.metadata.isEmpty && self.metadata != old.metadata {
            let value = ServerMessages.strings(self.metadata)
            if old.metadata.isEmpty {
                patch["metadata"] = value
            } else if case .object(let newObject) = value,
                case .object(let oldObject) = ServerMessages.strings(old.metadata),
                let inner = JSONMergePatch.diff(oldObject, newObject)
            {
                patch["metadata"] = .object(inner)
            }
        }
        if self.capacity != old.capacity { patch["capacity"] = .int(Int64(self.capacity)) }
        if self.participantCount != old.participantCount {
            patch["participantCount"] = .int(Int64(self.participantCount))
        }
        if self.waitingCount > 0 && self.waitingCount != old.waitingCount {
            patch["waiting"] = .int(Int64(self.waitingCount))
        }
        if self.total != old.total { patch["total"] = .int(Int64(self.total)) }
        if let counts = self.counts.patch(from: old.counts) { patch["counts"] = .object(counts) }
        if let meeting = self.activeMeeting, meeting != old.activeMeeting {
            if let before = old.activeMeeting {
                if let inner = Self.meetingPatch(from: before, to: meeting) { patch["activeMeeting"] = .object(inner) }
            } else {
                patch["activeMeeting"] = .object(Self.meetingEntry(meeting))
            }
        }
        return patch.isEmpty ? nil : patch
    }

    /// The merge patch between two meetings' entries, in their order (`text` left out while nil).
    private static func meetingPatch(from old: MeetingMessage, to new: MeetingMessage) -> JSONObject? {
        var patch = JSONObject()
        if old.text != nil && new.text == nil { patch["text"] = .null }
        if new.sessionID != old.sessionID { patch["sessionId"] = .string(new.sessionID) }
        if new.callType != old.callType { patch["callType"] = .string(new.callType) }
        if new.sender != old.sender { patch["sender"] = .string(new.sender) }
        if new.isActive != old.isActive { patch["active"] = .bool(new.isActive) }
        if let text = new.text, text != old.text { patch["text"] = .string(text) }
        return patch.isEmpty ? nil : patch
    }

    /// The entry's hash in the roster checksum: `RosterChecksum.hash(key: "room", .object(object))`, its canonical
    /// JSON written field by field in the members' fixed canonical order.
    var checksumHash: UInt64 {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256)
        bytes.append(contentsOf: Keys.roomKey)
        self.writeCanonical(into: &bytes)
        return RosterChecksum.fnv1a(bytes)
    }

    /// Appends the entry's canonical JSON (`CanonicalJSON.write(.object(object))`) to `output`.
    func writeCanonical(into output: inout [UInt8]) {
        // Every member is written after a comma; the first one's comma becomes the opening brace.
        let start = output.count
        if let meeting = self.activeMeeting {
            output.append(contentsOf: Keys.activeMeeting)
            let inner = output.count
            output.append(contentsOf: Keys.active)
            output.append(contentsOf: meeting.isActive ? Keys.trueBytes : Keys.falseBytes)
            Self.string(Keys.callType, meeting.callType, into: &output)
            Self.string(Keys.sender, meeting.sender, into: &output)
            Self.string(Keys.sessionId, meeting.sessionID, into: &output)
            if let text = meeting.text { Self.string(Keys.text, text, into: &output) }
            output[inner] = UInt8(ascii: "{")
            output.append(UInt8(ascii: "}"))
        }
        if let speaker = self.activeSpeaker { Self.string(Keys.activeSpeaker, speaker, into: &output) }
        if self.requiresAdmission {
            output.append(contentsOf: Keys.admission)
            output.append(contentsOf: Keys.trueBytes)
        }
        Self.string(Keys.callType, self.callType, into: &output)
        output.append(contentsOf: Keys.capacity)
        JSONWriter.appendInteger(Int64(self.capacity), to: &output)
        output.append(contentsOf: Keys.counts)
        self.counts.writeCanonical(into: &output)
        if let limit = self.presenterLimit {
            output.append(contentsOf: Keys.floor)
            JSONWriter.appendInteger(Int64(limit), to: &output)
        }
        if let queue = self.floorQueue {
            output.append(contentsOf: Keys.floorQueue)
            CanonicalJSON.write(Self.strings(queue), into: &output)
        }
        if let initiator = self.initiator { Self.string(Keys.initiator, initiator, into: &output) }
        if self.isLocked {
            output.append(contentsOf: Keys.locked)
            output.append(contentsOf: Keys.trueBytes)
        }
        if !self.metadata.isEmpty {
            output.append(contentsOf: Keys.metadata)
            CanonicalJSON.write(ServerMessages.strings(self.metadata), into: &output)
        }
        output.append(contentsOf: Keys.participantCount)
        JSONWriter.appendInteger(Int64(self.participantCount), to: &output)
        output.append(contentsOf: Keys.recording)
        output.append(contentsOf: self.isRecording ? Keys.trueBytes : Keys.falseBytes)
        if let startedAt = self.startedAt {
            output.append(contentsOf: Keys.startedAt)
            JSONWriter.appendInteger(startedAt, to: &output)
        }
        output.append(contentsOf: Keys.total)
        JSONWriter.appendInteger(Int64(self.total), to: &output)
        if self.waitingCount > 0 {
            output.append(contentsOf: Keys.waiting)
            JSONWriter.appendInteger(Int64(self.waitingCount), to: &output)
        }
        output[start] = UInt8(ascii: "{")
        output.append(UInt8(ascii: "}"))
    }

    /// A list of uids as a JSON array.
    private static func strings(_ values: [String]) -> JSONValue { .array(values.map { .string($0) }) }

    private static func string(_ key: [UInt8], _ value: String, into output: inout [UInt8]) {
        output.append(contentsOf: key)
        JSONWriter.appendString(value, to: &output)
    }

    /// The members' names as `,"name":`, encoded once.
    private enum Keys {
        static func encoded(_ name: String) -> [UInt8] { Array(",\"\(name)\":".utf8) }
        static let roomKey = Array("room\u{0}".utf8)
        static let active = encoded("active")
        static let activeMeeting = encoded("activeMeeting")
        static let activeSpeaker = encoded("activeSpeaker")
        static let admission = encoded("admission")
        static let callType = encoded("callType")
        static let capacity = encoded("capacity")
        static let counts = encoded("counts")
        static let floor = encoded("floor")
        static let floorQueue = encoded("floorQueue")
        static let initiator = encoded("initiator")
        static let locked = encoded("locked")
        static let metadata = encoded("metadata")
        static let participantCount = encoded("participantCount")
        static let recording = encoded("recording")
        static let sender = encoded("sender")
        static let sessionId = encoded("sessionId")
        static let startedAt = encoded("startedAt")
        static let text = encoded("text")
        static let total = encoded("total")
        static let waiting = encoded("waiting")
        static let trueBytes = Array("true".utf8)
        static let falseBytes = Array("false".utf8)
    }
}
