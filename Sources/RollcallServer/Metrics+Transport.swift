import WebSocketServer

/// The transport's families (connections, handshakes, messages, bytes, event loops), shown when the scrape has the
/// server's counters.
extension Metrics {
    static let transport: [Metric] = [
        served("rollcall_connections_open", .gauge, "Connections open now, by transport.") { server in
            let open = server.openConnectionsByTransport
            return [transportSample("ws", open.plain), transportSample("wss", open.secure)]
        },
        served("rollcall_connections_total", .counter, "Connections accepted since start, by transport.") { server in
            let accepted = server.acceptedConnectionsByTransport
            return [transportSample("ws", accepted.plain), transportSample("wss", accepted.secure)]
        },
        counted(
            "rollcall_connections_rejected_total",
            "Connections closed at once because server.max_connections were open.", "connections_rejected_over_limit"),
        served(
            "rollcall_connections_refused_total", .counter,
            "Connections closed at once by a limit: per_address (server.max_connections_per_ip) or "
                + "pending_handshakes (server.max_pending_handshakes)."
        ) { server in
            let snapshot = server.snapshot
            return [
                Metric.Sample(labels: [("limit", "per_address")], snapshot["connections_rejected_per_address"] ?? 0),
                Metric.Sample(
                    labels: [("limit", "pending_handshakes")], snapshot["connections_rejected_pending_handshakes"] ?? 0),
            ]
        },
        counted(
            "rollcall_rate_limited_total",
            "Connections closed with 1008 for sending more than limits.max_messages_per_second.",
            "connections_rate_limited"),
        counted("rollcall_websocket_upgrades_total", "Completed WebSocket handshakes.", "websocket_upgrades"),
        served(
            "rollcall_handshakes_failed_total", .counter,
            "Failed handshakes by reason: the HTTP status of a refused upgrade (other: any status not listed), "
                + "timeout (not finished within timeouts.handshake_ms), or tls (TLS handshake failure)."
        ) { server in
            let snapshot = server.snapshot
            return server.rejectedHandshakesByStatus.map { status, count in
                Metric.Sample(labels: [("reason", status == 0 ? "other" : String(status))], count)
            } + [
                Metric.Sample(labels: [("reason", "timeout")], snapshot["handshake_timeouts"] ?? 0),
                Metric.Sample(labels: [("reason", "tls")], snapshot["tls_handshake_failures"] ?? 0),
            ]
        },
        counted(
            "rollcall_protocol_violations_total", "Connections closed for a WebSocket protocol error.",
            "protocol_violations"),
        counted(
            "rollcall_keepalive_timeouts_total", "Connections dropped for not answering a ping.", "keepalive_timeouts"),
        counted(
            "rollcall_write_queue_closes_total", "Connections closed with 1008 at limits.write_queue_limit_bytes.",
            "slow_consumers_closed"),
        counted(
            "rollcall_messages_received_total", "WebSocket messages received (not control frames).",
            "messages_received"),
        counted(
            "rollcall_messages_sent_total", "WebSocket messages queued to clients (not control frames).",
            "messages_sent"),
        counted(
            "rollcall_bytes_received_total", "Bytes read from sockets (TLS: ciphertext), HTTP included.",
            "bytes_received"),
        counted(
            "rollcall_bytes_sent_total", "Bytes written to sockets (TLS: ciphertext), HTTP included.", "bytes_sent"),
        perLoop("rollcall_loop_connections", .gauge, "Connections open on each event loop.") {
            Double($0.connections)
        },
        perLoop(
            "rollcall_loop_messages_received_total", .counter, "WebSocket messages received on each event loop."
        ) { Double($0.receivedMessages) },
        perLoop("rollcall_loop_iterations_total", .counter, "Iterations of each event loop (epoll_wait returns).") {
            Double($0.eventLoop.iterations)
        },
        perLoop(
            "rollcall_loop_busy_seconds_total", .counter,
            "Time each event loop spent working rather than waiting in epoll_wait."
        ) { Double($0.eventLoop.busyNanoseconds) / 1e9 },
    ]

    /// Samples of the server's counters, shown when the scrape has them.
    static func served(
        _ name: String, _ kind: Metric.Kind, _ help: String, _ read: @escaping (ServerStatistics) -> [Metric.Sample]
    ) -> Metric {
        Metric(
            name: name, kind: kind, help: help, isShown: { $0.server != nil },
            source: .process { report in report.server.map(read) ?? [] })
    }

    /// One counter of the server's snapshot, by its name there.
    static func counted(_ name: String, _ help: String, _ snapshotName: String) -> Metric {
        served(name, .counter, help) { [Metric.Sample($0.snapshot[snapshotName] ?? 0)] }
    }

    /// One value per event loop, labeled `loop`.
    static func perLoop(
        _ name: String, _ kind: Metric.Kind, _ help: String, _ read: @escaping (LoopStatistics) -> Double
    ) -> Metric {
        served(name, kind, help) { server in
            server.loops.map { Metric.Sample(labels: [("loop", String($0.index))], read($0)) }
        }
    }

    private static func transportSample(_ transport: String, _ value: Int) -> Metric.Sample {
        Metric.Sample(labels: [("transport", transport)], value)
    }
}
