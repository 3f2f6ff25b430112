import EventIO
import JSONCoding
import Redis
import Rooms

/// The shared log of a cluster, in Redis: each room's log is a Redis Stream appended by an atomic script that numbers
/// the entries, checks the seats and device ownership, and publishes each entry on the room's channel. Every node
/// that follows a room applies the entries in order with the same reducer, so all nodes hold the same roster and
/// hand out the same sequence numbers.
///
/// Confined to the gateway's event loop. A gap in what arrives (a lost pub/sub message, a reconnect) is filled from
/// the stream from the last applied sequence number; a gap that cannot be filled (the stream was trimmed past it,
/// or the room's records were lost) reloads the room, and its subscribers get a fresh snapshot.
public final class RedisRoomLog: SharedRoomLog {
    /// What this node knows of one room it follows.
    private final class FollowedRoom {
        var isLoading = true
        var generation = 0
        /// The last sequence number delivered to the gateway.
        var applied: UInt64 = 0
        /// The epoch of the room's shared records the applied entries belong to.
        var epoch: String?
        /// Entries that arrived out of order or while loading, by sequence number.
        var buffered: [UInt64: (entry: RoomLogEntry, epoch: String)] = [:]
        var isFetching = false
        /// The room must be loaded again when the store is back.
        var needsReload = false
        /// When this node last renewed the room's records with its lease (monotonic milliseconds).
        var touchedAt = Int64.min / 2
    }

    public let configuration: ClusterConfiguration
    private let gatewayConfiguration: GatewayConfiguration
    private let loop: EventLoop
    private unowned let gateway: Gateway
    private let commands: RedisClient
    private let subscriber: RedisClient
    private var scriptSHA: String?
    private var rooms: [String: FollowedRoom] = [:]
    private var leaseTimer: TimerID?
    private var pollTimer: TimerID?
    private var isRunning = false
    /// Called when this node finds it was declared dead (it could not renew its lease in time, so the other nodes
    /// reaped its devices): the gateway should close its participants' connections so they reconnect.
    public var onLeaseLost: (() -> Void)?
    private var hasLease = false
    /// Logs what goes wrong (the store unreachable, a room reloaded); none by default.
    public var log: ((String) -> Void)?
    /// Counters for metrics and tests.
    public private(set) var statistics = Statistics()

    /// What the shared log has done.
    public struct Statistics: Hashable, Sendable {
        public var appends = 0
        public var appendFailures = 0
        public var gapsFilled = 0
        public var reloads = 0
        public var devicesReaped = 0
        public var checkpointsWritten = 0
        /// Times this node found its lease had run out (it was reaped) and closed its participants' sockets.
        public var leasesLost = 0
    }

    /// - Parameters:
    ///   - configuration: the cluster's settings.
    ///   - gateway: the gateway whose rooms this log keeps; it must use the same loop.
    ///   - loop: the gateway's event loop.
    public init(configuration: ClusterConfiguration, gateway: Gateway, loop: EventLoop) {
        self.configuration = configuration
        self.gatewayConfiguration = gateway.configuration
        self.gateway = gateway
        self.loop = loop
        self.commands = RedisClient(configuration: configuration.redis, loop: loop)
        self.subscriber = RedisClient(configuration: configuration.redis, loop: loop)
    }

    /// Whether the command connection is up and the script is loaded.
    public var isAvailable: Bool { self.commands.isConnected && self.scriptSHA != nil }

    /// Connects (and keeps reconnecting), renews this node's lease and reaps dead nodes. Call on the loop.
    public func start() {
        guard !self.isRunning else { return }
        self.isRunning = true
        self.commands.onConnected = { [unowned self] in self.commandsConnected() }
        self.commands.onStateChange = { [unowned self] state in
            if state == .disconnected {
                self.scriptSHA = nil
                self.log?("shared store connection lost; reconnecting")
            }
        }
        self.subscriber.onMessage = { [unowned self] channel, payload in
            self.received(channel: channel, payload: payload)
        }
        self.subscriber.onConnected = { [unowned self] in
            // Entries published while the subscription was down are read from the streams.
            for roomID in self.rooms.keys.sorted() { self.fillGap(roomID) }
        }
        self.subscriber.subscribe([Array(self.controlChannel.utf8)])
        self.commands.start()
        self.subscriber.start()
        self.scheduleLease()
        self.schedulePoll()
    }

