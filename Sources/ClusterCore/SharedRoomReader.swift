/// How a `SharedLogFollower` reads a room's records from the shared store: the node's store side (Redis, or the
/// in-memory store of tests) carries each read out and hands the answer back to the follower, on the same thread.
public protocol SharedRoomReader: AnyObject {
    /// Reads the room's checkpoint, epoch and retained entries; the answer goes to `SharedLogFollower.loaded` or
    /// `SharedLogFollower.loadFailed` with the same generation.
    ///
    /// - Parameters:
    ///   - room: the room.
    ///   - generation: the load's number, handed back with the answer.
    func readRoom(_ room: String, generation: Int)

    /// Reads at most `SharedLogFollower.fetchLimit` entries from `sequence` on; the answer goes to
    /// `SharedLogFollower.fetched` with the same generation.
    ///
    /// - Parameters:
    ///   - room: the room.
    ///   - sequence: the first sequence number wanted.
    ///   - generation: the room's load number, handed back with the answer.
    func readEntries(of room: String, from sequence: UInt64, generation: Int)

    /// The room could not be loaded and is no longer followed: stop listening for its entries.
    ///
    /// - Parameter room: the room.
    func stopListening(to room: String)
}
