/// Where a single-process gateway keeps its rooms so that they outlive the process: each room's applied log entries
/// (with the event message subscribers got), its checkpoints, and what the history and audit read beyond memory.
///
/// A port with two sides: the embedded SQLite store of the `Storage` module, and the in-memory store of
/// `RoomsTesting` for deterministic restart scenarios. The gateway calls it on its own thread only. Writes are
/// buffered until `commit()`, which the process that runs the gateway calls once per iteration of the gateway's
/// loop, before the answers that acknowledge the writes go out (group commit).
public protocol RoomStore: AnyObject {
    /// Reads a room as it was last committed: a checkpoint and the entries after it, contiguous, so that the
    /// checkpoint with the entries applied in order gives the room's state; nil when the store knows no such room.
    ///
    /// - Parameters:
    ///   - room: the room id.
    ///   - maximumEntries: the most entries to return; the checkpoint is chosen so that the entries after it
    ///     stay within this bound where a checkpoint allows it (older ones stay readable through `history`).
    /// - Throws: `RoomStoreError` when the stored records cannot be read or do not fit together.
    func loadRoom(_ room: String, maximumEntries: Int) throws(RoomStoreError) -> StoredRoom?

    /// Buffers an applied entry for the next commit.
    ///
    /// - Parameters:
    ///   - entry: the entry, its event's wire name and the message subscribers got.
    ///   - room: the room id.
    func append(_ entry: StoredLogEntry, room: String)

    /// Buffers a checkpoint (the room's replica right after its last applied entry) for the next commit.
    ///
    /// - Parameter replica: the replica; its state names the room.
    func writeCheckpoint(_ replica: RoomReplica)

    /// Writes everything buffered since the last commit, all or nothing; a failed commit keeps the buffer for the
    /// next try.
    ///
    /// - Throws: `RoomStoreError` when the store cannot be written.
    func commit() throws(RoomStoreError)

    /// Committed entries of a room after a sequence number, oldest first, as retention left them (meeting messages
    /// and moderation are kept longer than roster changes, so the result may have gaps).
    ///
    /// - Parameters:
    ///   - room: the room id.
    ///   - after: return entries with a larger sequence number.
    ///   - eventNames: only events with these wire names (`participant.joined`, ...); nil for every event.
    ///   - limit: the most entries to return.
    /// - Throws: `RoomStoreError` when the store cannot be read.
    func history(
        room: String, after: UInt64, eventNames: Set<String>?, limit: Int
    ) throws(RoomStoreError) -> [StoredLogEntry]

    /// The newest committed checkpoint of a room at or before a sequence number, for rebuilding the room as it was
    /// then (an exact resume from before what memory holds).
    ///
    /// - Parameters:
    ///   - room: the room id.
    ///   - sequence: the checkpoint's sequence number must not be after this one.
    /// - Returns: the replica at the checkpoint; nil when the store keeps no such checkpoint (the room is then
    ///   rebuilt from its first entry, if the store still holds it).
    /// - Throws: `RoomStoreError` when the store cannot be read.
    func checkpoint(room: String, atOrBefore sequence: UInt64) throws(RoomStoreError) -> RoomReplica?

    /// Committed moderation entries (`RoomLogEntry.retentionClass == .moderation`), newest first.
    ///
    /// - Parameters:
    ///   - room: only this room; nil for every room.
    ///   - before: only entries older than this time, in milliseconds (for paging); nil for the newest.
    ///   - limit: the most entries to return.
    /// - Throws: `RoomStoreError` when the store cannot be read.
    func audit(
        room: String?, before: Int64?, limit: Int
    ) throws(RoomStoreError) -> [(room: String, entry: StoredLogEntry)]

    /// The rooms the store knows with their last committed sequence number, ordered by id, for listings.
    ///
    /// - Parameters:
    ///   - after: only rooms whose id sorts after this one (for paging); nil from the start.
    ///   - limit: the most rooms to return.
    /// - Throws: `RoomStoreError` when the store cannot be read.
    func rooms(after: String?, limit: Int) throws(RoomStoreError) -> [(room: String, sequence: UInt64)]
}
