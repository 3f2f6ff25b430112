import HTTPClient
import Webhooks

/// Webhook endpoints and delivery rules as configured: each endpoint one block of keys (`webhooks.endpoint.NAME.*`),
/// the delivery rules shared by all.
public struct WebhookSettings: Sendable {
    /// The endpoints by name.
    public var endpoints: [String: WebhookEndpointSettings] = [:]
    /// The PEM file of certificates `https://` receivers must chain to; nil for the system's trust store.
    public var caFile: String?
    public var maximumBatch = 100
    public var timeoutMilliseconds: Int64 = 10_000
    public var retryBaseMilliseconds: Int64 = 500
    public var retryMaximumMilliseconds: Int64 = 60_000
    public var deadLetterAfterMilliseconds: Int64 = 3_600_000

    public init() {}
}

/// One webhook endpoint's block as configured: `[webhooks.endpoint.NAME]` with `url`, `secret`, `events` and
/// `rooms`.
public struct WebhookEndpointSettings: Sendable, Equatable {
    /// `http(s)://host[:port]/path`; required.
    public var url = ""
    /// The signing secret, at least 16 bytes; required.
    public var secret = ""
    /// The event names delivered; empty for every event.
    public var events: [String] = []
    /// The rooms delivered, by id or by prefix (`team-*`); empty for every room.
    public var rooms: [String] = []

    public init() {}
}

extension RollcallConfiguration {
    /// The webhooks' configuration, or nil when no endpoint is configured.
    ///
    /// - Throws: `ConfigError` for an endpoint without a URL or a secret, a bad URL, or endpoints without a store
    ///   or a cluster.
    func webhookConfiguration() throws(ConfigError) -> WebhookConfiguration? {
        let hooks = self.webhooks
        guard let first = hooks.endpoints.keys.min() else { return nil }
        guard !self.storage.path.isEmpty || !self.cluster.redisURL.isEmpty else {
            throw ConfigError(
                "\(Settings.endpointPrefix)\(first): webhooks are read from the embedded store's log (storage.path) "
                    + "or, in a cluster, from the shared log (cluster.redis_url); set one of them")
        }
        var endpoints: [WebhookEndpoint] = []
        for name in hooks.endpoints.keys.sorted() {
            let block = hooks.endpoints[name]!
            let key = Settings.endpointPrefix + name
            guard !block.url.isEmpty else {
                throw ConfigError("\(key).url: the endpoint has no URL (set \(key).url = http(s)://host[:port]/path)")
            }
            let url: HTTPURL
            do {
                url = try HTTPURL(block.url)
            } catch {
                throw ConfigError("\(key).url: \(error.description)")
            }
            guard block.secret.utf8.count >= 16 else {
                throw ConfigError("\(key).secret: the endpoint needs a signing secret of at least 16 bytes")
            }
            endpoints.append(
                WebhookEndpoint(
                    name: name, url: url, secret: Array(block.secret.utf8),
                    eventNames: block.events.isEmpty ? nil : Set(block.events),
                    roomPatterns: block.rooms.isEmpty ? nil : block.rooms))
        }
        return WebhookConfiguration(
            endpoints: endpoints, maximumBatch: hooks.maximumBatch, timeoutMilliseconds: hooks.timeoutMilliseconds,
            retryBaseMilliseconds: hooks.retryBaseMilliseconds,
            retryMaximumMilliseconds: hooks.retryMaximumMilliseconds,
            deadLetterAfterMilliseconds: hooks.deadLetterAfterMilliseconds,
            trustedCertificatesPath: hooks.caFile)
    }
}
