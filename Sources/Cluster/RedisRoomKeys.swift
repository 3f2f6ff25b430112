/// The names of a cluster's keys and channels in Redis, under its key prefix (`RoomLogScript` lists them all).
///
/// Every key and the channel of a room carry the room as a hash tag (`P:room:{R}:log`), so in a Redis Cluster they
/// share one slot; the nodes' records share the slot of `{nodes}`, and each webhook endpoint's keys the slot of its
/// name (`P:hook:{E}:cursor`).
struct RedisRoomKeys {
    /// The keys of one room that a node reads.
    struct Room {
        /// The base every key of the room starts with, `P:room:{R}`: the scripts' routing key.
        var base: String
        /// The room's last sequence number.
        var sequence: String
        /// The epoch of the room's records.
        var epoch: String
        /// The room's log, a stream.
        var log: String
        /// The room's latest checkpoint, a hash.
        var checkpoint: String
        /// The room's joined users, by seat class (participants, reserved).
        var seats: (participants: String, reserved: String)
    }

    /// The prefix of every key and channel.
    let prefix: String

    /// The keys of a room.
    func room(_ roomID: String) -> Room {
        let base = "\(self.prefix):room:{\(roomID)}"
        return Room(
            base: base, sequence: base + ":seq", epoch: base + ":epoch", log: base + ":log",
            checkpoint: base + ":ckpt", seats: (base + ":seats:p", base + ":seats:r"))
    }

    /// The channel a room's entries are published on (a shard channel in a Redis Cluster, in the room's slot).
    func channel(_ roomID: String) -> String {
        "\(self.prefix):room:{\(roomID)}"
    }

    /// The room a channel (or a room's sequence key, with its suffix dropped first) belongs to; nil for another.
    func room(ofChannel channel: some BidirectionalCollection<UInt8>) -> String? {
        let prefix = self.roomKeyPrefix.utf8
        guard channel.starts(with: prefix), channel.last == UInt8(ascii: "}"), channel.count > prefix.count else {
            return nil
        }
        return String(decoding: channel.dropFirst(prefix.count).dropLast(), as: UTF8.self)
    }

    /// Every room by the time of its last entry, a sorted set.
    var rooms: String { "\(self.prefix):rooms" }

    /// Live nodes by lease end, a sorted set: the routing key of the lease calls.
    var nodes: String { "\(self.prefix):{nodes}" }

    /// The rooms where a node took devices, a set: what the reaper looks at when the node's lease runs out.
    func nodeRooms(_ nodeID: String) -> String { "\(self.prefix):{nodes}:\(nodeID):rooms" }

    /// What every room key and channel starts with (`P:room:{`).
    var roomKeyPrefix: String { "\(self.prefix):room:{" }

    /// A webhook endpoint's lease, cursor and dead letters (`WebhookScript`).
    func webhook(_ endpoint: String) -> (lease: String, cursor: String, dead: String) {
        let base = "\(self.prefix):hook:{\(endpoint)}"
        return (base + ":lease", base + ":cursor", base + ":dead")
    }

    /// A channel a node probes its own subscription on: a shard channel, as a room's is, in the slot of its hash tag
    /// (`P:probe:{N.i}`, node N, the i-th tried for a primary of a Redis Cluster).
    func probeChannel(node: String, _ index: Int) -> String {
        "\(self.prefix):probe:{\(node).\(index)}"
    }

    /// The channel for messages to every node (not about one room's log): ordinary pub/sub, which a Redis Cluster
    /// delivers on every node.
    var controlChannel: String { "\(self.prefix):control" }
}
