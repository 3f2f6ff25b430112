/// What the embedded store has done, for metrics.
public struct StorageStatistics: Hashable, Sendable {
    /// Transactions committed (one per iteration of the rooms thread that changed something).
    public var commits = 0
    /// Commits that failed (their writes are kept and tried again at the next commit).
    public var commitFailures = 0
    /// Whether the last commit failed: from then until one succeeds, the store holds writes it could not commit.
    public var isFailing = false
    /// Log entries and checkpoints in committed transactions (a failed commit's are counted once, when their retry
    /// commits).
    public var entriesWritten = 0
    public var checkpointsWritten = 0
    /// Entries and checkpoints dropped by retention.
    public var entriesTrimmed = 0

    /// All zero.
    public init() {}
}
