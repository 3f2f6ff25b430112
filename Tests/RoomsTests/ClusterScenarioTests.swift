import JSONCoding
import RoomsTesting
import Testing

@testable import Rooms

/// Cluster mode without Redis: two gateways share one in-memory log (`InMemoryLogStore`, in RoomsTesting), with the
/// Redis script's semantics, and every command, reply and delivery runs when the test runs the store, so races,
/// lost deliveries, restarts and dead nodes happen exactly where the test puts them.
///
/// Run them alone with `swift test --filter ClusterScenarioTests`. The same behaviours against a real Redis and
/// real processes are in `Tests/interop/test_cluster.py`.
@Suite struct ClusterScenarioTests {
    @Test func twoGatewaysOnOneLogHandOutTheSameSequenceNumbersRostersAndChecksums() throws {
        let cluster = try ClusterHarness()
        let alice = try cluster.a.connect("u-alice", rooms: ["r": .moderator])
        let bob = try cluster.b.connect("u-bob", rooms: ["r": .participant])
        let watchA = try cluster.a.connect("u-watch-a", rooms: ["r": .viewer])
        let watchB = try cluster.b.connect("u-watch-b", rooms: ["r": .viewer])
        try cluster.a.join(watchA, "r", as: "observer")
        try cluster.b.join(watchB, "r", as: "observer")
        try cluster.a.join(alice, "r", device: "web")
        try cluster.b.join(bob, "r", device: "phone")
        // Requests from both nodes at the same moment: the store orders them.
        cluster.a.harness.send(alice, ["type": "state", "room": "r", "handRaised": true, "audioMuted": true])
        cluster.b.harness.send(bob, ["type": "state", "room": "r", "videoPaused": true])
        cluster.a.harness.send(alice, ["type": "action", "room": "r", "action": "spotlight", "target": "u-bob"])
        cluster.b.harness.send(bob, ["type": "speaker", "room": "r", "uid": "u-bob"])
        cluster.run()
        cluster.advance(milliseconds: 1_000)

        let sequence = cluster.store.sequence(of: "r")
        // Seven requests' entries, and the switch of the shown speaker once Bob's report held.
        #expect(sequence == 8)
        #expect(cluster.a.state("r")?.sequence == sequence)
        #expect(cluster.a.state("r") == cluster.b.state("r"))
        let seenA = cluster.a.harness.drain(watchA).events
        let seenB = cluster.b.harness.drain(watchB).events
        #expect(seenA == seenB)
        // Every entry but the speaker report itself, which subscribers do not get under the stable rule.
        #expect(seenA.compactMap { $0["seq"]?.intValue } == Array(1...6) + [8])
        #expect(seenA.last?["event"] == "participant.active_speaker_shown")
        // A fresh observer on each node gets the same snapshot: sequence number, roster and checksum.
        let lateA = try cluster.a.connect("u-late-a", rooms: ["r": .viewer])
        let lateB = try cluster.b.connect("u-late-b", rooms: ["r": .viewer])
        let snapshotA = try #require(try cluster.a.join(lateA, "r", as: "observer").first(type: "snapshot"))
        let snapshotB = try #require(try cluster.b.join(lateB, "r", as: "observer").first(type: "snapshot"))
        #expect(snapshotA["seq"] == snapshotB["seq"])
        #expect(snapshotA["roster"] == snapshotB["roster"])
        #expect(snapshotA["checksum"] != nil)
        #expect(snapshotA["checksum"] == snapshotB["checksum"])
    }