    /// Stops the connections and timers. Call on the loop.
    public func stop() {
        guard self.isRunning else { return }
        self.isRunning = false
        if let timer = self.leaseTimer { self.loop.cancelTimer(timer) }
        if let timer = self.pollTimer { self.loop.cancelTimer(timer) }
        self.commands.stop()
        self.subscriber.stop()
    }

    // MARK: SharedRoomLog

    public func follow(_ roomID: String) {
        guard self.rooms[roomID] == nil else { return }
        self.rooms[roomID] = FollowedRoom()
        self.subscriber.subscribe([Array(self.channel(roomID).utf8)])
        self.load(roomID)
    }

    public func unfollow(_ roomID: String) {
        guard self.rooms.removeValue(forKey: roomID) != nil else { return }
        self.subscriber.unsubscribe([Array(self.channel(roomID).utf8)])
    }

    public func append(_ proposal: LogProposal, completion: @escaping (Result<UInt64, LogAppendFailure>) -> Void) {
        guard let sha = self.scriptSHA, self.commands.isConnected else {
            self.statistics.appendFailures += 1
            self.loop.execute { completion(.failure(.refused(.unavailable))) }
            return
        }
        let history = self.gatewayConfiguration.history
        var arguments: [[UInt8]] = [
            Array("EVALSHA".utf8), Array(sha.utf8), Array("0".utf8), Array("append".utf8),
            Array(self.configuration.keyPrefix.utf8), Array(proposal.room.utf8), Array(self.configuration.nodeID.utf8),
            Array((proposal.expectedSequence.map(String.init) ?? "").utf8), Array(String(history.maximumEntries).utf8),
            Array(String(history.maximumAgeMilliseconds).utf8),
            Array(String(self.configuration.roomExpiryMilliseconds).utf8),
        ]
        for proposed in proposal.events {
            let effect = self.seatEffect(of: proposed.event)
            arguments.append(JSONWriter.bytes(proposed.event.wireValue))
            arguments.append(Array((proposed.actor ?? "").utf8))
            arguments.append(Array((proposed.reason ?? "").utf8))
            arguments.append(Array(effect.operation.utf8))
            arguments.append(Array(effect.uid.utf8))
            arguments.append(Array(effect.device.utf8))
            arguments.append(Array(effect.seatClass.utf8))
            arguments.append(Array(String(effect.capacity).utf8))
            arguments.append(Array((proposed.requiresDeviceOwnership ? "1" : "0").utf8))
        }
        let roomID = proposal.room
        self.commands.send(arguments) { [weak self] result in
            guard let self else { return }
            switch result {
            case .success(.array(let items?)) where items.count >= 2:
                let status = Self.text(items[0])
                if status == "OK", case .integer(let sequence) = items[1] {
                    self.statistics.appends += 1
                    let entries = items.dropFirst(2).compactMap { item -> (RoomLogEntry, String)? in
                        guard case .bulkString(let bytes?) = item else { return nil }
                        return Self.entry(bytes)
                    }
                    self.deliver(roomID, entries)
                    completion(.success(UInt64(sequence)))
                    self.writeCheckpointIfDue(roomID, appended: entries.count, through: UInt64(sequence))
                } else if status == "FULL" {
                    completion(.failure(.refused(.callFull)))
                } else {
                    completion(.failure(.conditionFailed))
                }
            case .success:
                self.statistics.appendFailures += 1
                completion(.failure(.refused(.unavailable)))
            case .failure(let error):
                self.statistics.appendFailures += 1
                if error.serverMessage?.hasPrefix("NOSCRIPT") == true { self.loadScript() }
                completion(.failure(.refused(.unavailable)))
            }
        }
    }

    public func disconnect(uid: String, reason: String?) {
        let message = JSONWriter.bytes(
            .object(
                JSONObject(uniqueKeysWithValues: [
                    ("op", .string("disconnect")), ("node", .string(self.configuration.nodeID)), ("uid", .string(uid)),
                    ("reason", reason.map { .string($0) } ?? .null),
                ])))
        self.commands.send([Array("PUBLISH".utf8), Array(self.controlChannel.utf8), message]) { [weak self] result in
            if case .failure(let error) = result {
                self?.log?("cannot ask the other nodes to disconnect a user: \(error)")
            }
        }
    }

