import ClusterCore
import JSONCoding
import Rooms

/// One node's shared log in an in-memory cluster: give each gateway of a test its own, all on one
/// `InMemoryLogStore`, and the gateways behave as nodes of a cluster sharing Redis, deterministically.
///
/// It follows rooms with the same `SharedLogFollower` as the Redis shared log, so deliveries in order, gaps,
/// reloads, epochs and checkpoints behave as they do there. What the timers of the Redis log do (renewing the
/// lease, comparing the followed rooms with the store) the test does by calling `renewLease()` and `poll()`; every
/// command and reply runs when the test runs the store.
public final class InMemorySharedRoomLog: FollowingSharedLog {
    /// This node's id in the store.
    public let nodeID: String
    /// The store all nodes share.
    public let store: InMemoryLogStore
    /// Seats, grace period and history, as every node applies them.
    public let rules: SharedRoomRules
    /// A node that has not renewed its lease for this long is dead (`cluster.lease_ms`).
    public var leaseMilliseconds: Int64 = 5_000
    /// A checkpoint every this many entries (`cluster.checkpoint_interval`).
    public var checkpointInterval: UInt64 = 100
    /// Records of a room nobody uses expire after this long; 0 for never (`cluster.room_expiry_ms`).
    public var roomExpiryMilliseconds: Int64 = 86_400_000
    /// Follows this node's rooms: delivery in order, gaps, reloads.
    public let follower = SharedLogFollower()
    /// Whether the node runs: between `start()` and `stop()` it renews its lease and gets deliveries.
    public private(set) var isRunning = false

    /// - Parameters:
    ///   - store: the store the cluster shares.
    ///   - nodeID: this node's id, unique in the store.
    ///   - rules: the rooms' capacity, reserved seats, grace period and history (`SharedRoomRules(configuration)`).
    public init(store: InMemoryLogStore, nodeID: String, rules: SharedRoomRules) {
        self.store = store
        self.nodeID = nodeID
        self.rules = rules
        self.follower.reader = self
        store.register(self)
    }

    /// Whether the node runs and the store can be reached.
    public var isAvailable: Bool { self.isRunning && self.store.isAvailable }

    /// Starts the node: it takes a lease (in the next run of the store) and gets deliveries.
    public func start() {
        guard !self.isRunning else { return }
        self.isRunning = true
        self.renewLease()
    }

    /// Stops the node, as a process that died: no more renewals, deliveries or commands. Its lease runs out.
    public func stop() {
        self.isRunning = false
    }

    // MARK: SharedRoomLog

    /// Follows a room: listens for its entries, then loads it (`SharedRoomLog.follow`).
    ///
    /// - Parameter roomID: the room.
    public func follow(_ roomID: String) {
        guard !self.follower.isFollowing(roomID) else { return }
        self.store.subscribe(self.nodeID, to: roomID)
        self.follower.follow(roomID)
    }

    /// Stops following a room (`SharedRoomLog.unfollow`).
    ///
    /// - Parameter roomID: the room.
    public func unfollow(_ roomID: String) {
        guard self.follower.unfollow(roomID) else { return }
        self.store.unsubscribe(self.nodeID, from: roomID)
    }

    /// Appends events through the store's atomic check-and-append (`SharedRoomLog.append`).
    ///
    /// - Parameters:
    ///   - proposal: the events and their conditions.
    ///   - completion: the last sequence number, or the failure; on the gateway's thread, never inside the call.
    public func append(_ proposal: LogProposal, completion: @escaping (Result<UInt64, LogAppendFailure>) -> Void) {
        let records = proposal.events.map {
            InMemoryLogStore.ProposedRecord(proposed: $0, claim: SeatClaim($0.event, rules: self.rules))
        }
        self.command { [unowned self] in
            let outcome = self.store.append(
                in: proposal.room, node: self.nodeID, expected: proposal.expectedSequence, records: records,
                history: self.rules.history, expiry: self.roomExpiryMilliseconds)
            let checkpoint = self.follower.appendAnswered(
                outcome, in: proposal.room, checkpointInterval: self.checkpointInterval, completion: completion)
            if let (replica, epoch) = checkpoint { self.writeCheckpoint(proposal.room, replica, epoch: epoch) }
        } failed: { [unowned self] in
            self.follower.appendFailed(completion: completion)
        }
    }

    /// Asks every other node to close a user's connections (`SharedRoomLog.disconnect`).
    ///
    /// - Parameters:
    ///   - uid: the user.
    ///   - reason: the close reason.
    public func disconnect(uid: String, reason: String?) {
        self.command { [unowned self] in
            self.store.publishDisconnect(uid: uid, reason: reason, from: self.nodeID)
        } failed: { [unowned self] in
            self.log?("cannot ask the other nodes to disconnect a user: the store is unreachable")
        }
    }

    /// Carries a signal to the other nodes that follow the room (`SharedRoomLog.publishSignal`); lost when the
    /// store is unreachable, as a Redis publish is.
    ///
    /// - Parameters:
    ///   - signal: the signal.
    ///   - room: the room.
    public func publishSignal(_ signal: RoomSignal, room: String) {
        self.command { [unowned self] in
            self.store.publishSignal(signal, in: room, from: self.nodeID)
        } failed: {
        }
    }

