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

    /// The counters of two connections to one file (rooms threads) together: counts added, failing when either is.
    ///
    /// - Parameter other: the other connection's counters.
    /// - Returns: the sum.
    public func combined(with other: StorageStatistics) -> StorageStatistics {
        var sum = StorageStatistics()
        sum.commits = self.commits + other.commits
        sum.commitFailures = self.commitFailures + other.commitFailures
        sum.isFailing = self.isFailing || other.isFailing
        sum.entriesWritten = self.entriesWritten + other.entriesWritten
        sum.checkpointsWritten = self.checkpointsWritten + other.checkpointsWritten
        sum.entriesTrimmed = self.entriesTrimmed + other.entriesTrimmed
        return sum
    }
}