    @Test func bothNodesAnswerTheAttendanceWithTheSameFiguresWhereverTheParticipantsAre() throws {
        let cluster = try ClusterHarness()
        let alice = try cluster.a.connect("u-alice", rooms: ["r": .moderator])
        let bob = try cluster.b.connect("u-bob", rooms: ["r": .participant])
        let carol = try cluster.b.connect("u-carol", rooms: ["r": .moderator])
        try cluster.a.join(alice, "r", device: "web")
        try cluster.b.join(bob, "r", device: "phone")
        try cluster.b.join(carol, "r", device: "web")
        cluster.b.harness.send(bob, ["type": "state", "room": "r", "handRaised": true, "videoPaused": true])
        cluster.b.harness.send(bob, ["type": "speaker", "room": "r", "uid": "u-bob"])
        cluster.run()
        cluster.advance(milliseconds: 30_000)
        cluster.b.harness.send(bob, ["type": "leave", "room": "r"])
        cluster.run()
        cluster.advance(milliseconds: 10_000)

        let query: JSONValue = ["type": "query", "id": 4, "query": "attendance", "room": "r"]
        let fromA = try #require(cluster.a.request(alice, query).first)
        let fromB = try #require(cluster.b.request(carol, query).first)
        #expect(fromA["participants"] != nil)
        #expect(fromA["participants"] == fromB["participants"])
        #expect(fromA["asOf"] == fromB["asOf"])
        let bobsRecord = try #require(fromA["participants"]?.arrayValue?.first { $0["uid"] == "u-bob" })
        #expect(bobsRecord["handsRaised"] == 1)
        #expect((bobsRecord["speakingMs"]?.intValue ?? 0) > 25_000)
        let joined = try #require(bobsRecord["firstJoinedAt"]?.intValue)
        let left = try #require(bobsRecord["lastLeftAt"]?.intValue)
        #expect(bobsRecord["inCallMs"]?.intValue == left - joined)
    }

    @Test func aLostDeliveryIsReadBackFromTheStoreAndArrivesOnceInOrder() throws {
        let cluster = try ClusterHarness()
        let alice = try cluster.a.connect("u-alice", rooms: ["r": .participant])
        let watcher = try cluster.b.connect("u-watch", rooms: ["r": .viewer])
        try cluster.b.join(watcher, "r", as: "observer")
        try cluster.a.join(alice, "r")
        _ = cluster.b.harness.drain(watcher)
        cluster.store.dropDeliveries(to: "b")
        cluster.a.request(alice, ["type": "state", "room": "r", "handRaised": true])
        cluster.a.request(alice, ["type": "state", "room": "r", "audioMuted": true])
        cluster.advance(milliseconds: 100)

        let seen = cluster.b.harness.drain(watcher)
        #expect(seen.events.eventNames == ["participant.hand_raised", "participant.audio_muted"])
        #expect(seen.events.compactMap { $0["seq"]?.intValue } == [2, 3])
        #expect(seen.first(type: "snapshot") == nil)
        #expect(cluster.b.log.statistics.gapsFilled == 1)
        #expect(cluster.b.log.statistics.reloads == 0)
        #expect(cluster.b.state("r") == cluster.a.state("r"))
    }

    @Test func aGapTheStoreTrimmedPastReloadsTheNodeAndResyncsItsSubscribers() throws {
        let cluster = try ClusterHarness(checkpointInterval: 2) { $0.history.maximumEntries = 4 }
        let alice = try cluster.a.connect("u-alice", rooms: ["r": .participant])
        let watcher = try cluster.b.connect("u-watch", rooms: ["r": .viewer])
        try cluster.b.join(watcher, "r", as: "observer")
        try cluster.a.join(alice, "r")
        _ = cluster.b.harness.drain(watcher)
        // Node B hears nothing of the next ten changes, and the store trims its log past them meanwhile.
        cluster.store.dropDeliveries(to: "b", count: 10)
        for index in 0..<10 {
            cluster.a.request(alice, ["type": "state", "room": "r", "handRaised": .bool(index % 2 == 0)])
        }
        #expect(cluster.store.retainedSequences(of: "r").first.map { $0 > 2 } == true)
        cluster.advance(milliseconds: 1_000)

        let resync = try #require(cluster.b.harness.drain(watcher).first(type: "snapshot"))
        #expect(resync["resync"] == true)
        #expect(resync["seq"]?.intValue == 11)
        #expect(cluster.b.log.statistics.reloads == 1)
        #expect(cluster.b.gateway.statistics.resyncSnapshots == 1)
        #expect(cluster.b.state("r") == cluster.a.state("r"))
    }

