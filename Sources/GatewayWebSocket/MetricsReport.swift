import Rooms
import Storage
import WebSocketServer
import Webhooks

/// Everything `/metrics` shows, gathered at one scrape, and its rendering in the Prometheus text format.
struct MetricsReport {
    let server: ServerStatistics?
    let gateway: GatewayStatistics
    let rooms: Int
    let sessions: Int
    let subscribers: Int
    let latency: (cumulative: [Int], count: Int, sumSeconds: Double)
    /// Compression of room messages (permessage-deflate), once per message and compressor setting.
    let compression: LoopTransport.CompressionStatistics
    /// Cluster mode's shared log: its counters and whether its store (Redis) is reachable; nil for a single process.
    var cluster: (statistics: SharedLogStatistics, connected: Bool)?
    /// The embedded store's counters; nil without a store.
    var storage: StorageStatistics?
    /// Each webhook endpoint's counters.
    var webhooks: [WebhookStatistics] = []

    func render() -> String {
        var out = PrometheusText()
        if let server = self.server { self.renderTransport(server, into: &out) }

        out.single(
            "rollcall_rooms", "gauge",
            "Rooms held in memory: created or used since the start (a stored room nobody used since is not counted).",
            self.rooms)
        out.single("rollcall_sessions", "gauge", "Rooms-protocol connections known to the gateway.", self.sessions)
        out.single(
            "rollcall_subscribers", "gauge",
            "Room subscriptions (participants and observers); a connection in two rooms counts twice.",
            self.subscribers)
        out.single("rollcall_room_events_total", "counter", "Events appended to room logs.", self.gateway.events)
        out.single(
            "rollcall_patches_sent_total", "counter",
            "Roster patches computed and sent, one per view and flush however many subscribers share it.",
            self.gateway.patches)
        out.single(
            "rollcall_patch_bytes_total", "counter", "Bytes of those patches, counted once per patch.",
            self.gateway.patchBytes)
        out.single(
            "rollcall_patch_deliveries_total", "counter", "Patch messages queued to subscribers.",
            self.gateway.patchDeliveries)
        out.single(
            "rollcall_coalesced_changes_total", "counter",
            "Roster changes that joined a batching window already open.", self.gateway.coalescedChanges)
        out.family(
            "rollcall_resumes_total", "counter",
            "Resumes after a reconnect: served from history (recovered) or answered with a fresh snapshot.")
        out.sample("rollcall_resumes_total", [("result", "recovered")], self.gateway.resumesRecovered)
        out.sample("rollcall_resumes_total", [("result", "not_recovered")], self.gateway.resumesNotRecovered)
        out.single(
            "rollcall_slow_subscriber_resyncs_total", "counter",
            "Fresh snapshots sent to subscribers whose roster patches were skipped while they did not read.",
            self.gateway.resyncSnapshots)
        out.single(
            "rollcall_slow_subscriber_closes_total", "counter",
            "Subscribers closed with 4008 for not reading within rooms.slow_subscriber_timeout_ms.",
            self.gateway.slowSubscribersClosed)
        out.single(
            "rollcall_compressed_messages_total", "counter",
            "Room messages compressed for permessage-deflate, once per message however many subscribers "
                + "share it (once more for each other window size clients asked for).",
            self.compression.messages)
        out.single(
            "rollcall_compressed_input_bytes_total", "counter", "Bytes of those messages before compression.",
            self.compression.bytesIn)
        out.single(
            "rollcall_compressed_output_bytes_total", "counter", "Bytes of those messages after compression.",
            self.compression.bytesOut)
        out.single(
            "rollcall_compressed_deliveries_total", "counter",
            "Compressed room messages queued to subscribers.", self.compression.deliveries)
        out.histogram(
            "rollcall_delivery_latency_seconds",
            "Time from the gateway handing a message to the transport (right after appending the event) to the "
                + "connection loop queueing it on its recipients' sockets, once per message and loop.",
            bounds: LatencyHistogram.bounds,
            cumulative: self.latency.cumulative,
            count: self.latency.count,
            sum: self.latency.sumSeconds
        )
        if let storage = self.storage { self.renderStorage(storage, into: &out) }
        if !self.webhooks.isEmpty { self.renderWebhooks(into: &out) }
        if let cluster = self.cluster {
            let statistics = cluster.statistics
            out.single(
                "rollcall_cluster_connected", "gauge",
                "1 while the node is connected to Redis with the shared log's script loaded.",
                cluster.connected ? 1 : 0)
            out.single(
                "rollcall_cluster_appends_total", "counter", "Appends to the shared room logs.",
                statistics.appends)
            out.single(
                "rollcall_cluster_append_failures_total", "counter",
                "Appends that failed because Redis was unreachable or slow (answered ERR_UNAVAILABLE).",
                statistics.appendFailures)
            out.single(
                "rollcall_cluster_gaps_filled_total", "counter",
                "Times entries missed on the channel were read from a room's stream.", statistics.gapsFilled)
            out.single(
                "rollcall_cluster_room_reloads_total", "counter",
                "Rooms loaded again after a gap the stream could not fill (subscribers resynced).",
                statistics.reloads)
            out.single(
                "rollcall_cluster_devices_reaped_total", "counter",
                "Lost and left entries recorded by this node for devices of dead nodes.",
                statistics.devicesReaped)
            out.single(
                "rollcall_cluster_checkpoints_written_total", "counter", "Room checkpoints written.",
                statistics.checkpointsWritten)
            out.single(
                "rollcall_cluster_leases_lost_total", "counter",
                "Times this node found it had been declared dead and closed its participants' sockets.",
                statistics.leasesLost)
        }
        return out.text
    }