    /// Lists the store's rooms in id order, as the Redis log's scan does (`SharedRoomLog.listRooms`).
    ///
    /// - Parameters:
    ///   - after: only rooms after this id.
    ///   - limit: the most rooms.
    ///   - completion: the rooms, or `ERR_UNAVAILABLE`.
    public func listRooms(
        after: String?, limit: Int, completion: @escaping (Result<[SharedRoomSummary], GatewayError>) -> Void
    ) {
        self.command { [unowned self] in
            let ids = self.store.rooms.keys.filter { $0 > (after ?? "") }.sorted()
            var found: [SharedRoomSummary] = []
            for id in ids where found.count < limit {
                guard let records = self.store.records(id), records.sequence > 0 else { continue }
                let users = (records.seats[.participant]?.count ?? 0) + (records.seats[.reserved]?.count ?? 0)
                found.append(SharedRoomSummary(room: id, sequence: records.sequence, participants: users))
            }
            completion(.success(found))
        } failed: {
            completion(.failure(.unavailable))
        }
    }

    // MARK: What the timers of a node do

    /// Renews this node's lease, keeps its rooms' records alive and reaps nodes whose lease or grace period ran
    /// out (the Redis log does this every third of the lease).
    public func renewLease() {
        guard self.isRunning else { return }
        let roomIDs = self.follower.roomsToKeepAlive(now: self.store.clock.now, expiry: self.roomExpiryMilliseconds)
        self.command { [unowned self] in
            let (reaped, wasLive) = self.store.renewLease(
                of: self.nodeID, lease: self.leaseMilliseconds, grace: self.rules.reconnectGraceMilliseconds,
                history: self.rules.history, expiry: self.roomExpiryMilliseconds, keepingAlive: roomIDs)
            self.follower.leaseRenewed(reaped: reaped, wasLive: wasLive)
        } failed: {
        }
    }

    /// Compares each followed room's last sequence number and epoch with the store's (the Redis log does this
    /// every second): a room behind reads what it missed, a room whose records started afresh is loaded again.
    public func poll() {
        for roomID in self.follower.roomsToPoll {
            let applied = self.follower.appliedSequence(of: roomID)
            self.command { [unowned self] in
                let records = self.store.records(roomID)
                self.follower.polled(
                    roomID, sequence: records?.sequence ?? 0, epoch: records?.epoch, appliedWhenAsked: applied)
            } failed: {
            }
        }
    }

    // MARK: From the store

    /// The store can be reached again (or restarted): renews the lease, then catches every room up.
    func storeReconnected() {
        guard self.isRunning else { return }
        self.renewLease()
        self.follower.storeReconnected()
        self.follower.subscriptionRestored()
    }

    /// A published entry of a room this node listens to.
    func received(_ bytes: [UInt8], in roomID: String) {
        guard self.isRunning, let entry = SharedLogEntry(bytes: bytes) else { return }
        self.follower.received([entry], in: roomID)
    }

    /// Queues a command of this node (which fails while the node is stopped).
    private func command(_ execute: @escaping () -> Void, failed: @escaping () -> Void) {
        guard self.isRunning else {
            self.store.enqueue(failed)
            return
        }
        self.store.command(execute, failed: failed)
    }

    private func writeCheckpoint(_ roomID: String, _ replica: RoomReplica, epoch: String) {
        let checkpoint = SharedCheckpoint(epoch: epoch, data: JSONWriter.bytes(replica.checkpoint))
        let sequence = replica.state.sequence
        self.command { [unowned self] in
            if self.store.writeCheckpoint(checkpoint, at: sequence, in: roomID, expiry: self.roomExpiryMilliseconds) {
                self.follower.statistics.checkpointsWritten += 1
            }
        } failed: {
        }
    }
}

extension InMemorySharedRoomLog: SharedRoomReader {
    /// Reads a room's checkpoint, epoch and retained log for the follower (`SharedRoomReader.readRoom`).
    ///
    /// - Parameters:
    ///   - roomID: the room.
    ///   - generation: handed back with the answer.
    public func readRoom(_ roomID: String, generation: Int) {
        self.command { [unowned self] in
            let snapshot = self.store.snapshot(of: roomID)
            self.follower.loaded(
                roomID, generation: generation, epoch: snapshot.epoch, checkpoint: snapshot.checkpoint,
                entries: snapshot.entries)
        } failed: { [unowned self] in
            self.follower.loadFailed(roomID, generation: generation, error: "the store is unreachable")
        }
    }

    /// Reads the entries of a gap for the follower (`SharedRoomReader.readEntries`).
    ///
    /// - Parameters:
    ///   - roomID: the room.
    ///   - sequence: the first sequence number wanted.
    ///   - generation: handed back with the answer.
    public func readEntries(of roomID: String, from sequence: UInt64, generation: Int) {
        self.command { [unowned self] in
            let entries = self.store.entries(of: roomID, from: sequence, count: SharedLogFollower.fetchLimit)
            self.follower.fetched(entries, in: roomID, generation: generation)
        } failed: { [unowned self] in
            self.follower.fetched(nil, in: roomID, generation: generation)
        }
    }

    /// Stops listening to a room the follower gave up on (`SharedRoomReader.stopListening`).
    ///
    /// - Parameter roomID: the room.
    public func stopListening(to roomID: String) {
        self.store.unsubscribe(self.nodeID, from: roomID)
    }
}

@available(*, unavailable) extension InMemorySharedRoomLog: Sendable {}
