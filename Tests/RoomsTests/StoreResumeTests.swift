import JSONCoding
import RollcallClient
import RoomsTesting
import Testing

@testable import Rooms

/// A restarted gateway holds a room in memory from the checkpoint it read it back from; a resume from before that
/// reads back into the store, as the history does: exact when the store holds every entry it needs, a fresh
/// snapshot otherwise (or when the store cannot be read), never part of it.
@Suite struct StoreResumeTests {
    /// Alice and Bob in room `r` on a gateway with a store; an observer mirrors the whole roster from early on
    /// (seq about 50) and drops, another stays; then the call goes on to seq 497 and the gateway restarts.
    struct RestartedCall {
        let store = InMemoryRoomStore()
        let clock = ManualClock()
        let first: RoomsNodeHarness
        /// The roster and the last event of the observer that dropped early.
        let awayRoster: RosterStore
        let awayLastEvent: UInt64
        /// What the observer that stayed received after the other dropped, until the restart.
        let missedBeforeRestart: [JSONValue]
        let restarted: RoomsNodeHarness

        init(trimBeforeRestart: (InMemoryRoomStore) -> Void = { _ in }) throws {
            self.first = try RoomsNodeHarness(clock: self.clock, store: self.store)
            let alice = try self.first.connect("u-alice", rooms: ["r": .moderator], groups: ["r"])
            let bob = try self.first.connect("u-bob", rooms: ["r": .participant])
            try self.first.join(alice, "r")
            try self.first.join(bob, "r", device: "phone")
            let away = try RosterMirror(self.first, uid: "o-away")
            let live = try RosterMirror(self.first, uid: "o-live")
            Self.toggle(bob, in: self.first, until: 50)
            try away.sync()
            try live.sync()
            self.awayRoster = away.store
            self.awayLastEvent = UInt64(away.received.events.last?["seq"]?.intValue ?? 0)
            self.first.close(away.session, cleanly: false)
            let seenBefore = live.received.count
            self.first.send(
                alice, ["type": "meeting", "group": "r", "sessionId": "s", "callType": "audio", "text": "demo at 3"])
            Self.toggle(bob, in: self.first, until: 497)
            try live.sync()
            self.missedBeforeRestart = Array(live.received.dropFirst(seenBefore)).events
            trimBeforeRestart(self.store)
            self.store.crash()
            self.restarted = try RoomsNodeHarness(clock: self.clock, store: self.store)
        }

        /// The participant's hand goes up and down until the room is at `sequence`, with a pause of 60 ms every ten
        /// entries so that patches go out.
        static func toggle(_ session: SessionID, in harness: RoomsNodeHarness, until sequence: Int64) {
            var raised = true
            while harness.sequence("r") < sequence {
                harness.send(session, ["type": "state", "room": "r", "handRaised": .bool(raised)])
                raised.toggle()
                if harness.sequence("r") % 10 == 0 { harness.advance(milliseconds: 60) }
            }
            harness.advance(milliseconds: 60)
        }

        /// The observer that dropped joins the restarted gateway again with its positions.
        func resume() throws -> [JSONValue] {
            let session = try self.restarted.connect("o-away", rooms: ["r": .viewer])
            self.restarted.send(
                session,
                [
                    "type": "join", "id": "j", "room": "r", "as": "observer",
                    "resume": .int(Int64(self.awayRoster.sequence)), "resumeEvents": .int(Int64(self.awayLastEvent)),
                ])
            return self.restarted.drainWithPatches(session)
        }
    }

    @Test func aResumeFromBeforeTheCheckpointARestartedRoomStartsAtIsServedFromTheStore() throws {
        let call = try RestartedCall()
        let answer = try call.resume()
        // Memory starts at the oldest checkpoint the stored entries reach back to; the resume is from before it.
        let history = try call.restarted.gateway.storedHistory("r", after: 0, eventNames: nil, limit: 1)
        #expect(history.firstRetained == 101)
        #expect(call.awayRoster.sequence < 100)

        #expect(answer.first(type: "snapshot") == nil, "answered with a fresh snapshot: \(answer.dropFirst())")
        #expect(
            answer.last == [
                "type": "resumed", "room": "r", "seq": .int(call.restarted.sequence("r")), "recovered": true,
            ])
        let replayed = Array(answer.dropFirst().dropLast())
        #expect(replayed.allSatisfy { $0["recovered"] == true })
        let position = max(call.awayRoster.sequence, call.awayLastEvent)
        #expect(
            replayed.events.compactMap { $0["seq"]?.intValue }
                == Array(Int64(position + 1)...call.restarted.sequence("r")))
        // What was sent live before the restart, replayed as it was sent; then the devices the restart lost.
        #expect(
            Array(replayed.events.prefix(call.missedBeforeRestart.count)).map { $0.removing("recovered") }
                == call.missedBeforeRestart)
        #expect(
            replayed.events.dropFirst(call.missedBeforeRestart.count).allSatisfy {
                $0["event"] == "session.connection_lost"
            })
        // One patch from the view rebuilt at the observer's seq to the view now.
        let patches = RosterMirror.patches(replayed)
        #expect(patches.count == 1)
        var store = call.awayRoster
        for patch in patches { try store.apply(patch: patch) }
        #expect(call.restarted.gateway.renderedView(room: "r", spec: .all) == .object(store.roster))
        #expect(call.restarted.gateway.statistics.resumesRecovered == 1)
    }

    @Test func aResumeWhoseEntriesTheStoreNoLongerHoldsGetsAFreshSnapshot() throws {
        // Retention dropped the roster churn behind a checkpoint, meeting messages kept: the resume's gap has holes.
        let call = try RestartedCall { $0.trim("r", through: 300, keeping: [.meeting]) }
        let answer = try call.resume()
        #expect(answer.map { $0["type"] } == ["ack", "snapshot"])
        #expect(answer.last?["recovered"] == false)
        #expect(!answer.contains { $0["recovered"] == true })
        #expect(call.restarted.gateway.statistics.resumesNotRecovered == 1)
    }

    @Test func aStoreThatCannotBeReadDuringAResumeAnswersAFreshSnapshotAndCountsTheFailure() throws {
        let call = try RestartedCall()
        var failures: [String] = []
        call.restarted.gateway.onStoreFailure = { failures.append($0) }
        try call.restarted.gateway.loadStoredRoom("r")
        call.store.failReads = RoomStoreError("disk gone")
        let answer = try call.resume()
        #expect(answer.map { $0["type"] } == ["ack", "snapshot"])
        #expect(answer.last?["recovered"] == false)
        #expect(call.restarted.gateway.statistics.storeFailures == 1)
        #expect(failures.count == 1)
        #expect(failures.first?.contains("disk gone") == true)
    }
}
