import Cluster
import ClusterCore
import EventIO
import GatewayWebSocket
import Rooms

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
        rooms: GatewayConfiguration,
        logger: GatewayLogger
    ) -> ((EventLoop) -> any SharedLogService)? {
        guard let cluster else { return nil }
        return { loop in
            let sharedLog = RedisRoomLog(configuration: cluster, rules: SharedRoomRules(rooms), loop: loop)
            sharedLog.log = { message in logger.log(.warn, message, [("node", cluster.nodeID)]) }
            return sharedLog
        }
    }
}
