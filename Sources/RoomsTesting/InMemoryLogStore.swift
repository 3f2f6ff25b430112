import ClusterCore
import Rooms

/// The shared store of a cluster, in memory, for tests: every node of an in-memory cluster (one
/// `InMemorySharedRoomLog` per gateway) appends to it and follows it, as nodes do with Redis.
///
/// It keeps the Redis script's semantics (`RoomLogScript`): one sequence per room, appends all or none, the
/// `expectedSequence` condition, seats per class with capacity (`ERR_CALL_FULL`), device ownership, node leases
/// and the reaping of dead nodes' devices, retention and trimming (never past the checkpoint), checkpoints, and an
/// epoch that starts afresh when a room's records do.
///
/// Deterministic: no threads, time from the `ManualClock`. Nothing happens inside a call: commands, replies and
/// deliveries are queued, and run in order when the test calls `run()` (or `step()`). Knobs make the store
/// unreachable (`makeUnavailable()`), restart it (empty or with its data), drop deliveries to a node (a gap), and
/// let a node's lease lapse.
public final class InMemoryLogStore {
    let clock: ManualClock
    var rooms: [String: InMemoryRoomRecords] = [:]
    /// Live nodes by the end of their lease (`P:{nodes}`).
    var liveNodes: [String: Int64] = [:]
    /// Nodes past their lease by the end of the grace period (`P:dead`).
    var deadNodes: [String: Int64] = [:]
    /// The devices each node holds (`P:{nodes}:N:rooms`, with the devices of each room), by room.
    var nodeDevices: [String: Set<NodeDevice>] = [:]
    /// Counts the epochs made; kept across restarts so every epoch differs.
    var epochsMade = 0
    /// The nodes, by id, and the rooms each listens to.
    var nodes: [String: WeakNode] = [:]
    var subscriptions: [String: Set<String>] = [:]
    /// Deliveries still to drop, by node.
    var droppedDeliveries: [String: Int] = [:]
    /// Work waiting to run, in order; `next` is the first not run yet.
    private var queue: [() -> Void] = []
    private var next = 0
    /// Changes when the store restarts or becomes unreachable: work queued before then fails.
    private(set) var connection = 0

    /// A device a node holds: the room, the user and the device id.
    struct NodeDevice: Hashable, Comparable {
        var room: String
        var device: InMemoryRoomRecords.Device

        static func < (lhs: NodeDevice, rhs: NodeDevice) -> Bool {
            (lhs.room, lhs.device) < (rhs.room, rhs.device)
        }
    }

    /// A node, held weakly: the gateway owns its shared log.
    struct WeakNode {
        weak var node: InMemorySharedRoomLog?
    }

    /// Whether the store can be reached; see `makeUnavailable()`.
    public private(set) var isAvailable = true

    /// - Parameter clock: the clock of the test; entry times, leases and expiry follow it.
    public init(clock: ManualClock) {
        self.clock = clock
    }

    // MARK: Running

    /// Work queued and not run yet: commands, replies, deliveries.
    public var pendingWork: Int { self.queue.count - self.next }

    /// Runs the first piece of queued work; returns false when there was none.
    @discardableResult
    public func step() -> Bool {
        guard self.next < self.queue.count else { return false }
        let work = self.queue[self.next]
        self.next += 1
        if self.next == self.queue.count {
            self.queue.removeAll(keepingCapacity: true)
            self.next = 0
        }
        work()
        return true
    }

    /// Runs queued work, and the work it queues, until none is left.
    ///
    /// - Returns: how many pieces of work ran.
    @discardableResult
    public func run() -> Int {
        var count = 0
        while self.step() {
            count += 1
            precondition(count < 1_000_000, "the in-memory cluster does not settle")
        }
        return count
    }

    /// Queues work to run in order with the rest.
    func enqueue(_ work: @escaping () -> Void) {
        self.queue.append(work)
    }

    /// Queues a command of a node: `execute` runs in order with the rest if the store is still reachable on the
    /// same connection then; otherwise `failed` runs (the connection was lost, or the store restarted).
    func command(_ execute: @escaping () -> Void, failed: @escaping () -> Void) {
        guard self.isAvailable else {
            self.enqueue(failed)
            return
        }
        let connection = self.connection
        self.enqueue { [unowned self] in
            if self.isAvailable && self.connection == connection { execute() } else { failed() }
        }
    }

    // MARK: Knobs

    /// The store cannot be reached from now on: queued commands fail, nothing is delivered, every new command
    /// fails (`ERR_UNAVAILABLE`) until `makeAvailable()`.
    public func makeUnavailable() {
        self.isAvailable = false
        self.connection += 1
    }

    /// The store can be reached again: every running node reconnects (renews its lease, loads the rooms it could
    /// not, and reads what it missed), in the next run.
    public func makeAvailable() {
        guard !self.isAvailable else { return }
        self.isAvailable = true
        self.reconnectNodes()
    }

    /// Restarts the store: work on its way fails or is lost, and the nodes reconnect. Without its data (no
    /// persistence) every room's records start afresh under a new epoch, and every node's lease is gone.
    ///
    /// - Parameter keepingData: whether the data survives (Redis with `appendonly yes`).
    public func restart(keepingData: Bool = false) {
        self.connection += 1
        self.isAvailable = true
        if !keepingData {
            self.rooms = [:]
            self.liveNodes = [:]
            self.deadNodes = [:]
            self.nodeDevices = [:]
        }
        self.reconnectNodes()
    }

