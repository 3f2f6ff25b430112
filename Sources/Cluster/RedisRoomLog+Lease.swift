import ClusterCore
import EventIO
import JSONCoding
import Redis
import Rooms

/// What runs on time or on reconnect: loading the script, renewing this node's lease (which reaps dead nodes),
/// polling the followed rooms' last sequence numbers, and writing checkpoints.
extension RedisRoomLog {
    /// Loads the script on every primary after the command connections came up, then renews the lease and catches
    /// up every room.
    func loadScript() {
        self.commands.sendToEachPrimary(["SCRIPT", "LOAD", RoomLogScript.source]) { [weak self] results in
            guard let self else { return }
            let digests = results.compactMap { _, result in (try? result.get()).flatMap(Self.text) }
            guard !results.isEmpty, digests.count == results.count, let sha = digests.first else {
                // For example "LOADING": a restarted Redis answers so until its data is read back. Try again
                // shortly while the connection stays up (a new connection loads the script anyway).
                self.log?("cannot load the shared log script yet: \(results.map { "\($0.0): \($0.1)" })")
                self.loop.scheduleTimer(afterNanoseconds: 100_000_000) { [weak self] in
                    guard let self, self.isRunning, self.commands.isConnected, self.scriptSHA == nil else { return }
                    self.loadScript()
                }
                return
            }
            self.scriptSHA = sha
            self.renewLease()
            self.follower.storeReconnected()
        }
    }

    func scheduleLease() {
        let interval = UInt64(max(1, self.configuration.leaseMilliseconds / 3)) * 1_000_000
        self.leaseTimer = self.loop.scheduleTimer(afterNanoseconds: interval) { [weak self] in
            guard let self, self.isRunning else { return }
            self.renewLease()
            self.scheduleLease()
        }
    }

    /// Renews this node's lease, keeps its rooms' records alive, prunes its set of rooms, drops idle rooms from the
    /// index, and reaps nodes whose lease or grace ran out: one call on the nodes' slot, then one call per room.
    func renewLease() {
        guard let sha = self.scriptSHA, self.commands.isConnected else { return }
        let configuration = self.configuration
        let expiry = String(configuration.roomExpiryMilliseconds)
        let lease = self.scriptCall(
            sha, key: self.keys.nodes, "lease",
            [
                configuration.nodeID, String(configuration.leaseMilliseconds),
                String(self.rules.reconnectGraceMilliseconds), expiry,
            ])
        self.commands.send(lease) { [weak self] result in
            guard let self, case .success(.array(let values?)) = result, values.count >= 2,
                case .integer(let wasLive) = values[0], case .array(let mine?) = values[1]
            else { return }
            if wasLive == 0 { self.roomsRegistered = [] }
            self.pruneRooms(mine.compactMap(Self.text), sha: sha)
            self.reap(Array(values[2...]), sha: sha) { reaped in
                self.follower.leaseRenewed(reaped: reaped, wasLive: wasLive != 0)
            }
        }
        let rooms = self.follower.roomsToKeepAlive(
            now: Int64(EventLoop.monotonicNow() / 1_000_000), expiry: configuration.roomExpiryMilliseconds)
        for roomID in rooms {
            self.commands.send(self.scriptCall(sha, key: self.keys.room(roomID).base, "touch", [roomID, expiry])) {
                _ in
            }
        }
        self.commands.send(self.scriptCall(sha, key: self.keys.rooms, "forget", [expiry])) { _ in }
    }

    /// Drops from this node's set the rooms where it holds no device any more (or whose records are gone), unless
    /// it took a device there meanwhile.
    private func pruneRooms(_ rooms: [String], sha: String) {
        for roomID in rooms {
            self.roomsRegistered.remove(roomID)
            let holds = self.scriptCall(
                sha, key: self.keys.room(roomID).base, "holds", [roomID, self.configuration.nodeID])
            self.commands.send(holds) { [weak self] result in
                guard let self, case .success(.integer(0)) = result, !self.roomsRegistered.contains(roomID) else {
                    return
                }
                self.commands.send(["SREM", self.keys.nodeRooms(self.configuration.nodeID), roomID]) { _ in }
            }
        }
    }