    /// The channel for messages to every node (not about one room's log).
    private var controlChannel: String { "\(self.configuration.keyPrefix):control" }

    /// A message to every node: a user to disconnect.
    private func receivedControl(_ payload: [UInt8]) {
        guard let value = try? JSONParser.parse(payload, limits: Self.limits), value["op"]?.stringValue == "disconnect",
            value["node"]?.stringValue != self.configuration.nodeID, let uid = value["uid"]?.stringValue
        else { return }
        self.gateway.sharedLogDisconnect(uid: uid, reason: value["reason"]?.stringValue)
    }

    // MARK: Loading and delivery

    /// Loads a room: its checkpoint, its epoch and its retained log, then hands them to the gateway.
    private func load(_ roomID: String) {
        guard let room = self.rooms[roomID] else { return }
        let isReload = room.applied > 0 || room.epoch != nil
        if isReload && !room.isLoading { self.gateway.sharedLogReloading(room: roomID) }
        room.isLoading = true
        room.needsReload = false
        room.generation += 1
        let generation = room.generation
        let keys = self.keys(roomID)
        final class Replies {
            var checkpoint: RESPValue?
            var epoch: RESPValue?
        }
        let replies = Replies()
        let failed: (RedisError) -> Void = { [weak self] error in
            guard let self, let room = self.rooms[roomID], room.generation == generation else { return }
            self.log?("cannot load room \(roomID) from the shared store: \(error)")
            if room.applied == 0 && room.epoch == nil {
                self.rooms[roomID] = nil
                self.subscriber.unsubscribe([Array(self.channel(roomID).utf8)])
                self.gateway.sharedLogFailed(room: roomID)
            } else {
                room.isLoading = false
                room.needsReload = true
                self.gateway.sharedLogReloadFailed(room: roomID)
            }
        }
        self.commands.send(["HGETALL", keys.checkpoint]) { result in
            switch result {
            case .success(let value): replies.checkpoint = value
            case .failure(let error): failed(error)
            }
        }
        self.commands.send(["GET", keys.epoch]) { result in
            switch result {
            case .success(let value): replies.epoch = value
            case .failure(let error): failed(error)
            }
        }
        self.commands.send(["XRANGE", keys.log, "-", "+"]) { [weak self] result in
            guard let self, let room = self.rooms[roomID], room.generation == generation else { return }
            guard case .success(let log) = result, let checkpointReply = replies.checkpoint,
                let epochReply = replies.epoch
            else {
                if case .failure(let error) = result { failed(error) }
                return
            }
            self.loaded(roomID, room: room, checkpoint: checkpointReply, epoch: epochReply, log: log)
        }
    }

    private func loaded(_ roomID: String, room: FollowedRoom, checkpoint: RESPValue, epoch: RESPValue, log: RESPValue) {
        let epoch = Self.text(epoch)
        var replica: RoomReplica?
        if case .array(let fields?) = checkpoint, fields.count >= 2 {
            var values: [String: [UInt8]] = [:]
            for index in stride(from: 0, to: fields.count - 1, by: 2) {
                if let name = Self.text(fields[index]), case .bulkString(let bytes?) = fields[index + 1] {
                    values[name] = bytes
                }
            }
            if let data = values["data"], values["epoch"].map({ String(decoding: $0, as: UTF8.self) }) == epoch,
                let value = try? JSONParser.parse(data, limits: Self.limits)
            {
                replica = try? RoomReplica(checkpoint: value)
            }
        }
        var entries: [RoomLogEntry] = []
        if case .array(let items?) = log {
            for item in items {
                guard case .array(let pair?) = item, pair.count == 2, case .array(let fields?) = pair[1],
                    fields.count >= 2, case .bulkString(let bytes?) = fields[1],
                    let (entry, entryEpoch) = Self.entry(bytes), entryEpoch == epoch
                else { continue }
                if let last = entries.last, entry.sequence != last.sequence + 1 { entries.removeAll() }
                entries.append(entry)
            }
        }
        let base = replica?.state.sequence ?? 0
        if let first = entries.first, first.sequence > base + 1 {
            // Entries missing between the checkpoint and the retained log: the room cannot be rebuilt exactly.
            self.log?(
                "room \(roomID): the shared log lacks entries \(base + 1)..<\(first.sequence); starting from them")
            entries.removeAll()
        }
        room.isLoading = false
        room.epoch = epoch
        room.applied = max(base, entries.last?.sequence ?? 0)
        if room.generation > 1 { self.statistics.reloads += 1 }
        self.gateway.sharedLogLoaded(room: roomID, checkpoint: replica, entries: entries)
        let buffered = room.buffered.values.sorted { $0.entry.sequence < $1.entry.sequence }
        room.buffered = [:]
        self.deliver(roomID, buffered.map { ($0.entry, $0.epoch) })
    }

