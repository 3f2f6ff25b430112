import JSONCoding
import RollcallClient
import RoomsTesting
import Testing

@testable import Rooms

/// A resume needs only what its subscription takes: a subscriber in the `notable` or `none` event mode, or with a
/// view that seldom changes, resumes exactly after more entries than the history keeps, as long as the events it
/// takes and its view's roster are still at hand; otherwise it gets a fresh snapshot, never part of what it missed.
@Suite struct ResumeByEventModeTests {
    /// Alice (moderator, member of the room's group) and Bob in room `r`, watched by an observer that will drop and
    /// one that stays, both with the same view and events.
    struct BusyCall {
        let harness: RoomsNodeHarness
        let alice: SessionID
        let bob: SessionID
        let away: RosterMirror
        let live: RosterMirror
        let view: JSONValue
        let events: String

        init(events: String, view: JSONValue = ["filter": "all"]) throws {
            self.harness = try RoomsNodeHarness()
            self.alice = try self.harness.connect("u-alice", rooms: ["r": .moderator], groups: ["r"])
            self.bob = try self.harness.connect("u-bob", rooms: ["r": .participant])
            try self.harness.join(self.alice, "r")
            try self.harness.join(self.bob, "r", device: "phone")
            self.harness.advance(milliseconds: 100)
            self.view = view
            self.events = events
            self.away = try RosterMirror(self.harness, uid: "o-away", view: view, events: events)
            self.live = try RosterMirror(self.harness, uid: "o-live", view: view, events: events)
        }

        /// Alice's hand goes up and down `count` times, with a pause of 60 ms every ten changes so that patches
        /// go out; the connected observers take what arrives.
        func toggleAlicesHand(_ count: Int) throws {
            for index in 0..<count {
                self.harness.send(self.alice, ["type": "state", "room": "r", "handRaised": .bool(index % 2 == 0)])
                if index % 10 == 9 {
                    self.harness.advance(milliseconds: 60)
                    for mirror in [self.away, self.live] where self.harness.closeCode(mirror.session) == nil {
                        try mirror.sync()
                    }
                }
            }
        }

        func sendMeetingMessage(_ text: String) {
            self.harness.send(
                self.alice,
                ["type": "meeting", "group": "r", "sessionId": "s-1", "callType": "audio", "text": .string(text)])
        }

        /// The observer that dropped joins again with the same view and events, and the fields given.
        func rejoin(_ resumeFields: [(String, JSONValue)]) throws -> [JSONValue] {
            let session = try self.harness.connect("o-away", rooms: ["r": .viewer])
            let fields: [(String, JSONValue)] =
                [
                    ("type", "join"), ("id", "j"), ("room", "r"), ("as", "observer"), ("view", self.view),
                    ("events", .string(self.events)),
                ] + resumeFields
            self.harness.send(session, .object(JSONObject(uniqueKeysWithValues: fields)))
            return self.harness.drainWithPatches(session)
        }
    }