    private func renderTransport(_ server: ServerStatistics, into out: inout PrometheusText) {
        let open = server.openConnectionsByTransport
        let accepted = server.acceptedConnectionsByTransport
        let snapshot = server.snapshot
        out.family("rollcall_connections_open", "gauge", "Connections open now, by transport.")
        out.sample("rollcall_connections_open", [("transport", "ws")], open.plain)
        out.sample("rollcall_connections_open", [("transport", "wss")], open.secure)
        out.family("rollcall_connections_total", "counter", "Connections accepted since start, by transport.")
        out.sample("rollcall_connections_total", [("transport", "ws")], accepted.plain)
        out.sample("rollcall_connections_total", [("transport", "wss")], accepted.secure)
        out.single(
            "rollcall_connections_rejected_total", "counter",
            "Connections closed at once because server.max_connections were open.",
            snapshot["connections_rejected_over_limit"] ?? 0)
        out.family(
            "rollcall_connections_refused_total", "counter",
            "Connections closed at once by a limit: per_address (server.max_connections_per_ip) or "
                + "pending_handshakes (server.max_pending_handshakes).")
        out.sample(
            "rollcall_connections_refused_total", [("limit", "per_address")],
            snapshot["connections_rejected_per_address"] ?? 0)
        out.sample(
            "rollcall_connections_refused_total", [("limit", "pending_handshakes")],
            snapshot["connections_rejected_pending_handshakes"] ?? 0)
        out.single(
            "rollcall_rate_limited_total", "counter",
            "Connections closed with 1008 for sending more than limits.max_messages_per_second.",
            snapshot["connections_rate_limited"] ?? 0)
        out.single(
            "rollcall_websocket_upgrades_total", "counter", "Completed WebSocket handshakes.",
            snapshot["websocket_upgrades"] ?? 0)
        out.family(
            "rollcall_handshakes_failed_total", "counter",
            "Failed handshakes by reason: the HTTP status of a refused upgrade (other: any status not listed), "
                + "timeout (not finished within timeouts.handshake_ms), or tls (TLS handshake failure).")
        for (status, count) in server.rejectedHandshakesByStatus {
            out.sample("rollcall_handshakes_failed_total", [("reason", status == 0 ? "other" : String(status))], count)
        }
        out.sample("rollcall_handshakes_failed_total", [("reason", "timeout")], snapshot["handshake_timeouts"] ?? 0)
        out.sample("rollcall_handshakes_failed_total", [("reason", "tls")], snapshot["tls_handshake_failures"] ?? 0)
        out.single(
            "rollcall_protocol_violations_total", "counter", "Connections closed for a WebSocket protocol error.",
            snapshot["protocol_violations"] ?? 0)
        out.single(
            "rollcall_keepalive_timeouts_total", "counter", "Connections dropped for not answering a ping.",
            snapshot["keepalive_timeouts"] ?? 0)
        out.single(
            "rollcall_write_queue_closes_total", "counter",
            "Connections closed with 1008 at limits.write_queue_limit_bytes.",
            snapshot["slow_consumers_closed"] ?? 0)
        out.single(
            "rollcall_messages_received_total", "counter", "WebSocket messages received (not control frames).",
            snapshot["messages_received"] ?? 0)
        out.single(
            "rollcall_messages_sent_total", "counter", "WebSocket messages queued to clients (not control frames).",
            snapshot["messages_sent"] ?? 0)
        out.single(
            "rollcall_bytes_received_total", "counter", "Bytes read from sockets (TLS: ciphertext), HTTP included.",
            snapshot["bytes_received"] ?? 0)
        out.single(
            "rollcall_bytes_sent_total", "counter", "Bytes written to sockets (TLS: ciphertext), HTTP included.",
            snapshot["bytes_sent"] ?? 0)
        let loops = server.loops
        out.family("rollcall_loop_connections", "gauge", "Connections open on each event loop.")
        for loop in loops { out.sample("rollcall_loop_connections", [("loop", String(loop.index))], loop.connections) }
        out.family(
            "rollcall_loop_messages_received_total", "counter", "WebSocket messages received on each event loop.")
        for loop in loops {
            out.sample("rollcall_loop_messages_received_total", [("loop", String(loop.index))], loop.receivedMessages)
        }
        out.family("rollcall_loop_iterations_total", "counter", "Iterations of each event loop (epoll_wait returns).")
        for loop in loops {
            out.sample("rollcall_loop_iterations_total", [("loop", String(loop.index))], loop.eventLoop.iterations)
        }
        out.family(
            "rollcall_loop_busy_seconds_total", "counter",
            "Time each event loop spent working rather than waiting in epoll_wait.")
        for loop in loops {
            out.sample(
                "rollcall_loop_busy_seconds_total", [("loop", String(loop.index))],
                Double(loop.eventLoop.busyNanoseconds) / 1e9)
        }
    }
}
