import JSONCoding
import RollcallClient
import RoomsTesting
import Testing
import TokenAuth

@testable import Rooms

@Suite struct RosterCoalescingTests {
    @Test func aMuteAndAnUnmuteInsideOneWindowSendNoPatch() throws {
        let harness = try RoomsNodeHarness()
        let alice = try harness.joinQuietly("u-alice")
        harness.advance(milliseconds: 100)
        let mirror = try RosterMirror(harness)
        harness.send(alice, ["type": "state", "room": "r", "audioMuted": true])
        harness.advance(milliseconds: 20)
        harness.send(alice, ["type": "state", "room": "r", "audioMuted": false])
        harness.advance(milliseconds: 100)
        #expect(RosterMirror.patches(try mirror.sync()).isEmpty)
        #expect(mirror.participants["u-alice"]?["audioMuted"] == false)
        // A mute alone goes out when its window ends, not before.
        harness.send(alice, ["type": "state", "room": "r", "audioMuted": true])
        harness.advance(milliseconds: 49)
        #expect(RosterMirror.patches(try mirror.sync()).isEmpty)
        harness.advance(milliseconds: 1)
        #expect(RosterMirror.patches(try mirror.sync()).count == 1)
        #expect(mirror.participants["u-alice"]?["audioMuted"] == true)
    }

    @Test func aWindowsPatchGoesOutAtItsDueMomentWithoutATick() throws {
        let harness = try RoomsNodeHarness()
        var dues: [Int64] = []
        harness.gateway.onFlushDue = { dues.append($0) }
        let alice = try harness.joinQuietly("u-alice")
        harness.advance(milliseconds: 100)
        let mirror = try RosterMirror(harness)
        dues = []
        let opened = harness.clock.now
        harness.send(alice, ["type": "state", "room": "r", "handRaised": true])
        harness.send(alice, ["type": "state", "room": "r", "audioMuted": true])
        // One window for both changes, due when it closes.
        #expect(dues == [opened + 50])
        harness.clock.advance(milliseconds: 49)
        harness.gateway.flushDueRooms()
        #expect(RosterMirror.patches(try mirror.sync()).isEmpty)
        harness.clock.advance(milliseconds: 1)
        harness.gateway.flushDueRooms()
        #expect(RosterMirror.patches(try mirror.sync()).count == 1)
        #expect(mirror.participants["u-alice"]?["handRaised"] == true)
        #expect(mirror.participants["u-alice"]?["audioMuted"] == true)
        // Nothing is left waiting: the next change opens a new window.
        harness.clock.advance(milliseconds: 100)
        harness.gateway.flushDueRooms()
        #expect(RosterMirror.patches(try mirror.sync()).isEmpty)
        harness.send(alice, ["type": "state", "room": "r", "audioMuted": false])
        #expect(dues == [opened + 50, opened + 200])
    }

    @Test func aThousandJoinsInOneSecondReachAnObserverAsAHandfulOfPatches() throws {
        let harness = try RoomsNodeHarness { $0.roomCapacity = 2_000 }
        let mirror = try RosterMirror(harness, events: "none")
        for index in 0..<1_000 {
            try harness.joinQuietly("u-\(index)")
            harness.advance(milliseconds: 1)
        }
        harness.advance(milliseconds: 100)
        let patches = RosterMirror.patches(try mirror.sync())
        // About one patch per 50 ms window: far fewer than one per join.
        #expect(patches.count >= 10 && patches.count <= 50, "\(patches.count) patches")
        #expect(mirror.participants.count == 1_000)
        #expect(mirror.store.roomState["participantCount"] == 1_000)
        #expect(mirror.matchesServer())
    }