    @Test func aStoreRestartedEmptyStartsTheRoomAfreshUnderANewEpochOnEveryNode() throws {
        let cluster = try ClusterHarness()
        let alice = try cluster.a.connect("u-alice", rooms: ["r": .participant])
        let watcher = try cluster.b.connect("u-watch", rooms: ["r": .viewer])
        try cluster.b.join(watcher, "r", as: "observer")
        try cluster.a.join(alice, "r")
        cluster.a.request(alice, ["type": "state", "room": "r", "handRaised": true])
        let oldEpoch = try #require(cluster.store.epoch(of: "r"))
        _ = cluster.b.harness.drain(watcher)

        cluster.store.restart(keepingData: false)
        cluster.run()
        // The nodes' leases went with the data: node A sends its participant back to rejoin. Her connection's
        // close is not recorded: the store no longer knows node A holds her device.
        #expect(cluster.a.harness.closeCode(alice) == 1012)
        cluster.a.harness.close(alice, cleanly: true)
        cluster.run()
        #expect(cluster.store.sequence(of: "r") == 0)
        // Each node finds the room's records gone when it compares, and starts the room again from the store.
        cluster.advance(milliseconds: 1_000)
        let resync = try #require(cluster.b.harness.drain(watcher).first(type: "snapshot"))
        #expect(resync["resync"] == true)
        #expect(resync["seq"]?.intValue == 0)
        #expect(cluster.a.log.statistics.reloads == 1)
        #expect(cluster.b.log.statistics.reloads == 1)
        #expect(cluster.a.state("r")?.participants.isEmpty == true)

        let again = try cluster.b.connect("u-alice", rooms: ["r": .participant])
        try cluster.b.join(again, "r")
        cluster.advance(milliseconds: 100)
        #expect(cluster.store.sequence(of: "r") == 1)
        #expect(cluster.store.epoch(of: "r").map { $0 != oldEpoch } == true)
        let joined = cluster.b.harness.drain(watcher).events
        #expect(joined.eventNames == ["participant.joined"])
        #expect(joined.first?["seq"]?.intValue == 1)
        #expect(cluster.a.state("r") == cluster.b.state("r"))
        #expect(cluster.a.state("r")?.participants["u-alice"]?.isJoined == true)
        #expect(cluster.store.seatHolders(in: "r").participants == ["u-alice"])
    }

    @Test func twoNodesRacingForTheLastSeatAdmitExactlyOne() throws {
        let cluster = try ClusterHarness { $0.roomCapacity = 1 }
        let alice = try cluster.a.connect("u-alice", rooms: ["r": .participant])
        let bob = try cluster.b.connect("u-bob", rooms: ["r": .participant])
        cluster.a.request(alice, ["type": "ping"])
        cluster.b.request(bob, ["type": "ping"])
        // Both joins leave their node before either is answered.
        cluster.a.harness.send(alice, ClusterHarness.Node.joinMessage("r"))
        cluster.b.harness.send(bob, ClusterHarness.Node.joinMessage("r"))
        cluster.run()

        let answers = [cluster.a.harness.drain(alice), cluster.b.harness.drain(bob)]
        let admitted = answers.filter { $0.first?["type"] == "ack" }
        let refused = answers.flatMap(\.errorCodes)
        #expect(admitted.count == 1)
        #expect(refused == ["ERR_CALL_FULL"])
        #expect(cluster.store.seatHolders(in: "r").participants.count == 1)
        #expect(cluster.a.state("r")?.joinedParticipants.count == 1)
        #expect(cluster.a.state("r") == cluster.b.state("r"))
    }

    @Test func aDeadNodesDevicesLeaveAfterTheGracePeriodThroughALiveNode() throws {
        let cluster = try ClusterHarness(leaseMilliseconds: 3_000) { $0.reconnectGraceMilliseconds = 2_000 }
        let alice = try cluster.a.connect("u-alice", rooms: ["r": .participant])
        let watcher = try cluster.b.connect("u-watch", rooms: ["r": .viewer])
        try cluster.b.join(watcher, "r", as: "observer")
        try cluster.a.join(alice, "r", device: "web")
        _ = cluster.b.harness.drain(watcher)

        cluster.a.log.stop()
        cluster.advance(milliseconds: 3_000)
        // Node B renewed its lease past node A's end: node A's device is reconnecting, still in the call.
        #expect(cluster.b.harness.drain(watcher).events.eventNames == ["session.connection_lost"])
        #expect(cluster.b.state("r")?.participants["u-alice"]?.isJoined == true)
        #expect(cluster.store.seatHolders(in: "r").participants == ["u-alice"])

        cluster.advance(milliseconds: 1_500)
        #expect(cluster.b.harness.drain(watcher).events.isEmpty)
        cluster.advance(milliseconds: 1_000)
        let left = cluster.b.harness.drain(watcher).events
        #expect(left.eventNames == ["session.timed_out"])
        #expect(cluster.b.state("r")?.participants["u-alice"]?.isJoined != true)
        #expect(cluster.store.seatHolders(in: "r").participants.isEmpty)
        #expect(cluster.b.log.statistics.devicesReaped == 2)
        #expect(!cluster.store.isLive("a"))
    }

