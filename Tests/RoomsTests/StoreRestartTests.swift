import JSONCoding
import RoomsTesting
import Testing

@testable import Rooms

/// A single process with a room store, restarted: what was committed comes back when a room is first used, with
/// its sequence numbers, bans, promotions, meeting messages and exact resumes; what was not committed is gone.
@Suite struct StoreRestartTests {
    /// A first gateway with a call in room `r` (Alice moderator, Bob participant), on a store that outlives it.
    struct Call {
        let store = InMemoryRoomStore()
        let clock = ManualClock()
        let harness: RoomsNodeHarness
        let alice: SessionID
        let bob: SessionID

        init(configure: (inout RoomsConfiguration) -> Void = { _ in }) throws {
            self.harness = try RoomsNodeHarness(clock: self.clock, store: self.store, configure: configure)
            self.alice = try self.harness.connect("u-alice", rooms: ["r": .moderator], groups: ["r"])
            self.bob = try self.harness.connect("u-bob", rooms: ["r": .participant], groups: ["r"])
            try self.harness.join(self.alice, "r")
            try self.harness.join(self.bob, "r", device: "phone")
        }

        /// The process ends; a new gateway starts on the same store and clock.
        func restart(configure: (inout RoomsConfiguration) -> Void = { _ in }) throws -> RoomsNodeHarness {
            self.store.crash()
            return try RoomsNodeHarness(clock: self.clock, store: self.store, configure: configure)
        }
    }

    @Test func aRestartedGatewayReadsARoomBackWithItsSequenceNumbersBansAndPromotions() throws {
        let call = try Call()
        let harness = call.harness
        harness.send(call.alice, ["type": "action", "room": "r", "action": "promote", "target": "u-bob"])
        let carol = try harness.connect("u-carol", rooms: ["r": .participant])
        try harness.join(carol, "r")
        harness.send(
            call.alice, ["type": "action", "room": "r", "action": "ban", "target": "u-carol", "reason": "spam"])
        let before = harness.sequence("r")
        #expect(before > 4)

        let restarted = try call.restart()
        #expect(restarted.gateway.roomState("r") == nil)  // read back only when first used
        let carolAgain = try restarted.connect("u-carol", rooms: ["r": .participant])
        let refused = restarted.request(carolAgain, ["type": "join", "room": "r"])
        #expect(refused.first?["code"] == "ERR_BANNED")
        #expect(restarted.sequence("r") > before)  // the devices lost at the restart are logged after it
        #expect(restarted.gateway.roomState("r")?.operators.contains("u-bob") == true)
        #expect(restarted.gateway.roomState("r")?.banned == ["u-carol"])
        let bob = try restarted.connect("u-bob", rooms: ["r": .participant], groups: ["r"])
        let answer = try restarted.join(bob, "r", device: "phone")
        #expect(answer.first?["seq"] == .int(restarted.sequence("r")))
        #expect(restarted.gateway.statistics.roomsLoaded == 1)
    }

