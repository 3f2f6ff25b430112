import Rooms

/// Settings of the embedded store: the file, how commits reach the disk, and how long each class of event stays.
public struct StorageConfiguration: Hashable, Sendable {
    /// The SQLite database file; its write-ahead log and shared-memory files sit next to it (`-wal`, `-shm`).
    public var path: String
    /// How hard each commit pushes to the disk.
    public var sync: StorageSync
    /// How many entries and how old, per room and per retention class, the store keeps. Entries are only dropped
    /// behind a room's latest checkpoint, so a room can always be read back.
    public var retention: [RetentionClass: HistoryRetention]
    /// How long an undelivered entry is kept for webhook endpoints beyond its retention, in milliseconds (the
    /// webhooks' dead-letter time).
    public var undeliveredGraceMilliseconds: Int64

    /// - Parameters:
    ///   - path: the database file.
    ///   - sync: default `normal`.
    ///   - retention: default roster changes 1,000 per room for an hour, meeting messages 10,000 for 30 days,
    ///     moderation 10,000 for 90 days.
    ///   - undeliveredGraceMilliseconds: default one hour.
    public init(
        path: String,
        sync: StorageSync = .normal,
        retention: [RetentionClass: HistoryRetention] = StorageConfiguration.defaultRetention,
        undeliveredGraceMilliseconds: Int64 = 3_600_000
    ) {
        self.path = path
        self.sync = sync
        self.retention = retention
        self.undeliveredGraceMilliseconds = undeliveredGraceMilliseconds
    }

    /// Roster changes 1,000 per room for an hour, meeting messages 10,000 for 30 days, moderation 10,000 for 90 days.
    public static let defaultRetention: [RetentionClass: HistoryRetention] = [
        .roster: HistoryRetention(maximumEntries: 1000, maximumAgeMilliseconds: 3_600_000),
        .meeting: HistoryRetention(maximumEntries: 10_000, maximumAgeMilliseconds: 30 * 86_400_000),
        .moderation: HistoryRetention(maximumEntries: 10_000, maximumAgeMilliseconds: 90 * 86_400_000),
    ]
}