    /// Hands entries to the gateway in order: skips what it has, buffers what comes early and fetches the gap.
    private func deliver(_ roomID: String, _ entries: [(RoomLogEntry, String)]) {
        guard let room = self.rooms[roomID] else { return }
        for (entry, epoch) in entries {
            if room.isLoading || room.needsReload {
                room.buffered[entry.sequence] = (entry, epoch)
                continue
            }
            if room.epoch == nil && room.applied == 0 {
                // The room had no shared records when it was loaded: this entry started them.
                room.epoch = epoch
            }
            guard epoch == room.epoch else {
                // The room's shared records started afresh (expired or flushed): reload from them.
                self.load(roomID)
                return
            }
            if entry.sequence <= room.applied { continue }
            if entry.sequence == room.applied + 1 {
                room.applied = entry.sequence
                self.gateway.sharedLogReceived(room: roomID, entries: [entry])
                while let next = room.buffered.removeValue(forKey: room.applied + 1) {
                    guard next.epoch == room.epoch else { break }
                    room.applied = next.entry.sequence
                    self.gateway.sharedLogReceived(room: roomID, entries: [next.entry])
                }
                room.buffered = room.buffered.filter { $0.key > room.applied }
            } else {
                room.buffered[entry.sequence] = (entry, epoch)
                self.fillGap(roomID)
            }
        }
    }

    /// Reads the entries after the last applied one from the stream.
    private func fillGap(_ roomID: String) {
        guard let room = self.rooms[roomID], !room.isLoading, !room.isFetching else { return }
        if room.needsReload {
            self.load(roomID)
            return
        }
        room.isFetching = true
        let from = room.applied + 1
        let generation = room.generation
        self.commands.send(["XRANGE", self.keys(roomID).log, "\(from)-0", "+", "COUNT", "1000"]) { [weak self] result in
            guard let self, let room = self.rooms[roomID], room.generation == generation else { return }
            room.isFetching = false
            guard case .success(.array(let items?)) = result else { return }
            var entries: [(RoomLogEntry, String)] = []
            for item in items {
                guard case .array(let pair?) = item, pair.count == 2, case .array(let fields?) = pair[1],
                    fields.count >= 2, case .bulkString(let bytes?) = fields[1], let decoded = Self.entry(bytes)
                else { continue }
                entries.append(decoded)
            }
            if let first = entries.first, room.epoch == nil, room.applied == 0 { room.epoch = first.1 }
            if let first = entries.first, first.0.sequence > room.applied + 1 || first.1 != room.epoch {
                // Trimmed past what this node applied, or a new epoch: nothing can fill the gap exactly.
                self.load(roomID)
                return
            }
            if entries.isEmpty, let highest = room.buffered.keys.max(), highest > room.applied {
                // Buffered entries ahead, yet the stream has nothing after the applied one: it was trimmed or lost.
                self.load(roomID)
                return
            }
            if !entries.isEmpty { self.statistics.gapsFilled += 1 }
            self.deliver(roomID, entries)
            if entries.count == 1000 { self.fillGap(roomID) }
        }
    }

    private func received(channel: [UInt8], payload: [UInt8]) {
        if channel.elementsEqual(self.controlChannel.utf8) {
            self.receivedControl(payload)
            return
        }
        let prefix = Array("\(self.configuration.keyPrefix):room:".utf8)
        guard channel.starts(with: prefix), let decoded = Self.entry(payload) else { return }
        let roomID = String(decoding: channel[prefix.count...], as: UTF8.self)
        self.deliver(roomID, [decoded])
    }

