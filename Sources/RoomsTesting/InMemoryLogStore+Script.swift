import ClusterCore
import Rooms

/// The store's side of every command, with the Redis script's semantics (`RoomLogScript` in the Cluster module):
/// each runs at once, as the script runs atomically.
extension InMemoryLogStore {
    /// One event of an append, with what the script is told of it.
    struct ProposedRecord {
        var proposed: ProposedEvent
        var claim: SeatClaim
    }

    /// What a node reads to load a room.
    struct RoomSnapshot {
        var epoch: String?
        var checkpoint: SharedCheckpoint?
        var entries: [SharedLogEntry]
    }

    typealias Device = InMemoryRoomRecords.Device
    typealias SeatClass = SeatClaim.SeatClass

    /// The script's `append`: checks `expected`, device ownership and the seats for every event before anything
    /// is written, then applies the seat effects and appends, numbers and publishes each entry.
    func append(
        in roomID: String,
        node: String,
        expected: UInt64?,
        records proposedRecords: [ProposedRecord],
        history: HistoryRetention,
        expiry: Int64
    ) -> AppendOutcome {
        var records = self.records(roomID) ?? InMemoryRoomRecords()
        if let expected, expected != records.sequence { return .conflict }
        // Every condition is checked before anything is written: all or none.
        var inCall: [Device: SeatClass?] = [:]
        var users: [SeatClass: [String: Int]] = [:]
        var counts: [SeatClass: Int] = [:]
        func deviceIn(_ device: Device) -> SeatClass? {
            if let known = inCall[device] { return known }
            inCall[device] = .some(records.devices[device])
            return records.devices[device]
        }
        func userDevices(_ seatClass: SeatClass, _ uid: String) -> Int {
            users[seatClass]?[uid] ?? records.devices(of: uid, in: seatClass)
        }
        func seats(_ seatClass: SeatClass) -> Int {
            counts[seatClass] ?? records.seatCount(seatClass)
        }
        for record in proposedRecords {
            let claim = record.claim
            let device = Device(uid: claim.uid, device: claim.device)
            if record.proposed.requiresDeviceOwnership && records.owners[device] != node { return .conflict }
            if claim.operation == .join && deviceIn(device) == nil {
                if userDevices(claim.seatClass, claim.uid) == 0 {
                    if seats(claim.seatClass) >= claim.capacity { return .full }
                    counts[claim.seatClass] = seats(claim.seatClass) + 1
                }
                users[claim.seatClass, default: [:]][claim.uid] = userDevices(claim.seatClass, claim.uid) + 1
                inCall[device] = .some(claim.seatClass)
            } else if claim.operation == .leave, let seatClass = deviceIn(device) {
                inCall[device] = .some(nil)
                users[seatClass, default: [:]][claim.uid] = userDevices(seatClass, claim.uid) - 1
                if userDevices(seatClass, claim.uid) <= 0 { counts[seatClass] = seats(seatClass) - 1 }
            }
        }
        var entries: [SharedLogEntry] = []
        for record in proposedRecords {
            self.apply(record.claim, to: &records, in: roomID, node: node)
            let proposed = record.proposed
            entries.append(
                self.emit(
                    proposed.event, actor: proposed.actor, reason: proposed.reason, to: &records, in: roomID,
                    history: history, expiry: expiry))
        }
        self.rooms[roomID] = records
        return .appended(through: records.sequence, entries: entries)
    }

    /// The script's `lease`: renews the node's lease and keeps its rooms' records alive; a node whose lease ran
    /// out has its devices recorded as lost, and once the grace period is over those that did not come back
    /// through another node leave.
    ///
    /// - Returns: the entries recorded for dead nodes' devices, and whether the node was live.
    func renewLease(
        of node: String,
        lease: Int64,
        grace: Int64,
        history: HistoryRetention,
        expiry: Int64,
        keepingAlive roomIDs: [String]
    ) -> (reaped: Int, wasLive: Bool) {
        let now = self.clock.now
        let wasLive = self.liveNodes[node] != nil
        if !wasLive { self.deadNodes[node] = nil }
        self.liveNodes[node] = now + lease
        for roomID in roomIDs {
            guard var records = self.records(roomID) else { continue }
            Self.touch(&records, expiry: expiry, now: now)
            self.rooms[roomID] = records
        }
        var reaped = 0
        for dead in Self.due(self.liveNodes, now: now) {
            self.liveNodes[dead] = nil
            self.deadNodes[dead] = now + grace
            for member in (self.nodeDevices[dead] ?? []).sorted() {
                guard var records = self.records(member.room), records.owners[member.device] == dead else { continue }
                let lost = RoomEvent.connectionLost(uid: member.device.uid, deviceID: member.device.device)
                _ = self.emit(
                    lost, actor: nil, reason: nil, to: &records, in: member.room, history: history, expiry: expiry)
                self.rooms[member.room] = records
                reaped += 1
            }
        }
        for dead in Self.due(self.deadNodes, now: now) {
            self.deadNodes[dead] = nil
            for member in (self.nodeDevices[dead] ?? []).sorted() {
                guard var records = self.records(member.room), records.owners[member.device] == dead else { continue }
                self.leave(member.device, from: &records, in: member.room)
                let left = RoomEvent.participantLeft(
                    uid: member.device.uid, deviceID: member.device.device, reason: .timedOut)
                _ = self.emit(
                    left, actor: nil, reason: nil, to: &records, in: member.room, history: history, expiry: expiry)
                self.rooms[member.room] = records
                reaped += 1
            }
            self.nodeDevices[dead] = nil
        }
        return (reaped, wasLive)
    }

