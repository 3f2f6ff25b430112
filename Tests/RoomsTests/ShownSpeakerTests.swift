import JSONCoding
import RoomsTesting
import Testing
import TokenAuth

@testable import Rooms

/// Every switch of the shown speaker (`roster.room.activeSpeaker`) is logged as `participant.active_speaker_shown`,
/// under both speaker rules, also when it switches at once.
@Suite struct ShownSpeakerTests {
    /// The shown speaker's uid in each `active_speaker_shown` the mirror received.
    func shownSwitches(_ mirror: RosterMirror) -> [JSONValue] {
        mirror.received.events(named: "participant.active_speaker_shown").map { $0["data"]?["uid"] ?? .null }
    }

    @Test(arguments: SpeakerRuleKind.allCases)
    func theShownSpeakerLeavingIsLoggedAsASwitch(_ rule: SpeakerRuleKind) throws {
        let harness = try RoomsNodeHarness { $0.speakerRuleKind = rule }
        let alice = try harness.joinQuietly("u-alice")
        let bob = try harness.joinQuietly("u-bob")
        harness.send(bob, ["type": "speaker", "room": "r", "uid": "u-bob"])
        harness.advance(milliseconds: 1_000)
        harness.send(alice, ["type": "speaker", "room": "r", "uid": "u-alice"])
        harness.advance(milliseconds: 1_000)
        let mirror = try RosterMirror(harness)
        #expect(mirror.store.roomState["activeSpeaker"] == "u-alice")

        harness.send(alice, ["type": "leave", "room": "r"])
        try mirror.sync()
        // Bob still speaks: he is shown at once, and the switch is logged.
        #expect(mirror.store.roomState["activeSpeaker"] == "u-bob")
        #expect(self.shownSwitches(mirror) == ["u-bob"])
        #expect(mirror.received.eventNames.suffix(2) == ["participant.left", "participant.active_speaker_shown"])
        harness.send(bob, ["type": "leave", "room": "r"])
        try mirror.sync()
        #expect(mirror.store.roomState["activeSpeaker"] == nil)
        #expect(self.shownSwitches(mirror) == ["u-bob", .null])
        #expect(mirror.matchesServer())
    }

    @Test func underTheHoldRuleASwitchAtOnceIsLoggedToo() throws {
        let harness = try RoomsNodeHarness { $0.speakerRuleKind = .hold }
        let alice = try harness.joinQuietly("u-alice")
        try harness.joinQuietly("u-bob")
        harness.advance(milliseconds: 1_000)
        let mirror = try RosterMirror(harness)
        harness.send(alice, ["type": "speaker", "room": "r", "uid": "u-alice"])
        harness.advance(milliseconds: 100)
        try mirror.sync()
        #expect(mirror.store.roomState["activeSpeaker"] == "u-alice")
        #expect(
            mirror.received.eventNames == ["participant.active_speaker_changed", "participant.active_speaker_shown"])
        #expect(self.shownSwitches(mirror) == ["u-alice"])
        #expect(mirror.matchesServer())
    }
}
