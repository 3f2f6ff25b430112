import JSONCoding
import RollcallClient
import RoomsTesting
import Testing
import TokenAuth

@testable import Rooms

@Suite struct RosterBackpressureTests {
    @Test func anUnwritableSubscriberSkipsPatchesThenGetsOneResyncSnapshot() throws {
        let harness = try RoomsNodeHarness()
        let alice = try harness.joinQuietly("u-alice")
        let bob = try harness.joinQuietly("u-bob")
        harness.advance(milliseconds: 100)
        let slow = try RosterMirror(harness, uid: "o-slow")
        let other = try RosterMirror(harness, uid: "o-other")
        harness.gateway.sessionWritabilityChanged(slow.session, isWritable: false)
        harness.send(alice, ["type": "state", "room": "r", "audioMuted": true])
        harness.advance(milliseconds: 50)
        harness.send(bob, ["type": "state", "room": "r", "handRaised": true])
        harness.advance(milliseconds: 50)
        // Events keep flowing; patches do not.
        let whileSlow = try slow.sync()
        #expect(whileSlow.eventNames == ["participant.audio_muted", "participant.hand_raised"])
        #expect(RosterMirror.patches(whileSlow).isEmpty)
        #expect(RosterMirror.patches(try other.sync()).count == 2)
        // One more change is pending in its window when the connection drains.
        harness.send(alice, ["type": "state", "room": "r", "presenting": true])
        harness.gateway.sessionWritabilityChanged(slow.session, isWritable: true)
        let drained = try slow.sync()
        let rosterMessages = drained.filter { $0["type"] == "snapshot" || $0["type"] == "patch" }
        #expect(rosterMessages.map { $0["type"] } == ["snapshot"], "one snapshot and nothing before it")
        #expect(rosterMessages.first?["resync"] == true)
        try other.sync()
        #expect(slow.store.roster == other.store.roster)
        #expect(slow.participants["u-alice"]?["presenting"] == true)
        #expect(slow.matchesServer())
        #expect(harness.gateway.statistics.resyncSnapshots == 1)
        // And live patches follow the snapshot again.
        harness.send(bob, ["type": "state", "room": "r", "videoPaused": true])
        harness.advance(milliseconds: 50)
        #expect(RosterMirror.patches(try slow.sync()).count == 1)
        try other.sync()
        #expect(slow.store.roster == other.store.roster)
    }

    @Test func meetingMessagesReachAnUnwritableSubscriber() throws {
        let harness = try RoomsNodeHarness()
        let alice = try harness.joinQuietly("u-alice")
        let slow = try RosterMirror(harness, uid: "o-slow", events: "none")
        harness.gateway.sessionWritabilityChanged(slow.session, isWritable: false)
        harness.send(alice, ["type": "meeting", "group": "r", "sessionId": "call-1", "text": "standup"])
        #expect(try slow.sync().eventNames == ["meeting.message"])
    }

    @Test func aSubscriberUnwritablePastTheTimeoutIsClosedWith4008() throws {
        let harness = try RoomsNodeHarness { $0.slowSubscriberTimeoutMilliseconds = 1_000 }
        let alice = try harness.joinQuietly("u-alice")
        let slow = try RosterMirror(harness, uid: "o-slow")
        let other = try RosterMirror(harness, uid: "o-other")
        harness.gateway.sessionWritabilityChanged(slow.session, isWritable: false)
        harness.advance(milliseconds: 999)
        #expect(harness.closeCode(slow.session) == nil)
        harness.send(alice, ["type": "state", "room": "r", "audioMuted": true])
        harness.advance(milliseconds: 1)
        #expect(harness.closeCode(slow.session) == 4008)
        #expect(harness.gateway.statistics.slowSubscribersClosed == 1)
        // The others are unaffected: the pending mute still reaches them, and later changes too.
        harness.advance(milliseconds: 50)
        #expect(RosterMirror.patches(try other.sync()).count == 1)
        harness.send(alice, ["type": "state", "room": "r", "handRaised": true])
        harness.advance(milliseconds: 50)
        #expect(RosterMirror.patches(try other.sync()).count == 1)
        #expect(other.matchesServer())
        #expect(harness.closeCode(other.session) == nil)
    }