    @Test func aNodeWhoseLeaseLapsedSendsItsParticipantsBackToRejoin() throws {
        let cluster = try ClusterHarness()
        let alice = try cluster.a.connect("u-alice", rooms: ["r": .participant])
        let watcher = try cluster.a.connect("u-watch", rooms: ["r": .viewer])
        try cluster.a.join(alice, "r", device: "web")
        try cluster.a.join(watcher, "r", as: "observer")

        cluster.store.lapseLease(of: "a")
        cluster.b.log.renewLease()
        cluster.run()
        #expect(!cluster.store.isLive("a"))
        #expect(cluster.a.harness.closeCode(alice) == nil)
        cluster.a.log.renewLease()
        cluster.run()
        #expect(cluster.a.harness.closeCode(alice) == 1012)
        #expect(cluster.a.harness.closeCode(watcher) == nil)
        #expect(cluster.a.log.statistics.leasesLost == 1)
        #expect(cluster.store.isLive("a"))
    }

    @Test func aClientThatMovesToTheOtherNodeResumesWithNothingMissed() throws {
        let cluster = try ClusterHarness(checkpointInterval: 4)
        let alice = try cluster.a.connect("u-alice", rooms: ["r": .moderator])
        let bob = try cluster.a.connect("u-bob", rooms: ["r": .participant])
        try cluster.a.join(alice, "r", device: "web")
        try cluster.a.join(bob, "r", device: "phone")
        for flag in ["handRaised", "audioMuted", "videoPaused", "presenting"] {
            cluster.a.request(bob, ["type": "state", "room": "r", .init(flag): true])
        }
        cluster.advance(milliseconds: 100)
        _ = cluster.a.harness.drainWithPatches(bob)
        let lastSeen = Int64(cluster.store.sequence(of: "r"))
        #expect(lastSeen == 6)

        cluster.a.harness.close(bob, cleanly: false)
        cluster.a.request(alice, ["type": "state", "room": "r", "audioMuted": true])
        cluster.a.request(alice, ["type": "action", "room": "r", "action": "spotlight", "target": "u-alice"])
        cluster.a.request(alice, ["type": "state", "room": "r", "handRaised": true])
        // Past entry 8 node A wrote the checkpoint one interval behind: the room as it was at 4, before Bob's
        // last sequence number, so that whoever loads the room can rebuild his view as he last saw it.
        #expect(cluster.store.checkpointSequence(of: "r") == 4)
        // Bob comes back through node B, which has not held the room before: it loads it from the store.
        let again = try cluster.b.connect("u-bob", rooms: ["r": .participant])
        let answer = try cluster.b.join(again, "r", device: "phone", resume: lastSeen)

        let resumed = try #require(answer.first(type: "resumed"))
        #expect(resumed["recovered"] == true)
        #expect(answer.first(type: "snapshot") == nil)
        let replayed = answer.events.filter { $0["recovered"] == true }
        #expect(
            replayed.eventNames == [
                "session.connection_lost", "participant.audio_muted", "participant.pinned",
                "participant.hand_raised", "session.connection_restored",
            ])
        #expect(replayed.first?["seq"]?.intValue == lastSeen + 1)
        #expect(cluster.b.gateway.statistics.resumesRecovered == 1)
        #expect(cluster.b.state("r") == cluster.a.state("r"))
    }

    @Test func aDeviceRestoredThroughAnotherNodeIsNotTakenAwayByTheNodeItLeft() throws {
        let cluster = try ClusterHarness { $0.reconnectGraceMilliseconds = 2_000 }
        let alice = try cluster.a.connect("u-alice", rooms: ["r": .participant])
        let watcher = try cluster.b.connect("u-watch", rooms: ["r": .viewer])
        try cluster.b.join(watcher, "r", as: "observer")
        try cluster.a.join(alice, "r", device: "web")
        cluster.a.harness.close(alice, cleanly: false)
        cluster.run()
        #expect(cluster.store.owner(of: "u-alice", device: "web", in: "r") == "a")

        // Alice comes back through node B; node A does not hear of it before her grace period there ends.
        cluster.store.dropDeliveries(to: "a")
        let again = try cluster.b.connect("u-alice", rooms: ["r": .participant])
        try cluster.b.join(again, "r", device: "web")
        #expect(cluster.store.owner(of: "u-alice", device: "web", in: "r") == "b")
        let sequence = cluster.store.sequence(of: "r")
        cluster.clock.advance(milliseconds: 2_000)
        cluster.a.gateway.tick()
        #expect(cluster.store.pendingWork == 1)  // node A's leave for the device it lost
        cluster.run()
        #expect(cluster.store.sequence(of: "r") == sequence)

        cluster.advance(milliseconds: 1_000)
        #expect(!cluster.b.harness.drain(watcher).eventNames.contains("session.timed_out"))
        #expect(cluster.a.state("r") == cluster.b.state("r"))
        let device = cluster.a.state("r")?.participants["u-alice"]?.devices.first { $0.deviceID == "web" }
        #expect(device?.isConnected == true)
        #expect(cluster.store.seatHolders(in: "r").participants == ["u-alice"])
    }

    @Test func theServerAPIsDisconnectReachesTheUsersConnectionsOnEveryNode() throws {
        let cluster = try ClusterHarness()
        let onA = try cluster.a.connect("u-alice", rooms: ["r": .participant])
        let onB = try cluster.b.connect("u-alice", rooms: ["r": .participant])
        let other = try cluster.b.connect("u-bob", rooms: ["r": .participant])
        _ = cluster.a.gateway.apiDisconnect(uid: "u-alice", reason: "policy")
        cluster.run()
        #expect(cluster.a.harness.closeCode(onA) == GatewayCloseCode.disconnected.rawValue)
        #expect(cluster.b.harness.closeCode(onB) == GatewayCloseCode.disconnected.rawValue)
        #expect(cluster.b.harness.closeCode(other) == nil)
    }

    @Test func anUnreachableStoreFailsChangesAndTheNodesCatchUpOnceItIsBack() throws {
        let cluster = try ClusterHarness()
        let alice = try cluster.a.connect("u-alice", rooms: ["r": .participant])
        let watcher = try cluster.b.connect("u-watch", rooms: ["r": .viewer])
        try cluster.b.join(watcher, "r", as: "observer")
        try cluster.a.join(alice, "r")
        _ = cluster.b.harness.drain(watcher)

        cluster.store.makeUnavailable()
        let refused = cluster.a.request(alice, ["type": "state", "room": "r", "handRaised": true])
        #expect(refused.errorCodes == ["ERR_UNAVAILABLE"])
        #expect(cluster.a.log.statistics.appendFailures == 1)
        cluster.store.makeAvailable()
        cluster.run()
        let accepted = cluster.a.request(alice, ["type": "state", "room": "r", "handRaised": true])
        #expect(accepted.first(type: "ack") != nil)
        cluster.advance(milliseconds: 100)
        #expect(cluster.b.harness.drain(watcher).events.eventNames == ["participant.hand_raised"])
        #expect(cluster.a.state("r") == cluster.b.state("r"))
    }
}

