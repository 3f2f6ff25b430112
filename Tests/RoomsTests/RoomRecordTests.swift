import JSONCoding
import TestSupport
import Testing

@testable import Rooms

/// The typed room entry (`RoomRecord`) against the general path: over seeded random rooms and changes of every
/// field, its object is `RosterView.roomEntry`'s, and its merge patch, canonical JSON and checksum hash are byte for
/// byte those of the objects.
struct RoomRecordTests {
    enum FieldKind: CaseIterable {
        case callType, startedAt, initiator, recording, locked, speaker, metadata, capacity, participants, meeting
        case meetingText, meetingActive, meetingSender, nothing
    }

    struct Room {
        var state = RoomState(id: "r")
        var speaker: String?
        var capacity = 100
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
        case .nothing: break
        }
    }

    @Test(arguments: 0..<20)
    func roomRecordsMatchTheGeneralPath(seed: Int) {
        var generator = RosterRecordTests.Generator(random: SplitMix64(seed: UInt64(seed) &+ 7_777))
        var room = Room()
        var old = RoomRecord(room.state, speaker: room.speaker, capacity: room.capacity)
        for step in 0..<300 {
            let kind = FieldKind.allCases[step % FieldKind.allCases.count]
            Self.change(kind, of: &room, using: &generator)
            let context = "seed \(seed) step \(step) \(kind)"
            let record = RoomRecord(room.state, speaker: room.speaker, capacity: room.capacity)
            let object = RosterView.roomEntry(room.state, speaker: room.speaker, capacity: room.capacity)
            #expect(room.state.listedCount == room.state.listedParticipants.count, "\(context)")
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
}
