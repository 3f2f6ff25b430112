import Rooms

/// What a node does for its followed rooms beyond delivery: catching up after the store or the subscription came
/// back, comparing with the store's last sequence numbers, keeping the rooms' records alive, writing checkpoints,
/// and noticing a lost lease.
extension SharedLogFollower {
    /// The store can be reached again: rooms whose load failed or was cut off are loaded, the others read from
    /// their last applied entry on.
    public func storeReconnected() {
        for (roomID, room) in self.rooms.sorted(by: { $0.key < $1.key }) {
            if room.isLoading || room.needsReload { self.load(roomID) } else { self.fillGap(roomID) }
        }
    }

    /// The subscription to the rooms' entries came back: what was published meanwhile is read from the store.
    public func subscriptionRestored() {
        for roomID in self.rooms.keys.sorted() { self.fillGap(roomID) }
    }

    /// The rooms to compare with the store now (neither loading nor reading a gap), in order.
    public var roomsToPoll: [String] {
        self.rooms.filter { !$0.value.isLoading && !$0.value.isFetching }.keys.sorted()
    }

    /// The store's last sequence number and epoch of a room: a room behind reads the gap, a room whose records
    /// started afresh (or that waits for a reload) is loaded again, and so is a room whose log went back behind
    /// what this node had applied when it asked (a failover to a replica that had not received the last entries):
    /// the entries numbered again from there are not the ones this node applied.
    ///
    /// - Parameters:
    ///   - roomID: the room.
    ///   - sequence: the store's last sequence number (0 when it has none).
    ///   - epoch: the store's epoch of the room; nil when it has no records.
    ///   - appliedWhenAsked: `appliedSequence(of:)` when the poll was sent; nil when not known.
    public func polled(_ roomID: String, sequence: UInt64, epoch: String?, appliedWhenAsked: UInt64? = nil) {
        guard let room = self.rooms[roomID], !room.isLoading else { return }
        let started = room.epoch == nil && room.applied == 0
        let wentBack = epoch != nil && epoch == room.epoch && appliedWhenAsked.map { sequence < $0 } == true
        if room.needsReload || wentBack || (epoch != room.epoch && !started && (epoch != nil || room.applied > 0)) {
            self.load(roomID)
        } else if sequence > room.applied {
            self.fillGap(roomID)
        }
    }

    /// The followed rooms whose records this node should keep alive with its lease renewal: each about four times
    /// per expiry period (appends renew them too), not at every renewal, since a node may follow many rooms.
    ///
    /// - Parameters:
    ///   - now: now, in milliseconds (any monotonic origin).
    ///   - expiry: how long unused records live, in milliseconds; 0 for ever (then none).
    public func roomsToKeepAlive(now: Int64, expiry: Int64) -> [String] {
        guard expiry > 0 else { return [] }
        var roomIDs: [String] = []
        for (roomID, room) in self.rooms.sorted(by: { $0.key < $1.key }) where now - room.touchedAt >= expiry / 4 {
            room.touchedAt = now
            roomIDs.append(roomID)
        }
        return roomIDs
    }

    /// The answer to a lease renewal: devices reaped from dead nodes, and whether this node was still live. A node
    /// that had a lease and finds it ran out tells the delegate, which sends its participants to reconnect.
    ///
    /// - Parameters:
    ///   - reaped: entries this renewal recorded for devices of dead nodes.
    ///   - wasLive: whether this node was among the live ones.
    public func leaseRenewed(reaped: Int, wasLive: Bool) {
        if reaped > 0 {
            self.statistics.devicesReaped += reaped
            self.log?("reaped \(reaped) devices of nodes whose lease ran out")
        }
        if self.hasLease && !wasLive {
            self.statistics.leasesLost += 1
            self.log?("this node's lease ran out while it could not reach the shared store; its participants reconnect")
            self.delegate?.sharedLogLeaseLost()
        }
        self.hasLease = true
    }

    /// The store's answer to this node's append: its entries are delivered before the completion runs (so the
    /// requester finds them applied), then the completion is told.
    ///
    /// - Parameters:
    ///   - outcome: the store's answer.
    ///   - roomID: the room.
    ///   - checkpointInterval: entries between checkpoints; 0 for none.
    ///   - completion: the append's completion.
    /// - Returns: the checkpoint the store side should write now, if one is due.
    public func appendAnswered(
        _ outcome: AppendOutcome,
        in roomID: String,
        checkpointInterval: UInt64,
        completion: (Result<UInt64, LogAppendFailure>) -> Void
    ) -> (replica: RoomReplica, epoch: String)? {
        switch outcome {
        case .appended(let sequence, let entries):
            self.statistics.appends += 1
            self.received(entries, in: roomID)
            completion(.success(sequence))
            return self.checkpointDue(
                in: roomID, appended: entries.count, through: sequence, interval: checkpointInterval)
        case .full:
            completion(.failure(.refused(.callFull)))
        case .conflict:
            completion(.failure(.conditionFailed))
        }
        return nil
    }

    /// An append that did not reach the store, or got no answer in time: `ERR_UNAVAILABLE`.
    ///
    /// - Parameter completion: the append's completion.
    public func appendFailed(completion: (Result<UInt64, LogAppendFailure>) -> Void) {
        self.statistics.appendFailures += 1
        completion(.failure(.refused(.unavailable)))
    }

    /// The checkpoint to write after this node's append crossed a multiple of `interval`: the room one interval
    /// behind the log, so a node that loads the room can rebuild any view of the last interval for exact resumes.
    ///
    /// - Parameters:
    ///   - roomID: the room.
    ///   - appended: how many entries the append added.
    ///   - sequence: the sequence number of the last of them.
    ///   - interval: entries between checkpoints; 0 for none.
    /// - Returns: the replica to write and the epoch to write it in; nil when none is due.
    public func checkpointDue(
        in roomID: String,
        appended: Int,
        through sequence: UInt64,
        interval: UInt64
    ) -> (replica: RoomReplica, epoch: String)? {
        guard interval > 0, let room = self.rooms[roomID], let epoch = room.epoch else { return nil }
        let previous = sequence - UInt64(appended)
        guard sequence / interval > previous / interval else { return nil }
        let target = (sequence / interval) * interval
        guard target > interval, let replica = self.delegate?.replica(of: roomID, at: target - interval) else {
            return nil
        }
        return (replica, epoch)
    }
}