    @Test func aResumeWithinTheHistoryReplaysExactlyTheMissedPatchesAndEventsOnce() throws {
        let harness = try RoomsNodeHarness()
        let host = try harness.joinQuietly("u-host", role: .moderator)
        let bob = try harness.joinQuietly("u-bob")
        harness.advance(milliseconds: 100)
        let away = try RosterMirror(harness, uid: "o-away")
        let live = try RosterMirror(harness, uid: "o-live")
        harness.send(bob, ["type": "state", "room": "r", "handRaised": true])
        harness.advance(milliseconds: 50)
        try away.sync()
        let lastEvent = try #require(away.received.events.last?["seq"]?.intValue)
        harness.close(away.session, cleanly: false)
        try live.sync()
        let seenBefore = live.received.count
        harness.send(bob, ["type": "state", "room": "r", "audioMuted": true, "videoPaused": true])
        harness.advance(milliseconds: 50)
        harness.send(host, ["type": "action", "room": "r", "action": "lower_hand", "target": "u-bob"])
        harness.send(bob, ["type": "state", "room": "r", "presenting": true])
        harness.advance(milliseconds: 50)
        try live.sync()
        let missed = Array(live.received.dropFirst(seenBefore))
        let back = try harness.connect("o-away", rooms: ["r": .viewer])
        harness.send(
            back,
            [
                "type": "join", "id": "j", "room": "r", "as": "observer",
                "resume": .int(Int64(away.store.sequence)), "resumeEvents": .int(lastEvent),
            ])
        let answer = harness.drainWithPatches(back)
        #expect(answer.first?["type"] == "ack")
        #expect(answer.last == ["type": "resumed", "room": "r", "seq": .int(harness.sequence("r")), "recovered": true])
        let replayed = Array(answer.dropFirst().dropLast())
        #expect(replayed.allSatisfy { $0["recovered"] == true })
        #expect(replayed.first(type: "snapshot") == nil)
        // Exactly what the live observer got meanwhile, in the same (log) order, each once.
        #expect(replayed.map { $0.removing("recovered") } == missed)
        #expect(RosterMirror.patches(replayed).count == 2)
        var store = away.store
        for patch in RosterMirror.patches(replayed) { try store.apply(patch: patch) }
        #expect(store.roster == live.store.roster)
        #expect(harness.gateway.renderedView(room: "r", spec: .all) == .object(store.roster))
    }

    @Test func aResumeBeyondTheRetainedHistoryIsAFreshSnapshotNotRecovered() throws {
        let harness = try RoomsNodeHarness { $0.history = HistoryRetention(maximumEntries: 3) }
        let bob = try harness.joinQuietly("u-bob")
        harness.advance(milliseconds: 100)
        let away = try RosterMirror(harness, uid: "o-away")
        harness.close(away.session, cleanly: true)
        for flag in [true, false, true, false, true] {
            harness.send(bob, ["type": "state", "room": "r", "handRaised": .bool(flag)])
            harness.advance(milliseconds: 50)
        }
        let back = try harness.connect("o-away", rooms: ["r": .viewer])
        harness.send(
            back,
            [
                "type": "join", "id": "j", "room": "r", "as": "observer", "resume": .int(Int64(away.store.sequence)),
            ])
        let answer = harness.drainWithPatches(back)
        // Never a partial recovery: no replayed message at all, one snapshot marked not recovered.
        #expect(answer.map { $0["type"] } == ["ack", "snapshot"])
        #expect(answer.last?["recovered"] == false)
        #expect(!answer.contains { $0["recovered"] == true })
        let store = try RosterStore(snapshot: try #require(answer.last))
        #expect(store.participants.first?.handRaised == true)
        #expect(harness.gateway.renderedView(room: "r", spec: .all) == .object(store.roster))
        #expect(harness.gateway.statistics.resumesNotRecovered == 1)
    }
}
