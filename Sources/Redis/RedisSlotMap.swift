/// Which primary serves each of a Redis Cluster's 16384 hash slots, read from a `CLUSTER SLOTS` reply.
public struct RedisSlotMap: Hashable, Sendable {
    /// The primaries, sorted: every node some slot is served by.
    public private(set) var primaries: [RedisNodeAddress]
    /// Per slot, the index of its primary in `primaries`; -1 for a slot nobody serves.
    private var owners: [Int16]

    /// An empty map: no slot is served.
    public init() {
        self.primaries = []
        self.owners = Array(repeating: -1, count: RedisKeySlot.count)
    }

    /// Reads a `CLUSTER SLOTS` reply: one entry per slot range, `[start, end, [host, port, id, ...], replicas...]`.
    ///
    /// - Parameters:
    ///   - reply: the reply.
    ///   - askedNode: the node that answered; a primary written with an empty host (a node that does not know the
    ///     address it is reached at) is taken to be on this node's host.
    /// - Returns: nil when the reply is not a `CLUSTER SLOTS` reply.
    public init?(clusterSlots reply: RESPValue, askedNode: RedisNodeAddress) {
        guard case .array(let ranges?) = reply else { return nil }
        var assignments: [(range: ClosedRange<Int>, primary: RedisNodeAddress)] = []
        for range in ranges {
            guard case .array(let fields?) = range, fields.count >= 3, case .integer(let start) = fields[0],
                case .integer(let end) = fields[1], 0 <= start, start <= end, end < RedisKeySlot.count,
                case .array(let node?) = fields[2], node.count >= 2, case .integer(let port) = node[1],
                (1...65_535).contains(port)
            else { return nil }
            let host: String
            switch node[0] {
            case .bulkString(let bytes?): host = String(decoding: bytes, as: UTF8.self)
            case .simpleString(let text): host = text
            default: return nil
            }
            let address = RedisNodeAddress(host: host.isEmpty || host == "?" ? askedNode.host : host, port: Int(port))
            assignments.append((Int(start)...Int(end), address))
        }
        self.init()
        self.primaries = Array(Set(assignments.map(\.primary))).sorted()
        for (range, primary) in assignments {
            let index = Int16(self.primaries.firstIndex(of: primary)!)
            for slot in range { self.owners[slot] = index }
        }
    }

    /// The primary serving `slot`, nil when none does.
    ///
    /// - Parameter slot: a slot, 0 to 16383.
    public func primary(of slot: Int) -> RedisNodeAddress? {
        let index = self.owners[slot]
        return index < 0 ? nil : self.primaries[Int(index)]
    }

    /// Whether every slot is served.
    public var coversEverySlot: Bool { !self.owners.contains(-1) }

    /// Records that `slot` is now served by `primary` (after a `MOVED`), until the next full refresh.
    ///
    /// - Parameters:
    ///   - slot: the slot.
    ///   - primary: its new primary.
    public mutating func assign(_ slot: Int, to primary: RedisNodeAddress) {
        if let index = self.primaries.firstIndex(of: primary) {
            self.owners[slot] = Int16(index)
        } else {
            self.primaries.append(primary)
            self.owners[slot] = Int16(self.primaries.count - 1)
        }
    }
}
