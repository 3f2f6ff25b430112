import JSONCoding
import TestSupport
import Testing

@testable import Rooms

/// The typed roster records (`RosterRecord`) against the general path they replace on the publisher's hot path:
/// over seeded random participants and random changes of every field, the field-by-field merge patch, canonical
/// JSON and checksum hash are byte for byte those of the JSON objects, and a view channel's checksum follows every
/// change as a freshly built one does.
struct RosterRecordTests {
    /// Every field of the roster entry a change may touch.
    enum FieldKind: CaseIterable {
        case name, avatar, mid, role, isOperator, devices, connection, order, joinedAt, flag, raisedAt, lastSpokeAt
        case mutedByModerator, cameraFacing, audioMode, attributes, permissions, totals, nothing
    }

    struct Generator {
        var random: SplitMix64

        mutating func text() -> String {
            let pieces = ["a", "Zoë", "\"", "\\", "\n", "é", "😀", "x y", "\u{1}", "mid-", "0", "long-name-here"]
            let count = Int.random(in: 0...3, using: &self.random)
            return (0..<count).map { _ in pieces.randomElement(using: &self.random)! }.joined()
        }

        mutating func maybe<T>(_ make: (inout Generator) -> T) -> T? {
            Bool.random(using: &self.random) ? make(&self) : nil
        }

        mutating func time() -> Int64 { Int64.random(in: -5...2_000_000_000_000, using: &self.random) }

        mutating func participant(uid: String) -> Participant {
            var participant = Participant(
                uid: uid, name: self.text(), avatar: self.maybe { $0.text() },
                role: ParticipantRole.allCases.randomElement(using: &self.random)!, joinedAt: self.time(),
                order: Int.random(in: 0...500, using: &self.random))
            for _ in 0..<Int.random(in: 0...3, using: &self.random) { self.change(.devices, of: &participant) }
            for kind in FieldKind.allCases where Bool.random(using: &self.random) {
                self.change(kind, of: &participant)
            }
            return participant
        }

        mutating func change(_ kind: FieldKind, of participant: inout Participant) {
            switch kind {
            case .name: participant.name = self.text()
            case .avatar: participant.avatar = self.maybe { $0.text() }
            case .mid: participant.mid = self.maybe { $0.text() }
            case .role: participant.role = ParticipantRole.allCases.randomElement(using: &self.random)!
            case .isOperator: break
            case .devices:
                if participant.devices.isEmpty || Bool.random(using: &self.random) {
                    participant.devices.append(
                        ParticipantDevice(deviceID: "d" + self.text(), joinedAt: self.time(), isConnected: true))
                } else {
                    participant.devices.removeLast()
                }
            case .connection:
                if !participant.devices.isEmpty {
                    let index = Int.random(in: participant.devices.indices, using: &self.random)
                    participant.devices[index].isConnected.toggle()
                    participant.devices[index].joinedAt = self.time()
                }
            case .order: participant.order = Int.random(in: 0...500, using: &self.random)
            case .joinedAt: participant.joinedAt = self.time()
            case .flag:
                let flag = ParticipantFlag.ordered.randomElement(using: &self.random)!
                participant.flags[flag].toggle()
            case .raisedAt: participant.raisedAt = self.maybe { $0.time() }
            case .lastSpokeAt: participant.lastSpokeAt = self.maybe { $0.time() }
            case .mutedByModerator: participant.mutedByModerator.toggle()
            case .cameraFacing: participant.cameraFacing = self.maybe { $0.text() }
            case .audioMode: participant.audioMode = self.maybe { $0.text() }
            case .attributes:
                if Int.random(in: 0..<4, using: &self.random) == 0 {
                    participant.attributes = [:]
                } else {
                    participant.attributes[self.text()] = Bool.random(using: &self.random) ? self.text() : nil
                }
            case .permissions:
                switch Int.random(in: 0..<6, using: &self.random) {
                case 0: participant.permissions = ParticipantPermissions()
                case 1: participant.permissions.mayUnmute.toggle()
                case 2: participant.permissions.restrictedUntil = self.maybe { $0.time() }
                case 3: participant.permissions.mayShare.toggle()
                case 4: participant.permissions.mayPublishMeetings.toggle()
                default: participant.permissions.hidden.toggle()
                }
            case .totals:
                participant.audioMilliseconds += 1_000
                participant.accountedUntil = self.time()
                participant.leftAt = self.maybe { $0.time() }
            case .nothing: break
            }
        }

        mutating func record(_ participant: Participant, isOperator: Bool, banned: Bool) -> RosterRecord {
            if banned {
                return RosterRecord(uid: participant.uid, form: .banned(name: self.maybe { _ in participant.name }))
            }
            return RosterRecord(uid: participant.uid, form: .member(participant, isOperator: isOperator))
        }
    }