    @Test(arguments: [true, false])
    func leavesRemovalsAndModerationSkipTheWindowOnlyWhenImmediate(immediate: Bool) throws {
        let harness = try RoomsNodeHarness { $0.immediateLeaves = immediate }
        let host = try harness.joinQuietly("u-host", role: .moderator)
        let bob = try harness.joinQuietly("u-bob")
        try harness.joinQuietly("u-carol")
        try harness.joinQuietly("u-dan")
        harness.advance(milliseconds: 100)
        let mirror = try RosterMirror(harness)
        let steps: [(SessionID, JSONValue, (JSONObject) -> Bool)] = [
            (bob, ["type": "leave", "room": "r"], { $0["u-bob"] == nil }),
            (host, ["type": "action", "room": "r", "action": "remove", "target": "u-carol"], { $0["u-carol"] == nil }),
            (
                host, ["type": "action", "room": "r", "action": "mute", "target": "u-dan"],
                { $0["u-dan"]?["mutedByModerator"] == true }
            ),
            (
                host, ["type": "action", "room": "r", "action": "promote", "target": "u-dan"],
                { $0["u-dan"]?["operator"] == true }
            ),
        ]
        for (session, message, done) in steps {
            harness.send(session, message)
            let atOnce = RosterMirror.patches(try mirror.sync())
            #expect(atOnce.count == (immediate ? 1 : 0), "\(message)")
            #expect(done(mirror.participants) == immediate, "\(message)")
            harness.advance(milliseconds: 50)
            #expect(RosterMirror.patches(try mirror.sync()).count == (immediate ? 0 : 1), "\(message)")
            #expect(done(mirror.participants), "\(message)")
        }
        #expect(mirror.matchesServer())
    }

    @Test func underTheHoldRuleTheShownActiveSpeakerChangesAtMostOncePerHold() throws {
        let harness = try RoomsNodeHarness { $0.speakerRuleKind = .hold }
        let alice = try harness.joinQuietly("u-alice")
        let bob = try harness.joinQuietly("u-bob")
        harness.advance(milliseconds: 1_000)
        let mirror = try RosterMirror(harness)
        var shown: [(time: Int64, speaker: JSONValue?)] = [(harness.clock.now, mirror.store.roomState["activeSpeaker"])]
        let start = harness.clock.now
        let reports: [Int64: String] = [0: "u-alice", 100: "u-bob", 200: "u-alice", 300: "u-bob"]
        for elapsed in stride(from: Int64(0), through: 1_500, by: 10) {
            if let uid = reports[elapsed] {
                harness.send(uid == "u-alice" ? alice : bob, ["type": "speaker", "room": "r", "uid": .string(uid)])
            }
            harness.advance(milliseconds: 10)
            try mirror.sync()
            let speaker = mirror.store.roomState["activeSpeaker"]
            if speaker != shown.last?.speaker { shown.append((harness.clock.now - start, speaker)) }
        }
        // Nobody, then Alice at once, then Bob (the last report) when Alice's hold ends: never A, B, A, B.
        #expect(shown.map(\.speaker) == [nil, "u-alice", "u-bob"])
        if shown.count == 3 {
            #expect(shown[2].time - shown[1].time >= 500)
            #expect(shown[2].time <= 700)
        }
        // Both switches are logged: Alice's at once (nobody was shown), Bob's when her hold ended.
        #expect(mirror.received.eventNames.filter { $0 == "participant.active_speaker_shown" }.count == 2)
        #expect(mirror.matchesServer())
    }

