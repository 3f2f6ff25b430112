import HTTPClient
import Rooms
import Storage
import Webhooks

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

/// Webhook endpoints and delivery rules as configured. Every per-endpoint list is `name=value`, comma-separated.
public struct WebhookSettings: Sendable {
    /// `name=URL` per endpoint.
    public var endpoints: [String] = []
    /// `name:secret` per endpoint.
    public var secrets: [String] = []
    /// `name=event|event` per endpoint (optional).
    public var events: [String] = []
    /// `name=room|prefix*` per endpoint (optional).
    public var rooms: [String] = []
    /// The PEM file of certificates `https://` receivers must chain to; nil for the system's trust store.
    public var caFile: String?
    public var maximumBatch = 100
    public var timeoutMilliseconds: Int64 = 10_000
    public var retryBaseMilliseconds: Int64 = 500
    public var retryMaximumMilliseconds: Int64 = 60_000
    public var deadLetterAfterMilliseconds: Int64 = 3_600_000

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

    /// The webhooks' configuration, or nil when no endpoint is configured.
    ///
    /// - Throws: `ConfigError` for an endpoint without a secret, a bad URL, a filter for an unknown endpoint, or
    ///   endpoints without a store or a cluster.
    func webhookConfiguration() throws(ConfigError) -> WebhookConfiguration? {
        let hooks = self.webhooks
        guard !hooks.endpoints.isEmpty else {
            if !hooks.secrets.isEmpty || !hooks.events.isEmpty || !hooks.rooms.isEmpty {
                throw ConfigError("webhooks.endpoints: secrets or filters are set, but no endpoint")
            }
            return nil
        }
        guard !self.storage.path.isEmpty || !self.cluster.redisURL.isEmpty else {
            throw ConfigError(
                "webhooks.endpoints: webhooks are read from the embedded store's log (storage.path) or, in a "
                    + "cluster, from the shared log (cluster.redis_url); set one of them")
        }
        func pairs(_ items: [String], _ key: String, separator: Character) throws(ConfigError) -> [String: String] {
            var found: [String: String] = [:]
            for item in items {
                guard let split = item.firstIndex(of: separator), split != item.startIndex else {
                    throw ConfigError("\(key): '\(item.prefix(24))' is not name\(separator)value")
                }
                found[String(item[..<split])] = String(item[item.index(after: split)...])
            }
            return found
        }
        let urls = try pairs(hooks.endpoints, "webhooks.endpoints", separator: "=")
        let secrets = try pairs(hooks.secrets, "webhooks.secrets", separator: ":")
        let events = try pairs(hooks.events, "webhooks.events", separator: "=")
        let rooms = try pairs(hooks.rooms, "webhooks.rooms", separator: "=")
        for (key, names) in [
            ("webhooks.secrets", secrets.keys), ("webhooks.events", events.keys), ("webhooks.rooms", rooms.keys),
        ] {
            for name in names where urls[name] == nil { throw ConfigError("\(key): no endpoint named '\(name)'") }
        }
        var endpoints: [WebhookEndpoint] = []
        for name in urls.keys.sorted() {
            guard name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else {
                throw ConfigError("webhooks.endpoints: '\(name)' must be letters, digits, - and _")
            }
            let url: HTTPURL
            do {
                url = try HTTPURL(urls[name]!)
            } catch {
                throw ConfigError("webhooks.endpoints: \(name): \(error.description)")
            }
            guard let secret = secrets[name], secret.utf8.count >= 16 else {
                throw ConfigError("webhooks.secrets: endpoint '\(name)' needs a secret of at least 16 bytes")
            }
            endpoints.append(
                WebhookEndpoint(
                    name: name, url: url, secret: Array(secret.utf8),
                    eventNames: events[name].map { Set($0.split(separator: "|").map(String.init)) },
                    roomPatterns: rooms[name].map { $0.split(separator: "|").map(String.init) }))
        }
        return WebhookConfiguration(
            endpoints: endpoints, maximumBatch: hooks.maximumBatch, timeoutMilliseconds: hooks.timeoutMilliseconds,
            retryBaseMilliseconds: hooks.retryBaseMilliseconds,
            retryMaximumMilliseconds: hooks.retryMaximumMilliseconds,
            deadLetterAfterMilliseconds: hooks.deadLetterAfterMilliseconds,
            trustedCertificatesPath: hooks.caFile)
    }
}
