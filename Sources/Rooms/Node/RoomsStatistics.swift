/// What the gateway has done, for metrics and tests. With several rooms threads each gateway counts its own; a
/// counter shown in `/metrics` is one entry in the table of metrics (`Metrics` in `RollcallServer`), which adds the
/// threads' values up.
public struct RoomsStatistics: Hashable, Sendable {
    /// Events appended to room logs.
    public var events = 0
    /// Roster patches computed and sent (one per view per flush, however many subscribers share it).
    public var patches = 0
    /// Bytes of those patches.
    public var patchBytes = 0
    /// Patch messages queued to subscribers.
    public var patchDeliveries = 0
    /// Changes that joined a coalescing window already open.
    public var coalescedChanges = 0
    /// Resumes served from history, and those that needed a fresh snapshot.
    public var resumesRecovered = 0
    public var resumesNotRecovered = 0
    /// Fresh snapshots sent to subscribers that fell behind, and subscribers closed for not reading.
    public var resyncSnapshots = 0
    public var slowSubscribersClosed = 0
    /// Rooms forgotten after nobody was in them for the history's maximum age.
    public var roomsExpired = 0
    /// In a cluster: appends the shared log could not take (its store unreachable), rooms reloaded from it after
    /// a gap, and entries applied from it.
    public var sharedLogFailures = 0
    public var sharedLogReloads = 0
    public var sharedLogEntries = 0
    /// With a room store: rooms read back from it, and reads that failed (answered `ERR_UNAVAILABLE`).
    public var roomsLoaded = 0
    public var storeFailures = 0
    /// With a room store: requests refused with `ERR_UNAVAILABLE` while it could not commit.
    public var storeRefusals = 0

    public init() {}
}