    /// The script's `checkpoint`: kept only when it belongs to the room's epoch and is newer than the stored one.
    func writeCheckpoint(_ checkpoint: SharedCheckpoint, at sequence: UInt64, in roomID: String, expiry: Int64) -> Bool
    {
        guard var records = self.records(roomID), records.epoch == checkpoint.epoch,
            (records.checkpoint?.sequence ?? 0) < sequence
        else { return false }
        records.checkpoint = (sequence, checkpoint)
        Self.touch(&records, expiry: expiry, now: self.clock.now)
        self.rooms[roomID] = records
        return true
    }

    /// What a node loads: the epoch, the checkpoint and the retained log.
    func snapshot(of roomID: String) -> RoomSnapshot {
        guard let records = self.records(roomID) else { return RoomSnapshot(epoch: nil, checkpoint: nil, entries: []) }
        return RoomSnapshot(
            epoch: records.epoch, checkpoint: records.checkpoint?.value,
            entries: records.log.compactMap { SharedLogEntry(bytes: $0.bytes) })
    }

    /// At most `count` retained entries from `sequence` on.
    func entries(of roomID: String, from sequence: UInt64, count: Int) -> [SharedLogEntry] {
        let log = self.records(roomID)?.log ?? []
        return log.lazy.filter { $0.sequence >= sequence }.prefix(count).compactMap { SharedLogEntry(bytes: $0.bytes) }
    }

    // MARK: Seats, devices, entries

    /// Applies an event's seat claim, as the script's `effect`.
    private func apply(_ claim: SeatClaim, to records: inout InMemoryRoomRecords, in roomID: String, node: String) {
        let device = Device(uid: claim.uid, device: claim.device)
        switch claim.operation {
        case .join:
            if records.devices[device] == nil {
                records.devices[device] = claim.seatClass
                records.seats[claim.seatClass, default: [:]][claim.uid, default: 0] += 1
            }
            self.take(device, in: &records, roomID: roomID, node: node)
        case .restore:
            if records.devices[device] != nil { self.take(device, in: &records, roomID: roomID, node: node) }
        case .leave:
            self.leave(device, from: &records, in: roomID)
        case .leaveAll:
            for joined in records.devices.keys.sorted() where joined.uid == claim.uid {
                self.leave(joined, from: &records, in: roomID)
            }
        case .endSession:
            for (joined, owner) in records.owners {
                self.nodeDevices[owner]?.remove(NodeDevice(room: roomID, device: joined))
            }
            records.devices = [:]
            records.seats = [:]
            records.owners = [:]
        case .none:
            break
        }
    }

    /// A device leaves: its seat goes with the user's last device, and its node no longer holds it.
    private func leave(_ device: Device, from records: inout InMemoryRoomRecords, in roomID: String) {
        guard let seatClass = records.devices.removeValue(forKey: device) else { return }
        let remaining = records.devices(of: device.uid, in: seatClass) - 1
        records.seats[seatClass, default: [:]][device.uid] = remaining > 0 ? remaining : nil
        if let owner = records.owners.removeValue(forKey: device) {
            self.nodeDevices[owner]?.remove(NodeDevice(room: roomID, device: device))
        }
    }

    /// The node holds the device from now on.
    private func take(_ device: Device, in records: inout InMemoryRoomRecords, roomID: String, node: String) {
        let member = NodeDevice(room: roomID, device: device)
        if let owner = records.owners[device], owner != node { self.nodeDevices[owner]?.remove(member) }
        records.owners[device] = node
        self.nodeDevices[node, default: []].insert(member)
    }

    /// Appends one entry: numbers it, stores it, publishes it, trims the log (never past the checkpoint).
    private func emit(
        _ event: RoomEvent,
        actor: String?,
        reason: String?,
        to records: inout InMemoryRoomRecords,
        in roomID: String,
        history: HistoryRetention,
        expiry: Int64
    ) -> SharedLogEntry {
        let now = self.clock.now
        records.sequence += 1
        let sequence = records.sequence
        if sequence == 1 || records.epoch == nil {
            self.epochsMade += 1
            records.epoch = "\(now)-\(self.epochsMade)"
        }
        let entry = RoomLogEntry(
            sequence: sequence, time: now, actor: actor?.isEmpty == false ? actor : nil,
            reason: reason?.isEmpty == false ? reason : nil, event: event)
        let shared = SharedLogEntry(entry, epoch: records.epoch ?? "")
        let bytes = shared.bytes
        records.log.append(InMemoryRoomRecords.StoredEntry(sequence: sequence, time: now, bytes: bytes))
        self.publish(bytes, in: roomID)
        let checkpoint = Int64(records.checkpoint?.sequence ?? 0)
        var keep = min(Int64(sequence) - Int64(history.maximumEntries) + 1, checkpoint + 1)
        if history.maximumAgeMilliseconds > 0 {
            for item in records.log.prefix(32)
            where Int64(item.sequence) <= checkpoint && now - item.time > history.maximumAgeMilliseconds {
                keep = max(keep, Int64(item.sequence) + 1)
            }
        }
        if keep > 1 { records.log.removeAll { Int64($0.sequence) < keep } }
        Self.touch(&records, expiry: expiry, now: now)
        return shared
    }

    /// Renews the records' expiry.
    private static func touch(_ records: inout InMemoryRoomRecords, expiry: Int64, now: Int64) {
        if expiry > 0 { records.expiresAt = now + expiry }
    }

    /// Nodes whose time is up, earliest first, at most 16 (the script's `ZRANGEBYSCORE … LIMIT 0 16`).
    private static func due(_ nodes: [String: Int64], now: Int64) -> [String] {
        nodes.filter { $0.value <= now }.sorted { ($0.value, $0.key) < ($1.value, $1.key) }.prefix(16).map(\.key)
    }
}
