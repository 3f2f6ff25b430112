import JSONCoding
import TestSupport
import Testing

@testable import Rooms

/// The typed room entry (`RoomRecord`) against the general path: over seeded random rooms and changes of every
/// field, its object is `RosterView.roomEntry`'s, and its merge patch, canonical JSON and checksum hash are byte for
/// byte those of the objects; its `counts` are those tallied from the listed participants' entries.
struct RoomRecordTests {
    enum FieldKind: CaseIterable {
        case callType, startedAt, initiator, recording, locked, speaker, metadata, capacity, participants, meeting
        case meetingText, meetingActive, meetingSender, flag, role, total, nothing
    }

    struct Room {
        var state = RoomState(id: "r")
        var speaker: String?
        var capacity = 100
        var total = 0
    }

    static func change(_ kind: FieldKind, of room: inout Room, using generator: inout RosterRecordTests.Generator) {
        func meeting() -> MeetingMessage {
            MeetingMessage(
                sessionID: "s" + generator.text(), callType: Bool.random(using: &generator.random) ? "audio" : "video",
                sender: "u" + generator.text(), text: generator.maybe { $0.text() },
                isActive: Bool.random(using: &generator.random))
        }
        switch kind {
        case .callType: room.state.callType = generator.text()
        case .startedAt: room.state.startedAt = generator.maybe { $0.time() }
        case .initiator: room.state.initiator = generator.maybe { $0.text() }
        case .recording: room.state.isRecording.toggle()
        case .locked: room.state.isLocked.toggle()
        case .speaker: room.speaker = generator.maybe { $0.text() }
        case .metadata:
            if Int.random(in: 0..<4, using: &generator.random) == 0 {
                room.state.metadata = [:]
            } else {
                room.state.metadata[generator.text()] = generator.maybe { $0.text() }
            }
        case .capacity: room.capacity = Int.random(in: 0...100_000, using: &generator.random)
        case .participants:
            let uid = "p\(Int.random(in: 0..<6, using: &generator.random))"
            if room.state.participants[uid] == nil {
                room.state.participants[uid] = generator.participant(uid: uid)
                room.state.joinOrder.append(uid)
            } else {
                let kind: RosterRecordTests.FieldKind = Bool.random(using: &generator.random) ? .devices : .permissions
                generator.change(kind, of: &room.state.participants[uid]!)
            }
        case .meeting: room.state.activeMeeting = Bool.random(using: &generator.random) ? meeting() : nil
        case .meetingText: room.state.activeMeeting?.text = generator.maybe { $0.text() }
        case .meetingActive: room.state.activeMeeting?.isActive.toggle()
        case .meetingSender: room.state.activeMeeting?.sender = "u" + generator.text()
        case .flag, .role:
            // What the counts count: a participant's flags (several at once, now and then) and role.
            guard let uid = room.state.joinOrder.randomElement(using: &generator.random) else { break }
            let times = kind == .flag ? Int.random(in: 1...3, using: &generator.random) : 1
            for _ in 0..<times { generator.change(kind == .flag ? .flag : .role, of: &room.state.participants[uid]!) }
        case .total:
            room.total =
                Int.random(in: 0...3, using: &generator.random) == 0
                ? 0 : Int.random(in: 0...500, using: &generator.random)
        case .nothing: break
        }
    }

    @Test(arguments: 0..<20)
    func roomRecordsMatchTheGeneralPath(seed: Int) {
        var generator = RosterRecordTests.Generator(random: SplitMix64(seed: UInt64(seed) &+ 7_777))
        var room = Room()
        var old = RoomRecord(room.state, speaker: room.speaker, capacity: room.capacity, total: room.total)
        for step in 0..<300 {
            let kind = FieldKind.allCases[step % FieldKind.allCases.count]
            Self.change(kind, of: &room, using: &generator)
            let context = "seed \(seed) step \(step) \(kind)"
            let record = RoomRecord(room.state, speaker: room.speaker, capacity: room.capacity, total: room.total)
            let object = RosterView.roomEntry(
                room.state, speaker: room.speaker, capacity: room.capacity, total: room.total)
            #expect(room.state.listedCount == room.state.listedParticipants.count, "\(context)")
            #expect(record.participantCount == room.state.listedCount, "\(context)")
            #expect(object["counts"] == .object(Self.tally(room.state)), "\(context)")
            #expect(JSONWriter.bytes(.object(record.object)) == JSONWriter.bytes(.object(object)), "\(context)")
            var canonical: [UInt8] = []
            record.writeCanonical(into: &canonical)
            #expect(canonical == CanonicalJSON.bytes(.object(object)), "\(context)")
            #expect(record.checksumHash == RosterChecksum.hash(key: "room", .object(object)), "\(context)")
            let general = JSONMergePatch.diff(old.object, object)
            #expect(
                record.patch(from: old).map { JSONWriter.bytes(.object($0)) }
                    == general.map { JSONWriter.bytes(.object($0)) }, "\(context)")
            old = record
        }
    }

    /// The counts spelled out from the listed participants' roster entries (their flags as the entries show them),
    /// zeros left out, in the entry's order.
    static func tally(_ state: RoomState) -> JSONObject {
        let participants = state.listedParticipants.map { $0.wireObject(.roster(isOperator: false)) }
        func count(_ include: (JSONObject) -> Bool) -> Int64 { Int64(participants.filter(include).count) }
        var counts = JSONObject()
        let members: [(String, Int64)] = [
            ("inCall", Int64(participants.count)),
            ("muted", count { $0["audioMuted"] == .bool(true) }),
            ("video", count { $0["videoPaused"] == .bool(false) }),
            ("presenting", count { $0["presenting"] == .bool(true) }),
            ("handsRaised", count { $0["handRaised"] == .bool(true) }),
        ]
        for (name, value) in members where value > 0 { counts[name] = .int(value) }
        var roles = JSONObject()
        for role in ["admin", "moderator", "participant", "viewer", "bot"] {
            let value = count { $0["role"] == .string(role) }
            if value > 0 { roles[role] = .int(value) }
        }
        if !roles.isEmpty { counts["roles"] = .object(roles) }
        return counts
    }
}