    /// Drops the next deliveries of published entries to a node, as a pub/sub connection that was down would.
    ///
    /// - Parameters:
    ///   - nodeID: the node.
    ///   - count: how many deliveries to drop.
    public func dropDeliveries(to nodeID: String, count: Int = 1) {
        self.droppedDeliveries[nodeID, default: 0] += count
    }

    /// Ends a node's lease now, as if it had stopped renewing: the next renewal by any other node reaps it.
    ///
    /// - Parameter nodeID: the node.
    public func lapseLease(of nodeID: String) {
        if self.liveNodes[nodeID] != nil { self.liveNodes[nodeID] = self.clock.now }
    }

    private func reconnectNodes() {
        for (_, weakNode) in self.nodes.sorted(by: { $0.key < $1.key }) {
            guard let node = weakNode.node, node.isRunning else { continue }
            self.enqueue { node.storeReconnected() }
        }
    }

    // MARK: Inspection

    /// The room's last sequence number (0 when it has no records).
    ///
    /// - Parameter roomID: the room.
    public func sequence(of roomID: String) -> UInt64 {
        self.records(roomID)?.sequence ?? 0
    }

    /// The epoch of the room's records; nil when it has none.
    ///
    /// - Parameter roomID: the room.
    public func epoch(of roomID: String) -> String? {
        self.records(roomID)?.epoch
    }

    /// The sequence numbers of the entries the room's log retains, oldest first.
    ///
    /// - Parameter roomID: the room.
    public func retainedSequences(of roomID: String) -> [UInt64] {
        self.records(roomID)?.log.map(\.sequence) ?? []
    }

    /// The sequence number of the room's checkpoint; nil when it has none.
    ///
    /// - Parameter roomID: the room.
    public func checkpointSequence(of roomID: String) -> UInt64? {
        self.records(roomID)?.checkpoint?.sequence
    }

    /// The users holding a seat of the room's capacity (participants and viewers) and of the reserved seats.
    ///
    /// - Parameter roomID: the room.
    public func seatHolders(in roomID: String) -> (participants: Set<String>, reserved: Set<String>) {
        let records = self.records(roomID)
        return (
            Set(records?.seats[.participant]?.keys.map { $0 } ?? []),
            Set(records?.seats[.reserved]?.keys.map { $0 } ?? [])
        )
    }

    /// The node holding a device in the room; nil when the device is not in the call.
    ///
    /// - Parameters:
    ///   - uid: the user.
    ///   - device: the device id.
    ///   - roomID: the room.
    public func owner(of uid: String, device: String, in roomID: String) -> String? {
        self.records(roomID)?.owners[InMemoryRoomRecords.Device(uid: uid, device: device)]
    }

    /// Whether the node holds a lease that has not been reaped.
    ///
    /// - Parameter nodeID: the node.
    public func isLive(_ nodeID: String) -> Bool {
        self.liveNodes[nodeID] != nil
    }

    /// The room's records unless they expired (expired ones are dropped, as Redis drops expired keys).
    func records(_ roomID: String) -> InMemoryRoomRecords? {
        guard let records = self.rooms[roomID] else { return nil }
        if let expiresAt = records.expiresAt, self.clock.now > expiresAt {
            self.rooms[roomID] = nil
            return nil
        }
        return records
    }

    // MARK: Nodes and pub/sub

    /// Registers a node (its shared log), for deliveries and reconnects.
    func register(_ node: InMemorySharedRoomLog) {
        precondition(self.nodes[node.nodeID]?.node == nil, "two nodes with the id \(node.nodeID)")
        self.nodes[node.nodeID] = WeakNode(node: node)
    }

    func subscribe(_ nodeID: String, to roomID: String) {
        self.subscriptions[nodeID, default: []].insert(roomID)
    }

    func unsubscribe(_ nodeID: String, from roomID: String) {
        self.subscriptions[nodeID]?.remove(roomID)
    }

    /// Publishes an entry to every running node that listens to the room, each delivery queued on its own.
    func publish(_ bytes: [UInt8], in roomID: String) {
        let connection = self.connection
        for (nodeID, weakNode) in self.nodes.sorted(by: { $0.key < $1.key }) {
            guard let node = weakNode.node, node.isRunning, self.subscriptions[nodeID]?.contains(roomID) == true else {
                continue
            }
            if let dropped = self.droppedDeliveries[nodeID], dropped > 0 {
                self.droppedDeliveries[nodeID] = dropped - 1
                continue
            }
            self.enqueue { [unowned self] in
                guard self.connection == connection, self.subscriptions[nodeID]?.contains(roomID) == true else {
                    return
                }
                node.received(bytes, in: roomID)
            }
        }
    }

    /// Asks every other running node to disconnect a user.
    func publishDisconnect(uid: String, reason: String?, from sender: String) {
        for (nodeID, weakNode) in self.nodes.sorted(by: { $0.key < $1.key }) where nodeID != sender {
            guard let node = weakNode.node, node.isRunning else { continue }
            self.enqueue { node.delegate?.sharedLogDisconnect(uid: uid, reason: reason) }
        }
    }

    /// Publishes a signal to every other running node that listens to the room, each delivery queued on its own.
    func publishSignal(_ signal: RoomSignal, in roomID: String, from sender: String) {
        for (nodeID, weakNode) in self.nodes.sorted(by: { $0.key < $1.key }) where nodeID != sender {
            guard let node = weakNode.node, node.isRunning, self.subscriptions[nodeID]?.contains(roomID) == true else {
                continue
            }
            self.enqueue { node.delegate?.sharedLogReceived(signal, room: roomID) }
        }
    }
}

@available(*, unavailable) extension InMemoryLogStore: Sendable {}
