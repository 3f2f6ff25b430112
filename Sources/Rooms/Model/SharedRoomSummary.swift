/// One room of a cluster's shared log as the cluster-wide listing gives it.
public struct SharedRoomSummary: Hashable, Sendable {
    /// The room id.
    public var room: String
    /// Its last sequence number.
    public var sequence: UInt64
    /// Users joined (a user with several devices counts once), over every node.
    public var participants: Int

    /// - Parameters:
    ///   - room: the room id.
    ///   - sequence: its last sequence number.
    ///   - participants: users joined, over every node.
    public init(room: String, sequence: UInt64, participants: Int) {
        self.room = room
        self.sequence = sequence
        self.participants = participants
    }
}
