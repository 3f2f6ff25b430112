import ClusterCore
import JSONCoding
import RoomsTesting
import TokenAuth

@testable import Rooms

/// Gateways that are nodes of one cluster, in memory: each node is a `RoomsNodeHarness` (its own gateway and
/// transport) with an `InMemorySharedRoomLog`, all on one `InMemoryLogStore` and one manual clock.
///
/// Nothing in the store happens until it runs: `run()` runs every command, reply and delivery queued so far, in
/// order, and the helpers that send a request run it before they read the answer. Sending from two nodes before
/// running makes the two requests race, as two nodes that call Redis at the same moment. `advance` moves time for
/// every node and does what the timers of a real node do (the gateway's tick, the lease renewal, the poll).
final class ClusterHarness {
    /// One gateway of the cluster and its shared log.
    final class Node {
        let id: String
        let harness: RoomsNodeHarness
        let log: InMemorySharedRoomLog
        let store: InMemoryLogStore

        init(id: String, harness: RoomsNodeHarness, log: InMemorySharedRoomLog, store: InMemoryLogStore) {
            self.id = id
            self.harness = harness
            self.log = log
            self.store = store
        }

        var gateway: RoomsNode { self.harness.gateway }

        /// Opens an authenticated session and drains its welcome.
        func connect(_ uid: String, rooms: [String: TokenRole] = [:], groups: [String] = []) throws -> SessionID {
            let id = try self.harness.connect(uid, rooms: rooms, groups: groups)
            self.store.run()
            return id
        }

        /// Drains the session, sends a message, runs the store and returns what the session received (patches
        /// left out).
        @discardableResult
        func request(_ id: SessionID, _ message: JSONValue) -> [JSONValue] {
            _ = self.harness.drain(id)
            self.harness.send(id, message)
            self.store.run()
            return self.harness.drain(id)
        }

        /// Joins a room and returns the answer; throws unless it is an ack.
        @discardableResult
        func join(
            _ id: SessionID,
            _ room: String,
            device: String? = nil,
            as kind: String? = nil,
            resume: Int64? = nil
        ) throws -> [JSONValue] {
            let answer = self.request(id, Self.joinMessage(room, device: device, as: kind, resume: resume))
            guard answer.first?["type"] == "ack" else { throw HarnessError.unexpected("join refused: \(answer)") }
            return answer
        }

        /// A join request.
        static func joinMessage(
            _ room: String, device: String? = nil, as kind: String? = nil, resume: Int64? = nil
        )
            -> JSONValue
        {
            var fields: [(String, JSONValue)] = [("type", "join"), ("id", "join"), ("room", .string(room))]
            if let device { fields.append(("device", .string(device))) }
            if let kind { fields.append(("as", .string(kind))) }
            if let resume { fields.append(("resume", .int(resume))) }
            return .object(JSONObject(uniqueKeysWithValues: fields))
        }

        /// The room as this node holds it.
        func state(_ room: String) -> RoomState? {
            self.gateway.roomState(room)
        }
    }

    let clock = ManualClock()
    let store: InMemoryLogStore
    let nodes: [Node]

    /// - Parameters:
    ///   - nodeIDs: one node per id, in order.
    ///   - leaseMilliseconds: each node's lease.
    ///   - checkpointInterval: entries between checkpoints.
    ///   - configure: changes to every node's configuration (they must agree, as in a real cluster).
    init(
        nodeIDs: [String] = ["a", "b"],
        leaseMilliseconds: Int64 = 3_000,
        checkpointInterval: UInt64 = 100,
        configure: (inout RoomsConfiguration) -> Void = { _ in }
    ) throws {
        self.store = InMemoryLogStore(clock: self.clock)
        var nodes: [Node] = []
        for id in nodeIDs {
            let harness = try RoomsNodeHarness(clock: self.clock, configure: configure)
            let log = InMemorySharedRoomLog(
                store: self.store, nodeID: id, rules: SharedRoomRules(harness.gateway.configuration))
            log.leaseMilliseconds = leaseMilliseconds
            log.checkpointInterval = checkpointInterval
            harness.gateway.sharedLog = log
            log.start()
            nodes.append(Node(id: id, harness: harness, log: log, store: self.store))
        }
        self.nodes = nodes
        self.store.run()
    }

    var a: Node { self.nodes[0] }
    var b: Node { self.nodes[1] }

    /// Runs everything queued in the store, and what that queues, until nothing is left.
    func run() {
        self.store.run()
    }

    /// Moves time forward in steps: at each, every running node's gateway ticks, renews its lease and compares its
    /// rooms with the store, then the store runs.
    func advance(milliseconds: Int64, step: Int64 = 500) {
        var left = milliseconds
        while left > 0 {
            let elapsed = min(step, left)
            left -= elapsed
            self.clock.advance(milliseconds: elapsed)
            for node in self.nodes where node.log.isRunning {
                node.gateway.tick()
                node.log.renewLease()
                node.log.poll()
            }
            self.store.run()
        }
    }
}
