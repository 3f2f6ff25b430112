/// The names of a cluster's keys and channels in Redis, under its key prefix (`RoomLogScript` lists them all).
struct RedisRoomKeys {
    /// The keys of one room that a node reads.
    struct Room {
        /// The room's last sequence number.
        var sequence: String
        /// The epoch of the room's records.
        var epoch: String
        /// The room's log, a stream.
        var log: String
        /// The room's latest checkpoint, a hash.
        var checkpoint: String
    }

    /// The prefix of every key and channel.
    let prefix: String

    /// The keys of a room.
    func room(_ roomID: String) -> Room {
        let base = "\(self.prefix):room:\(roomID)"
        return Room(sequence: base + ":seq", epoch: base + ":epoch", log: base + ":log", checkpoint: base + ":ckpt")
    }

    /// The channel a room's entries are published on.
    func channel(_ roomID: String) -> String {
        "\(self.prefix):room:\(roomID)"
    }

    /// What every room channel starts with.
    var roomChannelPrefix: [UInt8] { Array("\(self.prefix):room:".utf8) }

    /// Every room by the time of its last entry, a sorted set.
    var rooms: String { "\(self.prefix):rooms" }

    /// The rooms where a node took devices, a set: what the reaper looks at when the node's lease runs out.
    func nodeRooms(_ nodeID: String) -> String { "\(self.prefix):node:\(nodeID):rooms" }

    /// What every room key starts with (`P:room:`).
    var roomKeyPrefix: String { "\(self.prefix):room:" }

    /// A webhook endpoint's lease, cursor and dead letters (`WebhookScript`).
    func webhook(_ endpoint: String) -> (lease: String, cursor: String, dead: String) {
        let base = "\(self.prefix):hook:\(endpoint)"
        return (base + ":lease", base + ":cursor", base + ":dead")
    }

    /// The channel for messages to every node (not about one room's log).
    var controlChannel: String { "\(self.prefix):control" }
}