/// Who sees what, and how the shown speaker and refreshed tokens behave, when the room lives on several nodes.
@Suite struct ClusterVisibilityTests {
    @Test func aHiddenRecorderOnOneNodeReachesNoSubscriberOfTheOther() throws {
        let cluster = try ClusterHarness()
        let ann = try cluster.a.connect("u-ann", rooms: ["r": .participant])
        try cluster.a.join(ann, "r")
        let watcher = try cluster.b.connect("u-watch", rooms: ["r": .viewer])
        try cluster.b.join(watcher, "r", as: "observer")
        _ = cluster.b.harness.drain(watcher)
        let recorder = try cluster.a.harness.connect(
            "b-rec", rooms: ["r": .bot], caps: ["hidden", "record", "speaker"])
        try cluster.a.join(recorder, "r")
        cluster.a.request(recorder, ["type": "state", "room": "r", "handRaised": true])
        cluster.a.request(recorder, ["type": "speaker", "room": "r", "uid": "b-rec"])
        cluster.a.request(recorder, ["type": "media", "room": "r", "recording": true])
        cluster.advance(milliseconds: 1_000)

        let seen = cluster.b.harness.drainWithPatches(watcher)
        #expect(!seen.contains { JSONWriter.string($0).contains("b-rec") }, "\(seen)")
        #expect(seen.events.eventNames == ["media.recording_started"])
        #expect(cluster.b.gateway.renderedView(room: "r", spec: .all)?["room"]?["participantCount"] == 1)
        #expect(cluster.b.gateway.renderedView(room: "r", spec: .all)?["room"]?["activeSpeaker"] == nil)
        var listed: Result<RoomListingPage, GatewayError>?
        cluster.b.gateway.apiRooms(after: nil, limit: 10) { listed = $0 }
        cluster.run()
        let rooms = try #require(try listed?.get().entries)
        #expect(rooms.first?.participants == 1)
        #expect(cluster.a.state("r") == cluster.b.state("r"))
    }

