import Cluster
import ClusterCore
import EventIO
import RollcallServer
import Rooms
import Webhooks

/// Cluster mode's wiring for `rollcall serve`: the shared room log in Redis, made on the gateway's event loop.
enum ClusterWiring {
    /// What makes the shared room log for `GatewayRuntime`, or nil in the single-process default.
    ///
    /// - Parameters:
    ///   - cluster: cluster mode's settings; nil for a single process.
    ///   - rooms: the rooms layer's settings (capacity, reserved seats, grace period and history apply to the
    ///     shared records).
    ///   - logger: where the shared log's warnings go, with this node's id.
    static func sharedLog(
        _ cluster: ClusterConfiguration?,
        rooms: RoomsConfiguration,
        logger: GatewayLogger
    ) -> ((EventLoop) -> any SharedLogService)? {
        guard let cluster else { return nil }
        return { loop in
            let sharedLog = RedisRoomLog(configuration: cluster, rules: SharedRoomRules(rooms), loop: loop)
            sharedLog.log = { message in logger.log(.warn, message, [("node", cluster.nodeID)]) }
            return sharedLog
        }
    }

    /// Webhook deliveries in cluster mode: read from the shared log in Redis, one node at a time per endpoint.
    ///
    /// - Parameters:
    ///   - hooks: the endpoints and delivery rules.
    ///   - cluster: cluster mode's settings (Redis, key prefix, node id; the endpoints' leases last `lease_ms`).
    ///   - speakerRule: the rooms' speaker rule, for the speaking times of the attendance report.
    /// - Throws: `WebhookConfigurationError` when the TLS client context cannot be made.
    static func webhooks(
        _ hooks: WebhookConfiguration, cluster: ClusterConfiguration, speakerRule: SpeakerRule
    ) throws(WebhookConfigurationError) -> WebhookDispatcher {
        try WebhookDispatcher(
            configuration: hooks,
            feed: { loop in
                let feed = RedisWebhookFeed(configuration: cluster, loop: loop, speakerRule: speakerRule)
                feed.log = { message in Log.gatewayLogger.log(.warn, message, [("node", cluster.nodeID)]) }
                return feed
            },
            log: { message, fields in Log.gatewayLogger.log(.warn, message, fields + [("node", cluster.nodeID)]) })
    }
}
