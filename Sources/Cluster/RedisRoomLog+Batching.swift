import ClusterCore
import EventIO
import JSONCoding
import Redis
import Rooms

extension GatewayError {
    /// An append the room's primary took, which fewer replicas than `cluster.replica_acks` confirmed in time: it is
    /// in the log (and delivered), but would be lost if the primary failed before a replica had it.
    ///
    /// - Parameters:
    ///   - confirmed: the replicas that confirmed it.
    ///   - wanted: the replicas asked for.
    ///   - milliseconds: how long the append waited for them.
    static func notReplicated(_ confirmed: Int, of wanted: Int, within milliseconds: Int64) -> GatewayError {
        GatewayError(
            .unavailable,
            "the change is in the room's log, but \(confirmed) of \(wanted) replicas confirmed it within "
                + "\(milliseconds) ms, so a failover may lose it; read the room before sending it again")
    }
}

/// One room's appends on their way to Redis: at most one script call in flight per room, and what arrives
/// meanwhile (or within the loop iteration that sends it) waits to go in the next call.
final class RoomAppendQueue {
    /// An append and its completion.
    typealias Waiting = (proposal: LogProposal, completion: (Result<UInt64, LogAppendFailure>) -> Void)
    /// Appends not sent yet, in arrival order.
    var waiting: [Waiting] = []
    /// Whether a call of this room is on its way.
    var inFlight = false
    /// Whether a send is scheduled for the end of the loop iteration.
    var scheduled = false
}

/// Batching of appends: the appends of one room go in one script call (up to `maximumBatch` of them), one call per
/// room in flight, calls of different rooms pipelined on the command connection. Each proposal in a call is checked
/// and appended in turn, against the room as the proposals before it left it, so the outcome is the one separate
/// calls in the same order would have had; each completion runs after its entries are in Redis and delivered.
extension RedisRoomLog {
    /// The most proposals one script call carries.
    static let maximumBatch = 64
    /// The most rooms one update of `P:rooms` carries.
    static let maximumIndexBatch = 256

    /// Queues an append for its room's next call.
    func enqueue(_ proposal: LogProposal, completion: @escaping (Result<UInt64, LogAppendFailure>) -> Void) {
        let roomID = proposal.room
        let queue: RoomAppendQueue
        if let existing = self.appendQueues[roomID] {
            queue = existing
        } else {
            queue = RoomAppendQueue()
            self.appendQueues[roomID] = queue
        }
        queue.waiting.append((proposal, completion))
        guard !queue.inFlight, !queue.scheduled else { return }
        queue.scheduled = true
        // The end of this loop iteration: the room's other appends of the iteration join this call.
        self.loop.execute { [weak self] in
            guard let self, let queue = self.appendQueues[roomID] else { return }
            queue.scheduled = false
            self.sendBatch(roomID, queue)
        }
    }

    /// Sends the room's waiting appends (up to `maximumBatch`) in one call, unless one is on its way.
    func sendBatch(_ roomID: String, _ queue: RoomAppendQueue) {
        guard !queue.inFlight else { return }
        guard !queue.waiting.isEmpty else {
            if !queue.scheduled { self.appendQueues[roomID] = nil }
            return
        }
        let batch = Array(queue.waiting.prefix(Self.maximumBatch))
        queue.waiting.removeFirst(batch.count)
        guard let sha = self.scriptSHA, self.isAvailable else {
            for waiting in batch { self.follower.appendFailed(completion: waiting.completion) }
            self.sendBatch(roomID, queue)
            return
        }
        let (arguments, takesDevices) = self.arguments(sha: sha, roomID: roomID, batch.map(\.proposal))
        queue.inFlight = true
        self.appendCalls += 1
        let call = { [weak self] in
            guard let self else { return }
            let done: (Result<RESPValue, RedisError>, GatewayError?) -> Void = { [weak self] result, shortfall in
                guard let self else { return }
                self.answered(roomID, batch, result, notConfirmed: shortfall)
                queue.inFlight = false
                self.sendBatch(roomID, queue)
            }
            guard let replicated = self.replicated else {
                self.commands.send(arguments) { result in done(result, nil) }
                return
            }
            let wanted = self.configuration.replicaAcks
            let wait = self.configuration.replicaAckTimeoutMilliseconds
            replicated.send(arguments, replicas: wanted, waitMilliseconds: wait) { result, count in
                let confirmed = (try? count.get()) ?? 0
                done(result, confirmed >= wanted ? nil : .notReplicated(confirmed, of: wanted, within: wait))
            }
        }
        guard takesDevices && !self.roomsRegistered.contains(roomID) else {
            call()
            return
        }
        // Before the call takes a device: the reaper finds every room where this node may hold devices. In a Redis
        // Cluster the set is on another node than the room, so the call waits for the set's answer.
        self.commands.send([
            Array("SADD".utf8), Array(self.keys.nodeRooms(self.configuration.nodeID).utf8), Array(roomID.utf8),
        ]) { [weak self] result in
            if case .success = result { self?.roomsRegistered.insert(roomID) }
            call()
        }
    }

