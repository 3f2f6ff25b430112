import JSONCoding
import RoomsTesting
import Testing
import TokenAuth

@testable import Rooms

@Suite struct SequenceAndResumeTests {
    @Test func everySubscriberSeesTheSameGaplessSequence() throws {
        // Under the hold rule every speaker report goes out as an event too, so every entry reaches everyone.
        let harness = try RoomsNodeHarness { $0.speakerRuleKind = .hold }
        let alice = try harness.connect("u-alice", rooms: ["r": .moderator])
        let bob = try harness.connect("u-bob", rooms: ["r": .participant])
        let watcher = try harness.connect("u-watch", rooms: ["r": .viewer])
        try harness.join(alice, "r")
        try harness.join(bob, "r")
        try harness.join(watcher, "r", as: "observer")
        let start = harness.sequence("r")
        for session in [alice, bob, watcher] { _ = harness.drain(session) }
        var acks: [JSONValue] = []
        func step(_ session: SessionID, _ message: JSONValue) {
            harness.send(session, message)
            acks += (harness.transport.messages[session] ?? []).filter { $0["type"] == "ack" }
        }
        step(bob, ["type": "state", "room": "r", "audioMuted": true, "videoPaused": true])
        step(alice, ["type": "state", "room": "r", "presenting": true])
        step(alice, ["type": "action", "room": "r", "action": "spotlight", "target": "u-bob"])
        step(alice, ["type": "speaker", "room": "r", "uid": "u-alice"])
        step(alice, ["type": "media", "room": "r", "recording": true, "audioMode": "speaker"])
        step(bob, ["type": "state", "room": "r", "handRaised": true])
        step(alice, ["type": "action", "room": "r", "action": "lower_hand", "target": "u-bob"])
        let seen = [alice, bob, watcher].map { harness.drain($0).events }
        #expect(seen[0] == seen[1])
        #expect(seen[0] == seen[2])
        let sequences = seen[0].compactMap { $0["seq"]?.intValue }
        // Nine changes, and the switch of the shown speaker Alice's report caused at once.
        #expect(sequences == Array((start + 1)...(start + 10)))
        #expect(harness.sequence("r") == start + 10)
        // Each ack carries the room's sequence number after the request.
        let ackSequences = Set(acks.compactMap { $0["seq"]?.intValue })
        #expect(ackSequences.isSubset(of: Set(sequences)))
        #expect(ackSequences.contains(start + 10))
    }

    @Test func aResumeWithinTheHistoryReplaysExactlyTheMissedEvents() throws {
        let room = try TwoInARoom()
        let harness = room.harness
        _ = harness.drain(room.bob)
        let lastSeen = harness.sequence("r")
        harness.close(room.bob, cleanly: false)
        harness.send(room.alice, ["type": "state", "room": "r", "audioMuted": true])
        harness.send(room.alice, ["type": "action", "room": "r", "action": "spotlight", "target": "u-alice"])
        harness.send(room.alice, ["type": "state", "room": "r", "audioMuted": false])
        let bob = try harness.connect("u-bob", rooms: ["r": .participant])
        let answer = try harness.join(bob, "r", device: "phone", resume: lastSeen)
        let live = harness.drain(room.alice).events
        #expect(
            live.eventNames == [
                "session.connection_lost", "participant.audio_muted", "participant.pinned",
                "participant.audio_unmuted", "session.connection_restored",
            ])
        #expect(answer.first?["type"] == "ack")
        let replayed = Array(answer.dropFirst().dropLast())
        #expect(replayed.allSatisfy { $0["recovered"] == true })
        // The same events as they were sent live, each as it was then.
        #expect(replayed.map { $0.removing("recovered") } == live)
        #expect(answer.last == ["type": "resumed", "room": "r", "seq": .int(harness.sequence("r")), "recovered": true])
        #expect(answer.first(type: "snapshot") == nil)
    }

    @Test func aResumeFromTheCurrentSequenceReplaysNothing() throws {
        let harness = try RoomsNodeHarness()
        let alice = try harness.connect("u-alice", rooms: ["r": .participant])
        try harness.join(alice, "r")
        let watcher = try harness.connect("u-alice", rooms: ["r": .participant])
        let answer = try harness.join(watcher, "r", as: "observer", resume: harness.sequence("r"))
        #expect(answer.map { $0["type"] } == ["ack", "resumed"])
    }

    @Test func aResumeFromATrimmedSequenceGetsASnapshotNotRecovered() throws {
        let harness = try RoomsNodeHarness { $0.history = HistoryRetention(maximumEntries: 3) }
        let alice = try harness.connect("u-alice", rooms: ["r": .moderator])
        let bob = try harness.connect("u-bob", rooms: ["r": .participant])
        try harness.join(alice, "r")
        try harness.join(bob, "r")
        harness.close(bob, cleanly: false)
        for flag in [true, false, true, false] {
            harness.send(alice, ["type": "state", "room": "r", "handRaised": .bool(flag)])
        }
        let history = harness.request(alice, ["type": "query", "query": "history", "room": "r"])
        #expect(history.first?["firstRetained"] == .int(harness.sequence("r") - 2))
        // Past the coalescing window of the joins above, so the rejoin sends everything pending at once.
        harness.advance(milliseconds: 100)
        let again = try harness.connect("u-bob", rooms: ["r": .participant])
        let answer = try harness.join(again, "r", resume: 2)
        #expect(answer.map { $0["type"] } == ["ack", "snapshot"])
        #expect(answer.last?["recovered"] == false)
        // The snapshot's seq is the roster's: no later than the room's, and where the next patch starts from.
        let snapshotSequence = answer.last?["seq"]?.intValue ?? -1
        #expect(snapshotSequence >= 2 && snapshotSequence <= Int64(harness.sequence("r")))
        #expect(answer.last?["roster"]?["participants"]?["u-bob"]?["state"] == "joined")
        #expect(answer.events.isEmpty)
    }

    @Test func aResumeFromTheFutureGetsASnapshotNotRecovered() throws {
        let harness = try RoomsNodeHarness()
        let alice = try harness.connect("u-alice", rooms: ["r": .participant])
        let answer = try harness.join(alice, "r", resume: 99)
        #expect(answer.last?["type"] == "snapshot")
        #expect(answer.last?["recovered"] == false)
    }
}

extension JSONValue {
    /// The object without the member named `key`.
    func removing(_ key: String) -> JSONValue {
        guard case .object(var object) = self else { return self }
        object.removeValue(forKey: key)
        return .object(object)
    }
}