    // MARK: Lease, reaping, polling, checkpoints

    private func commandsConnected() {
        self.loadScript()
    }

    private func loadScript() {
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
            for (roomID, room) in self.rooms.sorted(by: { $0.key < $1.key }) {
                if room.isLoading || room.needsReload { self.load(roomID) } else { self.fillGap(roomID) }
            }
        }
    }

    private func scheduleLease() {
        let interval = UInt64(max(1, self.configuration.leaseMilliseconds / 3)) * 1_000_000
        self.leaseTimer = self.loop.scheduleTimer(afterNanoseconds: interval) { [weak self] in
            guard let self, self.isRunning else { return }
            self.renewLease()
            self.scheduleLease()
        }
    }

    /// Renews this node's lease, keeps its rooms' records alive and reaps nodes whose lease or grace ran out.
    private func renewLease() {
        guard let sha = self.scriptSHA, self.commands.isConnected else { return }
        let history = self.gatewayConfiguration.history
        var arguments = [
            "EVALSHA", sha, "0", "lease", self.configuration.keyPrefix, self.configuration.nodeID,
            String(self.configuration.leaseMilliseconds), String(self.gatewayConfiguration.reconnectGraceMilliseconds),
            String(history.maximumEntries), String(history.maximumAgeMilliseconds),
            String(self.configuration.roomExpiryMilliseconds),
        ]
        // Each followed room's records are kept alive about four times per expiry period (appends renew them too),
        // not at every renewal: a node may follow many rooms.
        let expiry = self.configuration.roomExpiryMilliseconds
        if expiry > 0 {
            let now = Int64(EventLoop.monotonicNow() / 1_000_000)
            for (roomID, room) in self.rooms.sorted(by: { $0.key < $1.key }) where now - room.touchedAt >= expiry / 4 {
                room.touchedAt = now
                arguments.append(roomID)
            }
        }
        self.commands.send(arguments) { [weak self] result in
            guard let self, case .success(.array(let values?)) = result, values.count == 2,
                case .integer(let reaped) = values[0], case .integer(let wasLive) = values[1]
            else { return }
            if reaped > 0 {
                self.statistics.devicesReaped += Int(reaped)
                self.log?("reaped \(reaped) devices of nodes whose lease ran out")
            }
            if self.hasLease && wasLive == 0 {
                self.statistics.leasesLost += 1
                self.log?("this node's lease ran out while it could not reach Redis; its participants reconnect")
                self.onLeaseLost?()
            }
            self.hasLease = true
        }
    }

    private func schedulePoll() {
        let interval = UInt64(max(1, self.configuration.pollIntervalMilliseconds)) * 1_000_000
        self.pollTimer = self.loop.scheduleTimer(afterNanoseconds: interval) { [weak self] in
            guard let self, self.isRunning else { return }
            self.poll()
            self.schedulePoll()
        }
    }

    /// Compares each followed room's last sequence number and epoch with the shared log's.
    private func poll() {
        guard self.commands.isConnected else { return }
        let roomIDs = self.rooms.filter { !$0.value.isLoading && !$0.value.isFetching }.keys.sorted()
        var start = 0
        while start < roomIDs.count {
            let batch = Array(roomIDs[start..<min(start + 256, roomIDs.count)])
            start += batch.count
            var arguments = ["MGET"]
            for roomID in batch {
                let keys = self.keys(roomID)
                arguments.append(keys.sequence)
                arguments.append(keys.epoch)
            }
            self.commands.send(arguments) { [weak self] result in
                guard let self, case .success(.array(let values?)) = result, values.count == batch.count * 2 else {
                    return
                }
                for (index, roomID) in batch.enumerated() {
                    guard let room = self.rooms[roomID], !room.isLoading else { continue }
                    let sequence = Self.text(values[index * 2]).flatMap { UInt64($0) } ?? 0
                    let epoch = Self.text(values[index * 2 + 1])
                    let started = room.epoch == nil && room.applied == 0
                    if room.needsReload || (epoch != room.epoch && !started && (epoch != nil || room.applied > 0)) {
                        self.load(roomID)
                    } else if sequence > room.applied {
                        self.fillGap(roomID)
                    }
                }
            }
        }
    }

    /// After this node's append crossed a multiple of the checkpoint interval, writes the checkpoint one interval
    /// behind the log.
    private func writeCheckpointIfDue(_ roomID: String, appended: Int, through sequence: UInt64) {
        let interval = self.configuration.checkpointInterval
        guard interval > 0, let sha = self.scriptSHA, let room = self.rooms[roomID], let epoch = room.epoch else {
            return
        }
        let previous = sequence - UInt64(appended)
        guard sequence / interval > previous / interval else { return }
        let target = (sequence / interval) * interval
        guard target > interval, let replica = self.gateway.replica(of: roomID, at: target - interval) else { return }
        let data = JSONWriter.bytes(replica.checkpoint)
        let arguments: [[UInt8]] = [
            Array("EVALSHA".utf8), Array(sha.utf8), Array("0".utf8), Array("checkpoint".utf8),
            Array(self.configuration.keyPrefix.utf8), Array(roomID.utf8), Array(epoch.utf8),
            Array(String(replica.state.sequence).utf8), data,
            Array(String(self.configuration.roomExpiryMilliseconds).utf8),
        ]
        self.commands.send(arguments) { [weak self] result in
            if case .success(.integer(1)) = result { self?.statistics.checkpointsWritten += 1 }
        }
    }

    // MARK: Helpers

    private struct SeatEffect {
        var operation = "-"
        var uid = ""
        var device = ""
        var seatClass = "p"
        var capacity = 0
    }

    /// What an event does to the shared seat and device records, in the script's terms (it mirrors the reducer
    /// with these).
    private func seatEffect(of event: RoomEvent) -> SeatEffect {
        switch event.seatEffect {
        case .takeSeat(let uid, let deviceID, let counts):
            let capacity = counts ? self.gatewayConfiguration.roomCapacity : self.gatewayConfiguration.reservedSeats
            return SeatEffect(
                operation: "J", uid: uid, device: deviceID, seatClass: counts ? "p" : "r", capacity: capacity)
        case .restoreDevice(let uid, let deviceID):
            return SeatEffect(operation: "R", uid: uid, device: deviceID)
        case .releaseDevice(let uid, let deviceID):
            return SeatEffect(operation: "L", uid: uid, device: deviceID)
        case .releaseUser(let uid, let deviceID):
            return SeatEffect(operation: "A", uid: uid, device: deviceID)
        case .keepDevice(let uid, let deviceID):
            return SeatEffect(operation: "-", uid: uid, device: deviceID)
        case .releaseEveryone:
            return SeatEffect(operation: "E")
        case .none:
            return SeatEffect()
        }
    }

    private struct Keys {
        var sequence: String
        var epoch: String
        var log: String
        var checkpoint: String
    }

    private func keys(_ roomID: String) -> Keys {
        let base = "\(self.configuration.keyPrefix):room:\(roomID)"
        return Keys(sequence: base + ":seq", epoch: base + ":epoch", log: base + ":log", checkpoint: base + ":ckpt")
    }

    private func channel(_ roomID: String) -> String {
        "\(self.configuration.keyPrefix):room:\(roomID)"
    }

    private static let limits = JSONParser.Limits(
        maxInputBytes: 64 << 20, maxDepth: 32, maxStringBytes: 1 << 20, maxElementsPerContainer: 1 << 20,
        maxTotalNodes: 1 << 24
    )

    /// An entry as the script wrote it, with its epoch.
    private static func entry(_ bytes: [UInt8]) -> (RoomLogEntry, String)? {
        guard let value = try? JSONParser.parse(bytes, limits: Self.limits), let epoch = value["epoch"]?.stringValue,
            let entry = try? RoomLogEntry(wireValue: value)
        else { return nil }
        return (entry, epoch)
    }

    private static func text(_ value: RESPValue) -> String? {
        switch value {
        case .simpleString(let text): return text
        case .bulkString(let bytes?): return String(decoding: bytes, as: UTF8.self)
        default: return nil
        }
    }
}

@available(*, unavailable) extension RedisRoomLog: Sendable {}