    @Test func onlyCommittedChangesSurviveACrash() throws {
        let call = try Call()
        let committed = call.harness.sequence("r")
        // A change applied but not committed: the process ends before the end of the iteration.
        call.harness.gateway.sessionReceivedText(call.alice, #"{"type":"state","room":"r","handRaised":true}"#)
        #expect(call.harness.sequence("r") == committed + 1)
        let restarted = try call.restart()
        try restarted.gateway.loadStoredRoom("r")
        let state = try #require(restarted.gateway.roomState("r"))
        #expect(state.participants["u-alice"]?.handRaised == false)
        // Its number is given again, to the next change (two devices counted lost at the restart).
        #expect(state.sequence == committed + 2)
    }

    @Test func aClientResumesAcrossARestartWithExactlyWhatItMissed() throws {
        let call = try Call()
        let harness = call.harness
        harness.send(
            call.alice, ["type": "meeting", "group": "r", "sessionId": "s", "callType": "audio", "text": "one"])
        _ = harness.drain(call.bob)
        _ = harness.drain(call.alice)
        let lastSeen = harness.sequence("r")
        harness.close(call.bob, cleanly: false)
        harness.send(
            call.alice, ["type": "meeting", "group": "r", "sessionId": "s", "callType": "audio", "text": "two"])
        harness.send(call.alice, ["type": "state", "room": "r", "audioMuted": true])
        let missedLive = harness.drain(call.alice).filter { $0["type"] == "event" }

        let restarted = try call.restart()
        let bob = try restarted.connect("u-bob", rooms: ["r": .participant], groups: ["r"])
        let answer = try restarted.join(bob, "r", device: "phone", resume: lastSeen)
        #expect(answer.last?["type"] == "resumed")
        #expect(answer.last?["recovered"] == true)
        let replayed = answer.filter { $0["type"] == "event" }
        #expect(replayed.compactMap { $0["seq"]?.intValue } == Array((lastSeen + 1)...restarted.sequence("r")))
        // What was sent live before the restart is replayed as it was sent, from the store.
        #expect(Array(replayed.prefix(missedLive.count)).map { $0.removing("recovered") } == missedLive)
        #expect(answer.first(type: "snapshot") == nil)
    }

    @Test func devicesOfARoomReadBackAreLostAndLeaveAfterTheGracePeriod() throws {
        let call = try Call()
        let restarted = try call.restart()
        let observer = try restarted.connect("u-ops", rooms: ["r": .admin])
        try restarted.join(observer, "r", as: "observer")
        #expect(restarted.participant("u-alice", in: "r")?.devices.allSatisfy { !$0.isConnected } == true)
        restarted.advance(milliseconds: RoomsConfiguration().reconnectGraceMilliseconds + 10)
        let names = restarted.drain(observer).compactMap { $0["event"]?.stringValue }
        #expect(names.filter { $0 == "session.timed_out" }.count == 2)
        #expect(restarted.gateway.roomState("r")?.joinedParticipants.isEmpty == true)
    }

    @Test func devicesOfStoredRoomsNobodyUsesAfterTheRestartStillLeaveAfterTheGracePeriod() throws {
        let call = try Call()
        // More rooms than one round of the restart's sweep reads, each with a participant connected at the end.
        let others = (0..<70).map { "room-\($0)" }
        for room in others {
            let participant = try call.harness.connect("u-\(room)", rooms: [room: .participant])
            try call.harness.join(participant, room)
        }
        let restarted = try call.restart()
        #expect(restarted.gateway.roomState("r") == nil)
        // Nobody joins, queries or calls the API: the stored rooms are read back in the first ticks anyway.
        for _ in 0..<5 { restarted.advance(milliseconds: 10) }
        restarted.advance(milliseconds: RoomsConfiguration().reconnectGraceMilliseconds + 10)
        let names = call.store.committedEntries(of: "r").map(\.eventName)
        #expect(names.filter { $0 == "session.connection_lost" }.count == 2)
        #expect(names.filter { $0 == "session.timed_out" }.count == 2)
        for room in others {
            #expect(call.store.committedEntries(of: room).last?.eventName == "session.timed_out", "\(room)")
        }
        #expect(restarted.gateway.statistics.roomsLoaded == others.count + 1)
    }

    @Test func aStoreThatCannotBeReadAnswersUnavailableRatherThanAnEmptyRoom() throws {
        let call = try Call()
        call.harness.send(call.alice, ["type": "action", "room": "r", "action": "promote", "target": "u-bob"])
        let restarted = try call.restart()
        call.store.failLoads = RoomStoreError("disk gone")
        let alice = try restarted.connect("u-alice", rooms: ["r": .moderator])
        let answer = restarted.request(alice, ["type": "join", "room": "r"])
        #expect(answer.first?["code"] == "ERR_UNAVAILABLE")
        #expect(restarted.gateway.roomState("r") == nil)
        #expect(restarted.gateway.statistics.storeFailures == 1)
        call.store.failLoads = nil
        try restarted.join(alice, "r")
        #expect(restarted.gateway.roomState("r")?.operators.contains("u-bob") == true)
    }

    @Test func aStoreThatCannotBeReadIsCalledTheRoomStoreNotTheClustersSharedStore() throws {
        let call = try Call()
        let restarted = try call.restart()
        call.store.failLoads = RoomStoreError("disk gone")
        let alice = try restarted.connect("u-alice", rooms: ["r": .moderator])
        let answer = restarted.request(alice, ["type": "join", "room": "r"])
        #expect(answer.first?["code"] == "ERR_UNAVAILABLE")
        let message = answer.first?["message"]?.stringValue ?? ""
        #expect(!message.contains("cluster"), "\(message)")
        #expect(message.contains("store"), "\(message)")
    }

    @Test func meetingMessagesOutliveRosterChurnInTheHistory() throws {
        let call = try Call { $0.history.maximumEntries = 5 }
        let harness = call.harness
        harness.gateway.storeCheckpointInterval = 5
        harness.send(
            call.alice, ["type": "meeting", "group": "r", "sessionId": "s", "callType": "audio", "text": "hi"])
        let meetingSeq = harness.sequence("r")
        for index in 0..<20 {
            harness.send(call.bob, ["type": "state", "room": "r", "handRaised": .bool(index % 2 == 0)])
        }
        call.store.trim("r", through: UInt64(meetingSeq + 10), keeping: [.meeting])
        let answer = harness.request(
            call.bob, ["type": "query", "query": "history", "room": "r", "after": 0, "limit": 100])
        let events = answer.first?["events"]?.arrayValue ?? []
        #expect(events.first?["event"] == "meeting.message")
        #expect(events.first?["data"]?["text"] == "hi")
        #expect((answer.first?["firstRetained"]?.intValue ?? 0) > meetingSeq)

        // After a restart too, through the checkpoint the room is read back from.
        let restarted = try call.restart { $0.history.maximumEntries = 5 }
        let bob = try restarted.connect("u-bob", rooms: ["r": .participant])
        let again = restarted.request(
            bob, ["type": "query", "query": "history", "room": "r", "after": 0, "limit": 100])
        #expect(again.first?["events"]?.arrayValue?.first?["data"]?["text"] == "hi")
    }

    @Test func theAuditListsModeratorActionsWithActorTargetAndReason() throws {
        let call = try Call()
        call.harness.send(
            call.alice, ["type": "action", "room": "r", "action": "mute", "target": "u-bob", "reason": "noise"])
        call.harness.send(call.bob, ["type": "state", "room": "r", "handRaised": true])
        let actions = try call.harness.gateway.auditLog(room: "r", before: nil, limit: 10)
        #expect(actions.count == 1)
        #expect(actions.first?["actor"] == "u-alice")
        #expect(actions.first?["target"] == "u-bob")
        #expect(actions.first?["reason"] == "noise")
    }
}

extension StoreRestartTests {
    @Test func theAuditListsABanTwiceNewestFirstWithTheLeaveItCaused() throws {
        let call = try Call()
        call.harness.send(
            call.alice, ["type": "action", "room": "r", "action": "ban", "target": "u-bob", "reason": "spam"])
        let actions = try call.harness.gateway.auditLog(room: "r", before: nil, limit: 10)
        #expect(actions.map { $0["action"]?.stringValue } == ["participant.left", "moderation.banned"])
        #expect(actions.allSatisfy { $0["actor"] == "u-alice" && $0["target"] == "u-bob" && $0["reason"] == "spam" })
        #expect(actions.first?["seq"]?.intValue == (actions.last?["seq"]?.intValue ?? 0) + 1)
    }
}

extension RoomsNode {
    /// Feeds a message without the harness's commit.
    fileprivate func sessionReceivedText(_ id: SessionID, _ text: String) {
        Array(text.utf8).withUnsafeBytes { self.sessionReceived(id, text: $0) }
    }
}