    @Test func theShownSpeakerLeavingOnOneNodeIsLoggedOnceForEveryNode() throws {
        let cluster = try ClusterHarness()
        let alice = try cluster.a.connect("u-alice", rooms: ["r": .participant])
        try cluster.a.join(alice, "r")
        let bob = try cluster.b.connect("u-bob", rooms: ["r": .participant])
        try cluster.b.join(bob, "r")
        let watchA = try cluster.a.connect("u-watch-a", rooms: ["r": .viewer])
        try cluster.a.join(watchA, "r", as: "observer")
        let watchB = try cluster.b.connect("u-watch-b", rooms: ["r": .viewer])
        try cluster.b.join(watchB, "r", as: "observer")
        cluster.b.request(bob, ["type": "speaker", "room": "r", "uid": "u-bob"])
        cluster.advance(milliseconds: 1_000)
        cluster.a.request(alice, ["type": "speaker", "room": "r", "uid": "u-alice"])
        cluster.advance(milliseconds: 1_000)
        _ = cluster.a.harness.drain(watchA)
        _ = cluster.b.harness.drain(watchB)

        cluster.a.request(alice, ["type": "leave", "room": "r"])
        cluster.advance(milliseconds: 500)
        for (node, watcher) in [(cluster.a, watchA), (cluster.b, watchB)] {
            let events = node.harness.drain(watcher).events
            #expect(events.eventNames == ["participant.left", "participant.active_speaker_shown"], "\(node.id)")
            #expect(events.last?["data"]?["uid"] == "u-bob")
            #expect(node.gateway.renderedView(room: "r", spec: .all)?["room"]?["activeSpeaker"] == "u-bob")
        }
        #expect(cluster.a.state("r") == cluster.b.state("r"))
    }

    @Test func aRefreshThatDropsTheRoomTakesTheDeviceOutOnEveryNode() throws {
        let cluster = try ClusterHarness()
        let alice = try cluster.a.connect("u-alice", rooms: ["r": .moderator, "kept": .participant])
        try cluster.a.join(alice, "r")
        let watcher = try cluster.b.connect("u-watch", rooms: ["r": .viewer])
        try cluster.b.join(watcher, "r", as: "observer")
        _ = cluster.b.harness.drain(watcher)
        let token = try cluster.a.harness.token("u-alice", rooms: ["kept": .participant])
        let answer = cluster.a.request(alice, ["type": "auth", "id": 1, "token": .string(token)])
        #expect(answer.first(type: "unsubscribed")?["reason"] == "access_revoked")
        cluster.advance(milliseconds: 100)
        let left = cluster.b.harness.drain(watcher).events(named: "participant.left")
        #expect(left.first?["data"]?["reason"] == "access_revoked")
        #expect(cluster.b.state("r")?.participants["u-alice"]?.isJoined == false)
        #expect(cluster.store.seatHolders(in: "r").reserved.isEmpty)
        #expect(cluster.a.state("r") == cluster.b.state("r"))
    }
}
