import ClusterCore
import Rooms
import Testing

/// The follower on its own, with a reader and a delegate that only record what they are asked and told.
@Suite struct SharedLogFollowerTests {
    /// Records the reads a follower asks for.
    final class Reads: SharedRoomReader {
        var loads: [(room: String, generation: Int)] = []
        var fetches: [(room: String, from: UInt64, generation: Int)] = []

        func readRoom(_ room: String, generation: Int) { self.loads.append((room, generation)) }
        func readEntries(of room: String, from sequence: UInt64, generation: Int) {
            self.fetches.append((room, sequence, generation))
        }
        func stopListening(to room: String) {}
    }

    /// Records the sequence numbers delivered and the loads reported.
    final class Delivered: SharedRoomLogDelegate {
        var sequences: [UInt64] = []
        var loads = 0

        func sharedLogLoaded(room: String, checkpoint: RoomReplica?, entries: [RoomLogEntry]) {
            self.loads += 1
            self.sequences = entries.map(\.sequence)
        }
        func sharedLogReloading(room: String) {}
        func sharedLogReloadFailed(room: String) {}
        func sharedLogReceived(room: String, entries: [RoomLogEntry]) { self.sequences += entries.map(\.sequence) }
        func sharedLogFailed(room: String) {}
        func sharedLogDisconnect(uid: String, reason: String?) {}
        func sharedLogLeaseLost() {}
        func replica(of room: String, at sequence: UInt64) -> RoomReplica? { nil }
    }

    static func entry(_ sequence: UInt64, epoch: String) -> SharedLogEntry {
        SharedLogEntry(
            RoomLogEntry(
                sequence: sequence, time: 0, actor: nil, reason: nil, event: .recordingChanged(isRecording: true)),
            epoch: epoch)
    }

    @Test func entriesThatComeEarlyWaitForTheGapToBeRead() {
        let reads = Reads()
        let delivered = Delivered()
        let follower = SharedLogFollower()
        follower.reader = reads
        follower.delegate = delivered
        follower.follow("r")
        follower.loaded("r", generation: 1, epoch: "e1", checkpoint: nil, entries: [Self.entry(1, epoch: "e1")])
        follower.received([Self.entry(4, epoch: "e1"), Self.entry(3, epoch: "e1")], in: "r")
        #expect(delivered.sequences == [1])
        #expect(reads.fetches.count == 1)
        #expect(reads.fetches.first?.from == 2)
        follower.fetched([Self.entry(2, epoch: "e1")], in: "r", generation: 1)
        #expect(delivered.sequences == [1, 2, 3, 4])
    }

    @Test func aReloadWhileAGapIsBeingReadLeavesTheRoomAbleToReadTheNextGap() {
        let reads = Reads()
        let delivered = Delivered()
        let follower = SharedLogFollower()
        follower.reader = reads
        follower.delegate = delivered
        follower.follow("r")
        follower.loaded("r", generation: 1, epoch: "e1", checkpoint: nil, entries: [Self.entry(1, epoch: "e1")])
        // The store is ahead: the follower reads the gap.
        follower.polled("r", sequence: 3, epoch: "e1")
        #expect(reads.fetches.count == 1)
        // The room's records start afresh before the read of the gap is answered: the room is loaded again, and
        // the late answer belongs to the load before.
        follower.received([Self.entry(1, epoch: "e2")], in: "r")
        #expect(reads.loads.map(\.generation) == [1, 2])
        follower.fetched([Self.entry(2, epoch: "e1")], in: "r", generation: 1)
        follower.loaded("r", generation: 2, epoch: "e2", checkpoint: nil, entries: [Self.entry(1, epoch: "e2")])
        #expect(delivered.loads == 2)
        follower.received([Self.entry(3, epoch: "e2")], in: "r")
        #expect(reads.fetches.count == 2)
        #expect(reads.fetches.last?.from == 2)
        #expect(reads.fetches.last?.generation == 2)
        #expect(follower.roomsToPoll == [])
    }

    @Test func aLogThatWentBackBehindWhatTheNodeAppliedWhenItAskedIsLoadedAgain() {
        let reads = Reads()
        let delivered = Delivered()
        let follower = SharedLogFollower()
        follower.reader = reads
        follower.delegate = delivered
        follower.follow("r")
        follower.loaded("r", generation: 1, epoch: "e1", checkpoint: nil, entries: [Self.entry(1, epoch: "e1")])
        follower.received((2...8).map { Self.entry($0, epoch: "e1") }, in: "r")
        #expect(follower.appliedSequence(of: "r") == 8)
        // A poll sent before the node applied entry 8 may answer 7: nothing went back.
        follower.polled("r", sequence: 7, epoch: "e1", appliedWhenAsked: 7)
        #expect(reads.loads.count == 1)
        // The log holds 5 entries though the node had applied 8 when it asked: a failover lost 6 to 8, and the
        // entries numbered 6 on from now on are others. The room is loaded again from what the log holds.
        follower.polled("r", sequence: 5, epoch: "e1", appliedWhenAsked: 8)
        #expect(reads.loads.map(\.generation) == [1, 2])
        follower.loaded(
            "r", generation: 2, epoch: "e1", checkpoint: nil, entries: (1...6).map { Self.entry($0, epoch: "e1") })
        #expect(delivered.loads == 2)
        #expect(delivered.sequences == [1, 2, 3, 4, 5, 6])
        follower.received([Self.entry(7, epoch: "e1")], in: "r")
        #expect(delivered.sequences.last == 7)
    }
}
