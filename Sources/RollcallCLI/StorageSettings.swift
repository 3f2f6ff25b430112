import Rooms
import Storage

/// The embedded store's settings as configured; `path` empty keeps rooms in memory only.
public struct StorageSettings: Sendable {
    /// The SQLite file; empty: no store (tests and benchmarks).
    public var path = ""
    public var sync = StorageSync.normal
    /// A room's checkpoint every this many events.
    public var checkpointInterval = 100
    public var rosterRetention = StorageConfiguration.defaultRetention[.roster]!
    public var meetingRetention = StorageConfiguration.defaultRetention[.meeting]!
    public var moderationRetention = StorageConfiguration.defaultRetention[.moderation]!

    public init() {}
}

extension RollcallConfiguration {
    /// The store's configuration, or nil without `storage.path`.
    ///
    /// - Throws: `ConfigError` when a store is combined with a cluster.
    func storageConfiguration() throws(ConfigError) -> StorageConfiguration? {
        guard !self.storage.path.isEmpty else { return nil }
        guard self.cluster.redisURL.isEmpty else {
            throw ConfigError(
                "storage.path: the embedded store is for a single process; in a cluster (cluster.redis_url) the rooms "
                    + "live in Redis. Set storage.path empty (--set storage.path=) or leave cluster mode")
        }
        return StorageConfiguration(
            path: self.storage.path, sync: self.storage.sync,
            retention: [
                .roster: self.storage.rosterRetention, .meeting: self.storage.meetingRetention,
                .moderation: self.storage.moderationRetention,
            ],
            undeliveredGraceMilliseconds: self.webhooks.deadLetterAfterMilliseconds)
    }
}