    /// The script call's arguments for a batch, and whether any of its events takes a device for this node.
    private func arguments(sha: String, roomID: String, _ proposals: [LogProposal]) -> ([[UInt8]], Bool) {
        let history = self.rules.history
        var arguments: [[UInt8]] = self.scriptCall(
            sha, key: self.keys.room(roomID).base, "append",
            [
                roomID, self.configuration.nodeID, String(history.maximumEntries),
                String(history.maximumAgeMilliseconds), String(self.configuration.roomExpiryMilliseconds),
            ]
        ).map { Array($0.utf8) }
        var takesDevices = false
        for proposal in proposals {
            arguments.append(Array((proposal.expectedSequence.map(String.init) ?? "").utf8))
            arguments.append(Array(String(proposal.events.count).utf8))
            for proposed in proposal.events {
                let claim = SeatClaim(proposed.event, rules: self.rules)
                if claim.operation == .join || claim.operation == .restore { takesDevices = true }
                arguments.append(JSONWriter.bytes(proposed.event.wireValue))
                arguments.append(Array((proposed.actor ?? "").utf8))
                arguments.append(Array((proposed.reason ?? "").utf8))
                guard claim.operation != .none || proposed.requiresDeviceOwnership || !claim.device.isEmpty else {
                    // Neither a seat or device effect nor a condition: the script needs nothing more.
                    arguments.append(Array("-".utf8))
                    continue
                }
                arguments.append(Array((claim.operation == .none ? "K" : claim.operation.rawValue).utf8))
                arguments.append(Array(claim.uid.utf8))
                arguments.append(Array(claim.device.utf8))
                arguments.append(Array(claim.seatClass.rawValue.utf8))
                arguments.append(Array(String(claim.capacity).utf8))
                arguments.append(Array((proposed.requiresDeviceOwnership ? "1" : "0").utf8))
            }
        }
        return (arguments, takesDevices)
    }

    /// The script's answer to a batch: per proposal its status, last sequence number and entries, handed to the
    /// follower in order (entries delivered before each completion runs). With `notConfirmed` (too few replicas
    /// confirmed the call) the entries are delivered all the same, as they are in the log, but each appended
    /// proposal is answered with that error instead of its acknowledgement.
    private func answered(
        _ roomID: String, _ batch: [RoomAppendQueue.Waiting], _ result: Result<RESPValue, RedisError>,
        notConfirmed: GatewayError? = nil
    ) {
        guard case .success(.array(let items?)) = result else {
            if case .failure(let error) = result, error.serverMessage?.hasPrefix("NOSCRIPT") == true {
                self.loadScript()
            }
            for waiting in batch { self.follower.appendFailed(completion: waiting.completion) }
            return
        }
        var index = 0
        var appended = false
        for waiting in batch {
            guard index + 2 < items.count, let status = Self.text(items[index]),
                case .integer(let sequence) = items[index + 1], case .integer(let count) = items[index + 2],
                count >= 0, index + 3 + Int(count) <= items.count
            else {
                self.follower.appendFailed(completion: waiting.completion)
                continue
            }
            let entries = items[(index + 3)..<(index + 3 + Int(count))].compactMap { item -> SharedLogEntry? in
                guard case .bulkString(let bytes?) = item else { return nil }
                return SharedLogEntry(bytes: bytes)
            }
            index += 3 + Int(count)
            let outcome: AppendOutcome
            switch status {
            case "OK":
                outcome = .appended(through: UInt64(sequence), entries: entries)
                appended = true
            case "FULL": outcome = .full
            default: outcome = .conflict
            }
            var completion = waiting.completion
            if let notConfirmed, case .appended = outcome {
                completion = { [weak self] _ in
                    self?.follower.statistics.replicaAckFailures += 1
                    waiting.completion(.failure(.refused(notConfirmed)))
                }
            }
            let checkpoint = self.follower.appendAnswered(
                outcome, in: roomID, checkpointInterval: self.configuration.checkpointInterval,
                completion: completion)
            if let (replica, epoch) = checkpoint { self.writeCheckpoint(roomID, replica, epoch: epoch) }
        }
        if appended { self.indexLater(roomID) }
    }

    /// Brings `P:rooms` up to date for a room appended to, at the end of the loop iteration, with the other rooms
    /// appended to meanwhile (the webhooks of the cluster find rooms with new entries there).
    func indexLater(_ roomID: String) {
        self.roomsToIndex.append(roomID)
        guard !self.indexScheduled else { return }
        self.indexScheduled = true
        self.loop.execute { [weak self] in
            guard let self else { return }
            self.indexScheduled = false
            let rooms = Array(Set(self.roomsToIndex)).sorted()
            self.roomsToIndex = []
            guard let sha = self.scriptSHA, self.commands.isConnected else { return }
            var start = 0
            while start < rooms.count {
                let page = rooms[start..<min(start + Self.maximumIndexBatch, rooms.count)]
                start += page.count
                let arguments = self.scriptCall(sha, key: self.keys.rooms, "index", Array(page))
                self.commands.send(arguments) { [weak self] result in
                    if case .failure(let error) = result { self?.log?("cannot update the room index: \(error)") }
                }
            }
        }
    }
}
