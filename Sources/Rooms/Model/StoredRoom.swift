/// A room as a `RoomStore` returns it: a checkpoint and the entries after it, contiguous.
public struct StoredRoom: Hashable, Sendable {
    /// The replica the entries start after; nil when they start at sequence number 1.
    public var checkpoint: RoomReplica?
    /// The entries after the checkpoint, oldest first, without gaps.
    public var entries: [StoredLogEntry]

    /// - Parameters:
    ///   - checkpoint: the replica the entries start after, nil for a log that starts at 1.
    ///   - entries: the entries after it, oldest first, without gaps.
    public init(checkpoint: RoomReplica?, entries: [StoredLogEntry]) {
        self.checkpoint = checkpoint
        self.entries = entries
    }
}