    /// The reproduction of a browser client's resume in a busy call: its roster's seq, and the seq of the last
    /// event it received, which in the `notable` mode stays at its first snapshot (`resumeEvents: 1`). With more
    /// toggles than the history keeps (1,100) the meeting message and the moderation of the gap are replayed all
    /// the same, as with fewer (300).
    @Test(arguments: [1_100, 300])
    func aNotableObserverResumesWithTheMeetingMessageAndModerationItMissedAfterAnyNumberOfToggles(toggles: Int) throws {
        let call = try BusyCall(events: "notable")
        try call.toggleAlicesHand(toggles)
        try call.away.sync()
        try call.live.sync()
        let rosterSequence = call.away.store.sequence
        #expect(call.away.received.events.isEmpty, "the notable mode took nothing of the toggles")
        call.harness.close(call.away.session, cleanly: false)
        let seenBefore = call.live.received.count
        call.sendMeetingMessage("standup in five")
        call.harness.send(call.alice, ["type": "action", "room": "r", "action": "mute_all"])
        call.harness.advance(milliseconds: 60)
        try call.live.sync()
        let missed = Array(call.live.received.dropFirst(seenBefore))
        #expect(missed.eventNames == ["meeting.message", "moderation.muted"])

        let answer = try call.rejoin([("resume", .int(Int64(rosterSequence))), ("resumeEvents", 1)])
        #expect(answer.first?["type"] == "ack")
        #expect(answer.first(type: "snapshot") == nil, "answered with a fresh snapshot: \(answer.dropFirst())")
        #expect(
            answer.last == ["type": "resumed", "room": "r", "seq": .int(call.harness.sequence("r")), "recovered": true])
        let replayed = Array(answer.dropFirst().dropLast())
        #expect(replayed.allSatisfy { $0["recovered"] == true })
        // Exactly what the observer that stayed got meanwhile, in the same order, each once.
        #expect(replayed.map { $0.removing("recovered") } == missed)
        var store = call.away.store
        for patch in RosterMirror.patches(replayed) { try store.apply(patch: patch) }
        #expect(store.roster == call.live.store.roster)
        #expect(call.harness.gateway.statistics.resumesRecovered == 1)
    }

    @Test func anObserverWhoseViewAndModeTookNothingForLongResumesFromItsSnapshotWithTheMeetingMessage() throws {
        // Nobody is banned: the banned view does not change while hands go up and down.
        let call = try BusyCall(events: "none", view: ["filter": "banned"])
        let snapshotSequence = call.away.store.sequence
        try call.toggleAlicesHand(1_100)
        try call.away.sync()
        #expect(call.away.received.isEmpty)
        #expect(call.harness.sequence("r") > Int64(snapshotSequence) + 1_000)
        call.harness.close(call.away.session, cleanly: true)
        try call.live.sync()
        let seenBefore = call.live.received.count
        call.sendMeetingMessage("retro at four")
        call.harness.advance(milliseconds: 60)
        try call.live.sync()
        let missed = Array(call.live.received.dropFirst(seenBefore))

        let answer = try call.rejoin([("resume", .int(Int64(snapshotSequence)))])
        #expect(answer.last?["type"] == "resumed")
        #expect(answer.last?["recovered"] == true)
        let replayed = Array(answer.dropFirst().dropLast())
        #expect(replayed.eventNames == ["meeting.message"])
        #expect(replayed.map { $0.removing("recovered") } == missed)
        var store = call.away.store
        for patch in RosterMirror.patches(replayed) { try store.apply(patch: patch) }
        #expect(store.roster == call.live.store.roster)
        #expect(
            call.harness.gateway.renderedView(room: "r", spec: RosterViewSpec(filter: .banned)) == .object(store.roster)
        )
    }

    @Test func aResumeGetsAFreshSnapshotWhenAMeetingMessageItMissedIsNoLongerRetained() throws {
        let call = try BusyCall(events: "none", view: ["filter": "banned"])
        let snapshotSequence = call.away.store.sequence
        call.harness.close(call.away.session, cleanly: false)
        call.sendMeetingMessage("standup in five")
        // The meeting message goes out of the history behind the toggles.
        try call.toggleAlicesHand(1_100)
        let answer = try call.rejoin([("resume", .int(Int64(snapshotSequence)))])
        #expect(answer.map { $0["type"] } == ["ack", "snapshot"])
        #expect(answer.last?["recovered"] == false)
        #expect(!answer.contains { $0["recovered"] == true })
        #expect(call.harness.gateway.statistics.resumesNotRecovered == 1)
    }

    @Test func aParticipantThatTakesNoEventsGetsTheUnmuteRequestItMissedReplayed() throws {
        let harness = try RoomsNodeHarness()
        let alice = try harness.connect("u-alice", rooms: ["r": .moderator])
        try harness.join(alice, "r")
        let bob = try harness.connect("u-bob", rooms: ["r": .participant])
        harness.send(bob, ["type": "join", "room": "r", "device": "phone", "events": "none"])
        harness.send(bob, ["type": "state", "room": "r", "audioMuted": true])
        harness.advance(milliseconds: 100)
        // Live, the request reaches the participant asked whatever events it takes.
        harness.send(alice, ["type": "action", "room": "r", "action": "ask_unmute", "target": "u-bob"])
        #expect(harness.drain(bob).eventNames == ["moderation.unmute_requested"])
        let position = harness.sequence("r")
        harness.close(bob, cleanly: false)
        harness.send(alice, ["type": "action", "room": "r", "action": "ask_unmute", "target": "u-bob"])
        let again = try harness.connect("u-bob", rooms: ["r": .participant])
        harness.send(
            again,
            [
                "type": "join", "id": "j", "room": "r", "device": "phone", "events": "none", "resume": .int(position),
            ])
        let answer = harness.drain(again)
        #expect(answer.last?["recovered"] == true)
        #expect(answer.eventNames == ["moderation.unmute_requested"])
    }
}