    /// Reaps the dead nodes a lease renewal handed out (`{node, phase, rooms}` each): a `reap` call per room, and
    /// after the `left` phase of a node, `reaped`. The completion gets how many devices were reaped.
    private func reap(_ work: [RESPValue], sha: String, completion: @escaping (Int) -> Void) {
        let history = self.rules.history
        var calls: [(dead: String, phase: String, rooms: [String])] = []
        for item in work {
            guard case .array(let fields?) = item, fields.count == 3, let dead = Self.text(fields[0]),
                let phase = Self.text(fields[1]), case .array(let rooms?) = fields[2]
            else { continue }
            calls.append((dead, phase, rooms.compactMap(Self.text)))
        }
        final class Tally {
            var waiting = 0
            var reaped = 0
            var failed: Set<String> = []
        }
        let tally = Tally()
        tally.waiting = calls.reduce(0) { $0 + $1.rooms.count } + 1
        let finished = { [weak self] in
            tally.waiting -= 1
            guard tally.waiting == 0, let self else { return }
            for call in calls where call.phase == "left" && !tally.failed.contains(call.dead) {
                self.commands.send(self.scriptCall(sha, key: self.keys.nodes, "reaped", [call.dead])) { _ in }
            }
            completion(tally.reaped)
        }
        for call in calls {
            for roomID in call.rooms {
                let arguments = self.scriptCall(
                    sha, key: self.keys.room(roomID).base, "reap",
                    [
                        roomID, call.dead, call.phase, String(history.maximumEntries),
                        String(history.maximumAgeMilliseconds), String(self.configuration.roomExpiryMilliseconds),
                    ])
                self.commands.send(arguments) { [weak self] result in
                    if case .success(.integer(let count)) = result {
                        tally.reaped += Int(count)
                        if count > 0 { self?.indexLater(roomID) }
                    } else {
                        tally.failed.insert(call.dead)
                    }
                    finished()
                }
            }
        }
        finished()
    }

    func schedulePoll() {
        let interval = UInt64(max(1, self.configuration.pollIntervalMilliseconds)) * 1_000_000
        self.pollTimer = self.loop.scheduleTimer(afterNanoseconds: interval) { [weak self] in
            guard let self, self.isRunning else { return }
            self.poll()
            self.schedulePoll()
        }
    }

    /// Compares each followed room's last sequence number and epoch with the shared log's.
    func poll() {
        guard self.commands.isConnected else { return }
        // One MGET per room: the keys of one room share a slot, those of two rooms need not.
        for roomID in self.follower.roomsToPoll {
            let keys = self.keys.room(roomID)
            let applied = self.follower.appliedSequence(of: roomID)
            self.commands.send(["MGET", keys.sequence, keys.epoch]) { [weak self] result in
                guard let self, case .success(.array(let values?)) = result, values.count == 2 else { return }
                let sequence = Self.text(values[0]).flatMap { UInt64($0) } ?? 0
                self.follower.polled(
                    roomID, sequence: sequence, epoch: Self.text(values[1]), appliedWhenAsked: applied)
            }
        }
    }

    /// Writes a checkpoint (one interval behind the log) after this node's append crossed a multiple of the
    /// checkpoint interval; the script keeps it only if it is newer than the stored one and of the same epoch.
    func writeCheckpoint(_ roomID: String, _ replica: RoomReplica, epoch: String) {
        guard let sha = self.scriptSHA else { return }
        var arguments = self.scriptCall(
            sha, key: self.keys.room(roomID).base, "checkpoint", [roomID, epoch, String(replica.state.sequence)]
        ).map { Array($0.utf8) }
        arguments.append(JSONWriter.bytes(replica.checkpoint))
        arguments.append(Array(String(self.configuration.roomExpiryMilliseconds).utf8))
        self.commands.send(arguments) { [weak self] result in
            if case .success(.integer(1)) = result { self?.follower.statistics.checkpointsWritten += 1 }
        }
    }
}
