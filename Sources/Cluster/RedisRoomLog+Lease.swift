import ClusterCore
import EventIO
import JSONCoding
import Redis
import Rooms

/// What runs on time or on reconnect: loading the script, renewing this node's lease (which reaps dead nodes),
/// polling the followed rooms' last sequence numbers, and writing checkpoints.
extension RedisRoomLog {
    /// Loads the script after the command connection came up, then renews the lease and catches up every room.
    func loadScript() {
        self.commands.send(["SCRIPT", "LOAD", RoomLogScript.source]) { [weak self] result in
            guard let self else { return }
            guard case .success(let value) = result, let sha = Self.text(value) else {
                // For example "LOADING": a restarted Redis answers so until its data is read back. Try again
                // shortly while the connection stays up (a new connection loads the script anyway).
                self.log?("cannot load the shared log script yet: \(result)")
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

    /// Renews this node's lease, keeps its rooms' records alive and reaps nodes whose lease or grace ran out.
    func renewLease() {
        guard let sha = self.scriptSHA, self.commands.isConnected else { return }
        let history = self.rules.history
        var arguments = [
            "EVALSHA", sha, "0", "lease", self.configuration.keyPrefix, self.configuration.nodeID,
            String(self.configuration.leaseMilliseconds), String(self.rules.reconnectGraceMilliseconds),
            String(history.maximumEntries), String(history.maximumAgeMilliseconds),
            String(self.configuration.roomExpiryMilliseconds),
        ]
        arguments += self.follower.roomsToKeepAlive(
            now: Int64(EventLoop.monotonicNow() / 1_000_000), expiry: self.configuration.roomExpiryMilliseconds)
        self.commands.send(arguments) { [weak self] result in
            guard let self, case .success(.array(let values?)) = result, values.count == 2,
                case .integer(let reaped) = values[0], case .integer(let wasLive) = values[1]
            else { return }
            self.follower.leaseRenewed(reaped: Int(reaped), wasLive: wasLive != 0)
        }
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
        let roomIDs = self.follower.roomsToPoll
        var start = 0
        while start < roomIDs.count {
            let batch = Array(roomIDs[start..<min(start + 256, roomIDs.count)])
            start += batch.count
            var arguments = ["MGET"]
            for roomID in batch {
                let keys = self.keys.room(roomID)
                arguments.append(keys.sequence)
                arguments.append(keys.epoch)
            }
            self.commands.send(arguments) { [weak self] result in
                guard let self, case .success(.array(let values?)) = result, values.count == batch.count * 2 else {
                    return
                }
                for (index, roomID) in batch.enumerated() {
                    let sequence = Self.text(values[index * 2]).flatMap { UInt64($0) } ?? 0
                    self.follower.polled(roomID, sequence: sequence, epoch: Self.text(values[index * 2 + 1]))
                }
            }
        }
    }

    /// Writes a checkpoint (one interval behind the log) after this node's append crossed a multiple of the
    /// checkpoint interval; the script keeps it only if it is newer than the stored one and of the same epoch.
    func writeCheckpoint(_ roomID: String, _ replica: RoomReplica, epoch: String) {
        guard let sha = self.scriptSHA else { return }
        let arguments: [[UInt8]] = [
            Array("EVALSHA".utf8), Array(sha.utf8), Array("0".utf8), Array("checkpoint".utf8),
            Array(self.configuration.keyPrefix.utf8), Array(roomID.utf8), Array(epoch.utf8),
            Array(String(replica.state.sequence).utf8), JSONWriter.bytes(replica.checkpoint),
            Array(String(self.configuration.roomExpiryMilliseconds).utf8),
        ]
        self.commands.send(arguments) { [weak self] result in
            if case .success(.integer(1)) = result { self?.follower.statistics.checkpointsWritten += 1 }
        }
    }
}
