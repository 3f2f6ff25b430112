import JSONCoding
import RollcallClient
import RoomsTesting
import Testing

@testable import Rooms

/// Every participant flag goes everywhere a flag goes, from its one definition (`ParticipantFlag`): these tests name
/// no flag, so a new case is covered as it is added.
struct ParticipantFlagTests {
    @Test("every flag has a bit of its own in the participant's flag set")
    func everyFlagHasABit() {
        #expect(ParticipantFlag.ordered.count <= ParticipantFlags.capacity)
        var flags = ParticipantFlags()
        for (ordinal, flag) in ParticipantFlag.ordered.enumerated() {
            #expect(flag.ordinal == ordinal)
            #expect(!flags.contains(flag), "\(flag) shares a bit with an earlier flag")
            flags[flag] = true
            #expect(flags.contains(ordinal: ordinal))
        }
    }

    @Test("a message naming every scanned member and every flag once is scanned whole, one slot each")
    func theScannerHasASlotForEveryName() {
        let names = TrafficMessageScanner.Member.ordered.map { "\($0.name)" } + ParticipantFlag.ordered.map(\.rawValue)
        var text = "{" + names.map { "\"\($0)\":true" }.joined(separator: ",") + "}"
        let present = text.withUTF8 { bytes in
            TrafficMessageScanner.scan(UnsafeRawBufferPointer(bytes)) { members in
                (members.presentCount, ParticipantFlag.ordered.indices.allSatisfy { members.flag(ordinal: $0) != nil })
            }
        }
        #expect(present?.0 == TrafficMessageScanner.slotCount)
        #expect(present?.1 == true)
    }

    @Test("every flag a participant sets goes from a state message to its events, patches, snapshots and checkpoints")
    func everyParticipantFlagTravelsEverywhere() throws {
        for flag in ParticipantFlag.ordered where flag.isSetByParticipant {
            let harness = try RoomsNodeHarness { $0.patchWindowMilliseconds = 0 }
            let watcher = try RosterMirror(harness)
            let alice = try harness.connect("u-1", rooms: ["r": .participant])
            try harness.join(alice, "r", device: "web")
            try watcher.sync()

            let scanned = #"{"type":"state","room":"r","\#(flag.rawValue)":true}"#
            #expect(TrafficDecodingTests.expectAgreement(scanned), "\(flag): not taken by the fast path")
            harness.sendText(alice, scanned)
            let turnedOn = try watcher.sync()
            let onEvent = try #require(turnedOn.events(named: flag.eventNames.on).first, "\(flag): no event")
            #expect(onEvent["data"]?["participant"]?[flag.rawValue] == true, "\(flag): \(onEvent)")
            #expect(turnedOn.contains { $0["type"] == "patch" }, "\(flag): no patch")
            #expect(watcher.participants["u-1"]?[flag.rawValue] == true, "\(flag): not in the mirrored entry")
            #expect(watcher.matchesServer(), "\(flag): the mirror differs from the server's roster")
            #expect(harness.participant("u-1", in: "r")?.flags[flag] == true)

            let later = try harness.connect("o-later", rooms: ["r": .viewer])
            let joined = try harness.join(later, "r", as: "observer")
            let snapshot = try #require(joined.first(type: "snapshot"))
            #expect(snapshot.snapshotParticipant("u-1")?[flag.rawValue] == true, "\(flag): not in a new snapshot")
            #expect(try RosterStore(snapshot: snapshot).roster["participants"]?["u-1"]?[flag.rawValue] == true)

            let participant = try #require(harness.participant("u-1", in: "r"))
            let restored = try Participant(checkpoint: .object(participant.wireObject(.checkpoint)))
            #expect(restored == participant, "\(flag): the checkpoint does not read back equal")

            // An escape in the room's name leaves the message to the JSON parser.
            let parsed = #"{"type":"state","room":"\u0072","\#(flag.rawValue)":false}"#
            #expect(TrafficDecodingTests.fastDecoding(parsed) == nil)
            harness.sendText(alice, parsed)
            let turnedOff = try watcher.sync()
            #expect(turnedOff.eventNames.contains(flag.eventNames.off), "\(flag): \(turnedOff)")
            #expect(watcher.participants["u-1"]?[flag.rawValue] == false)
            #expect(watcher.matchesServer())
        }
    }

    @Test("a flag set by moderators only is refused in a state message on both paths, and changes nothing")
    func moderatorFlagsAreRefusedInStateMessages() throws {
        for flag in ParticipantFlag.ordered where !flag.isSetByParticipant {
            let harness = try RoomsNodeHarness()
            let alice = try harness.connect("u-1", rooms: ["r": .participant])
            try harness.join(alice, "r")
            let text = #"{"type":"state","room":"r","\#(flag.rawValue)":true}"#
            #expect(TrafficDecodingTests.fastDecoding(text) == nil, "\(flag): taken by the fast path")
            _ = harness.drain(alice)
            harness.sendText(alice, text)
            #expect(harness.drain(alice).errorCodes == ["ERR_FORBIDDEN"], "\(flag)")
            #expect(harness.participant("u-1", in: "r")?.flags[flag] == false)
        }
    }
}