    @Test func underTheStableRuleACoughNeverTakesTheSpotlightAndSilenceDoesNotBlankItAtOnce() throws {
        let harness = try RoomsNodeHarness { $0.speakerStableMilliseconds = 500 }
        let alice = try harness.joinQuietly("u-alice")
        let bob = try harness.joinQuietly("u-bob")
        harness.advance(milliseconds: 1_000)
        let mirror = try RosterMirror(harness)
        var shown: [(time: Int64, speaker: JSONValue?)] = [(0, mirror.store.roomState["activeSpeaker"])]
        let start = harness.clock.now
        // Alice speaks from 0 to 2,000; Bob coughs from 1,000 to 1,100.
        let reports: [Int64: (SessionID, JSONValue)] = [
            0: (alice, "u-alice"), 1_000: (bob, "u-bob"), 1_100: (bob, nil), 2_000: (alice, nil),
        ]
        for elapsed in stride(from: Int64(0), through: 3_000, by: 10) {
            if let (session, uid) = reports[elapsed] {
                harness.send(session, ["type": "speaker", "room": "r", "uid": uid])
            }
            harness.advance(milliseconds: 10)
            try mirror.sync()
            let speaker = mirror.store.roomState["activeSpeaker"]
            if speaker != shown.last?.speaker { shown.append((harness.clock.now - start, speaker)) }
        }
        // Nobody; Alice once her reports held 500 ms; nobody 500 ms after she stopped. Bob never.
        #expect(shown.map(\.speaker) == [nil, "u-alice", nil])
        if shown.count == 3 {
            #expect((500...600).contains(shown[1].time))
            #expect((2_500...2_600).contains(shown[2].time))
        }
        // Subscribers that take events hear of the switches, not of the reports.
        let speakerEvents = mirror.received.eventNames.filter { $0.hasPrefix("participant.") && $0.contains("speak") }
        #expect(speakerEvents == ["participant.active_speaker_shown", "participant.active_speaker_shown"])
        #expect(mirror.matchesServer())
    }

    @Test func aQuickReconnectIsNeverALeaveAndAJoinInThePatches() throws {
        let harness = try RoomsNodeHarness()
        let alice = try harness.joinQuietly("u-alice", device: "web")
        try harness.joinQuietly("u-bob")
        harness.advance(milliseconds: 100)
        let mirror = try RosterMirror(harness)
        var states: [JSONValue?] = []
        harness.close(alice, cleanly: false)
        for _ in 0..<20 {
            harness.advance(milliseconds: 50)
            try mirror.sync()
            states.append(mirror.participants["u-alice"]?["state"])
        }
        try harness.joinQuietly("u-alice", device: "web")
        harness.advance(milliseconds: 50)
        try mirror.sync()
        states.append(mirror.participants["u-alice"]?["state"])
        // The entry never disappears: it goes to reconnecting and back, with no null and no re-add.
        #expect(!states.contains(nil))
        #expect(states.first == "reconnecting")
        #expect(states.last == "joined")
        let patches = RosterMirror.patches(mirror.received)
        #expect(patches.count == 2)
        for patch in patches {
            let change = patch["patch"]?["participants"]?["u-alice"]
            #expect(change != .null)
            #expect(change?["uid"] == nil, "the entry was sent whole, as for a join")
        }
        #expect(mirror.received.eventNames == ["session.connection_lost", "session.connection_restored"])
    }

    @Test func oneMuteInAThousandParticipantRoomIsAPatchOfAFewDozenBytes() throws {
        let harness = try RoomsNodeHarness { $0.roomCapacity = 2_000 }
        var sessions: [SessionID] = []
        for index in 0..<1_000 {
            sessions.append(try harness.joinQuietly("u-\(index)"))
            harness.advance(milliseconds: 1)
        }
        harness.advance(milliseconds: 100)
        let mirror = try RosterMirror(harness, events: "none")
        let before = harness.gateway.statistics
        harness.send(sessions[500], ["type": "state", "room": "r", "audioMuted": true])
        harness.advance(milliseconds: 50)
        let patches = RosterMirror.patches(try mirror.sync())
        try #require(patches.count == 1)
        let bytes = JSONWriter.bytes(patches[0]).count
        let body = JSONWriter.bytes(patches[0]["patch"]!).count
        // The participant's entry and, in the same patch, the room's counts.
        #expect(
            patches[0]["patch"] == ["room": ["counts": ["muted": 1]], "participants": ["u-500": ["audioMuted": true]]])
        #expect(body < 80, "\(body) bytes of patch")
        #expect(bytes < 176, "\(bytes) bytes of message")
        // The gateway encoded that message once, and one for the participants' own view (`speakers`), which
        // carries the counts only, to the thousand of them.
        let after = harness.gateway.statistics
        #expect(after.patches - before.patches == 2)
        #expect(after.patchDeliveries - before.patchDeliveries == 1 + 1_000)
        #expect(mirror.participants["u-500"]?["audioMuted"] == true)
    }
}