    /// The record's canonical bytes, hash and patch from `old`, against the objects' (exact bytes).
    static func expectSameAsObjects(_ new: RosterRecord, from old: RosterRecord, _ context: String) {
        var canonical: [UInt8] = []
        new.writeCanonical(into: &canonical)
        #expect(canonical == CanonicalJSON.bytes(.object(new.object)), "\(context)")
        #expect(new.checksumHash == RosterChecksum.hash(key: new.uid, .object(new.object)), "\(context)")
        let general = JSONMergePatch.diff(old.object, new.object)
        let typed = new.patch(from: old)
        #expect(
            typed.map { JSONWriter.bytes(.object($0)) } == general.map { JSONWriter.bytes(.object($0)) },
            "\(context)")
        #expect((new == old) == (general == nil), "\(context)")
    }

    @Test(arguments: 0..<20)
    func recordsMatchTheGeneralPath(seed: Int) {
        var generator = Generator(random: SplitMix64(seed: UInt64(seed) &* 0x9E37 &+ 17))
        var participant = generator.participant(uid: "u\(seed)-" + generator.text())
        var isOperator = Bool.random(using: &generator.random)
        let banned = seed % 5 == 4
        var record = generator.record(participant, isOperator: isOperator, banned: banned)
        Self.expectSameAsObjects(record, from: record, "seed \(seed) first")
        for step in 0..<300 {
            let kind = FieldKind.allCases[step % FieldKind.allCases.count]
            generator.change(kind, of: &participant)
            if kind == .isOperator { isOperator.toggle() }
            let next = generator.record(participant, isOperator: isOperator, banned: banned)
            Self.expectSameAsObjects(next, from: record, "seed \(seed) step \(step) \(kind)")
            record = next
        }
    }

    /// A channel's checksum after each change (entries added, changed and removed) is that of the view rebuilt
    /// from scratch, and the hashes shared between views in one round are the same as computed alone.
    @Test(arguments: 0..<10)
    func channelChecksumFollowsEveryChange(seed: Int) {
        var generator = Generator(random: SplitMix64(seed: UInt64(seed) &+ 1_000))
        var participants = (0..<12).map { generator.participant(uid: "p\($0)") }
        var operators = Set<String>()
        func records() -> [String: RosterRecord] {
            var records: [String: RosterRecord] = [:]
            for participant in participants where !participant.permissions.hidden {
                records[participant.uid] = RosterRecord(
                    uid: participant.uid, form: .member(participant, isOperator: operators.contains(participant.uid)))
            }
            return records
        }
        let room = RoomRecord(RoomState(id: "r"), speaker: nil, capacity: 10, total: 0)
        let channel = ViewChannel(spec: RosterViewSpec(), room: room, records: records(), sequence: 0)
        for step in 0..<200 {
            let index = Int.random(in: participants.indices, using: &generator.random)
            let kind = FieldKind.allCases[step % FieldKind.allCases.count]
            generator.change(kind, of: &participants[index])
            if kind == .isOperator { operators.formSymmetricDifference([participants[index].uid]) }
            var hashes: [String: UInt64] = [:]
            let uid = participants[index].uid
            let now = records()
            let patch = channel.update(uid, to: now[uid], hashes: &hashes)
            let fresh = ViewChannel(spec: RosterViewSpec(), room: room, records: now, sequence: 0)
            #expect(channel.checksum == fresh.checksum, "seed \(seed) step \(step) \(kind)")
            #expect(channel.checksum == channel.view.checksum, "seed \(seed) step \(step) \(kind)")
            #expect(channel.view == fresh.view, "seed \(seed) step \(step) \(kind)")
            if patch != nil {
                // An entry set or changed left its hash for the other views; a removal left none.
                #expect(hashes[uid] == now[uid].map { RosterChecksum.hash(key: uid, .object($0.object)) })
            }
        }
    }
    /// The event message's participant entry, written with names encoded once, is byte for byte the entry of the
    /// one wire definition (`writeWire(.snapshot)`) and of its JSON object, after every change of every field.
    @Test(arguments: 0..<10)
    func eventEntriesMatchTheWireDefinition(seed: Int) {
        var generator = Generator(random: SplitMix64(seed: UInt64(seed) &+ 55_555))
        var participant = generator.participant(uid: "e\(seed)-" + generator.text())
        for step in 0..<300 {
            let kind = FieldKind.allCases[step % FieldKind.allCases.count]
            generator.change(kind, of: &participant)
            if step % 7 == 0 { participant.role = .bot }
            let now = participant.accountedUntil + Int64.random(in: -1_000...10_000_000, using: &generator.random)
            var fast = JSONByteWriter()
            fast.beginObject()
            participant.writeEventEntry(now: now, into: &fast)
            fast.endObject()
            var general = JSONByteWriter()
            general.beginObject()
            participant.writeWire(.snapshot(now: now), into: &general)
            general.endObject()
            #expect(fast.bytes == general.bytes, "seed \(seed) step \(step) \(kind)")
            #expect(
                fast.bytes == JSONWriter.bytes(.object(participant.wireObject(.snapshot(now: now)))),
                "seed \(seed) step \(step) \(kind)")
        }
    }
    /// The checksum written as hex digits straight into a message is `RosterChecksum.hex`'s spelling.
    @Test func checksumDigitsMatchTheHexSpelling() {
        var random = SplitMix64(seed: 4_242)
        let values: [UInt64] = [0, 1, 0xab_cdef, .max] + (0..<300).map { _ in random.next() >> (random.next() % 64) }
        for value in values {
            var writer = JSONByteWriter()
            writer.beginObject()
            writer.member(JSONEncodedKey("checksum"), hexDigits: value)
            writer.endObject()
            #expect(String(decoding: writer.bytes, as: UTF8.self) == "{\"checksum\":\"\(RosterChecksum.hex(value))\"}")
        }
    }
}
