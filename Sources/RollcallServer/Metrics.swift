import Rooms
import Storage
import Webhooks

/// Every metric family `/metrics` shows, in one table and in the order shown, as `Settings` holds every key: each
/// with its name, type, help, how it is read and, for what the rooms threads count, how it adds up over them
/// (`Metric.Total`). A new metric is one entry here, beside the field that counts it; `MetricsReport` renders the
/// table and adds up the rooms threads from it, and docs/OPERATIONS.md describes each metric for operators.
enum Metrics {
    static let all: [Metric] = Self.transport + Self.rooms + Self.storage + Self.webhooks + Self.cluster

    /// The rooms layer's families: what the rooms threads hold and count, their compression, the delivery latency.
    static let rooms: [Metric] = [
        gauge(
            "rollcall_rooms",
            "Rooms held in memory: created or used since the start (a stored room nobody used since is not counted).",
            \.rooms, .sum),
        gauge(
            "rollcall_sessions", "Rooms-protocol connections known to the gateway.", \.sessions, .sameOnEveryThread),
        gauge(
            "rollcall_subscribers",
            "Room subscriptions (participants and observers); a connection in two rooms counts twice.",
            \.subscribers, .sum),
        counter("rollcall_room_events_total", "Events appended to room logs.", \.statistics.events),
        counter(
            "rollcall_patches_sent_total",
            "Roster patches computed and sent, one per view and flush however many subscribers share it.",
            \.statistics.patches),
        counter(
            "rollcall_patch_bytes_total", "Bytes of those patches, counted once per patch.", \.statistics.patchBytes),
        counter(
            "rollcall_patch_deliveries_total", "Patch messages queued to subscribers.", \.statistics.patchDeliveries),
        counter(
            "rollcall_coalesced_changes_total", "Roster changes that joined a batching window already open.",
            \.statistics.coalescedChanges),
        counter(
            "rollcall_resumes_total",
            "Resumes after a reconnect: served from history (recovered) or answered with a fresh snapshot.",
            labeled: "result",
            [("recovered", \.statistics.resumesRecovered), ("not_recovered", \.statistics.resumesNotRecovered)]),
        counter(
            "rollcall_slow_subscriber_resyncs_total",
            "Fresh snapshots sent to subscribers whose roster patches were skipped while they did not read.",
            \.statistics.resyncSnapshots),
        counter(
            "rollcall_slow_subscriber_closes_total",
            "Subscribers closed with 4008 for not reading within rooms.slow_subscriber_timeout_ms.",
            \.statistics.slowSubscribersClosed),
        counter(
            "rollcall_compressed_messages_total",
            "Room messages compressed for permessage-deflate, once per message however many subscribers "
                + "share it (once more for each other window size clients asked for).", \.compression.messages),
        counter(
            "rollcall_compressed_input_bytes_total", "Bytes of those messages before compression.",
            \.compression.bytesIn),
        counter(
            "rollcall_compressed_output_bytes_total", "Bytes of those messages after compression.",
            \.compression.bytesOut),
        counter(
            "rollcall_compressed_deliveries_total", "Compressed room messages queued to subscribers.",
            \.compression.deliveries),
        Metric(
            name: "rollcall_delivery_latency_seconds", kind: .histogram,
            help: "Time from the gateway handing a message to the transport (right after appending the event) to the "
                + "connection loop queueing it on its recipients' sockets, once per message and loop.",
            isShown: { _ in true },
            source: .process { report in
                let latency = report.latency
                var samples = zip(LatencyHistogram.bounds, latency.cumulative).map { bound, count in
                    Metric.Sample(suffix: "_bucket", labels: [("le", PrometheusText.format(bound))], count)
                }
                samples.append(Metric.Sample(suffix: "_bucket", labels: [("le", "+Inf")], latency.count))
                samples.append(Metric.Sample(suffix: "_sum", latency.sumSeconds))
                samples.append(Metric.Sample(suffix: "_count", latency.count))
                return samples
            }),
    ]

    /// The embedded store's families, shown with a store.
    static let storage: [Metric] = [
        stored(
            "rollcall_store_commits_total", .counter,
            "Store transactions committed (one per rooms-thread iteration that changed something)."
        ) { $0.commits },
        stored(
            "rollcall_store_commit_failures_total", .counter,
            "Store commits that failed, each try counted; their writes are tried again."
        ) { $0.commitFailures },
        stored(
            "rollcall_store_available", .gauge,
            "1 while the store commits; 0 from a failed commit until one succeeds (output waits, requests are refused)."
        ) { $0.isFailing ? 0 : 1 },
        counter(
            "rollcall_store_requests_refused_total",
            "Requests answered ERR_UNAVAILABLE because the store could not commit.", \.statistics.storeRefusals,
            when: \.hasStore),
        stored(
            "rollcall_store_entries_written_total", .counter,
            "Room log entries committed to the store (once each, however many commits failed before)."
        ) { $0.entriesWritten },
        stored("rollcall_store_checkpoints_written_total", .counter, "Room checkpoints committed to the store.") {
            $0.checkpointsWritten
        },
        stored("rollcall_store_entries_trimmed_total", .counter, "Stored entries dropped by retention.") {
            $0.entriesTrimmed
        },
        counter(
            "rollcall_store_rooms_loaded_total", "Rooms read back from the store when first used.",
            \.statistics.roomsLoaded, when: \.hasStore),
        counter(
            "rollcall_store_read_failures_total",
            "Store reads that failed (the request was answered ERR_UNAVAILABLE, a resume with a fresh snapshot).",
            \.statistics.storeFailures, when: \.hasStore),
    ]

    /// The webhooks' families, one sample per endpoint, shown with at least one endpoint.
    static let webhooks: [Metric] = [
        webhook("rollcall_webhook_events_delivered_total", .counter, "Events acknowledged by the endpoint (2xx).") {
            Double($0.delivered.load(ordering: .relaxed))
        },
        webhook("rollcall_webhook_retries_total", .counter, "Deliveries tried again after a failure.") {
            Double($0.retried.load(ordering: .relaxed))
        },
        webhook(
            "rollcall_webhook_events_failed_total", .counter,
            "Events given up on after webhooks.dead_letter_after_ms (dead letters)."
        ) { Double($0.failed.load(ordering: .relaxed)) },
        webhook(
            "rollcall_webhook_connections_opened_total", .counter,
            "Connections opened to the endpoint (one carries many deliveries while the receiver keeps it open)."
        ) { Double($0.connectionsOpened.load(ordering: .relaxed)) },
        webhook(
            "rollcall_webhook_lag_seconds", .gauge,
            "Age of the oldest event the endpoint has not had yet; 0 when it is up to date."
        ) { Double($0.lagMilliseconds.load(ordering: .relaxed)) / 1000 },
    ]

    /// The cluster's families, shown in cluster mode.
    static let cluster: [Metric] = [
        clustered(
            "rollcall_cluster_connected", .gauge,
            "1 while the node is connected to Redis with the shared log's script loaded."
        ) { $0.connected ? 1 : 0 },
        clustered("rollcall_cluster_appends_total", .counter, "Appends to the shared room logs.") {
            $0.statistics.appends
        },
        clustered(
            "rollcall_cluster_append_failures_total", .counter,
            "Appends that failed because Redis was unreachable or slow (answered ERR_UNAVAILABLE)."
        ) { $0.statistics.appendFailures },
        clustered(
            "rollcall_cluster_gaps_filled_total", .counter,
            "Times entries missed on the channel were read from a room's stream."
        ) { $0.statistics.gapsFilled },
        clustered(
            "rollcall_cluster_room_reloads_total", .counter,
            "Rooms loaded again after a gap the stream could not fill (subscribers resynced)."
        ) { $0.statistics.reloads },
        clustered(
            "rollcall_cluster_devices_reaped_total", .counter,
            "Lost and left entries recorded by this node for devices of dead nodes."
        ) { $0.statistics.devicesReaped },
        clustered("rollcall_cluster_checkpoints_written_total", .counter, "Room checkpoints written.") {
            $0.statistics.checkpointsWritten
        },
        clustered(
            "rollcall_cluster_leases_lost_total", .counter,
            "Times this node found it had been declared dead and closed its participants' sockets."
        ) { $0.statistics.leasesLost },
        clustered(
            "rollcall_cluster_replica_ack_failures_total", .counter,
            "Appends Redis took that fewer replicas than cluster.replica_acks confirmed in time (answered "
                + "ERR_UNAVAILABLE; the entries are in the log)."
        ) { $0.statistics.replicaAckFailures },
        clustered(
            "rollcall_cluster_subscription_live", .gauge,
            "1 while the node's probes come back through its own subscription; 0 from a lost probe until one comes "
                + "back (/readyz answers 503 meanwhile)."
        ) { $0.statistics.subscriptionLive ? 1 : 0 },
        clustered(
            "rollcall_cluster_probe_failures_total", .counter,
            "Probes of the node's own subscription that did not come back within cluster.call_timeout_ms."
        ) { $0.statistics.probeFailures },
        clustered(
            "rollcall_cluster_resubscriptions_total", .counter,
            "Times the node reconnected its subscription because a probe did not come back."
        ) { $0.statistics.resubscriptions },
    ]
}

// MARK: Kinds of metrics

extension Metrics {
    /// A counter of every rooms thread, added up over them.
    static func counter(
        _ name: String, _ help: String, _ field: WritableKeyPath<RoomThreadCounters, Int>,
        when isShown: @escaping (MetricsReport) -> Bool = { _ in true }
    ) -> Metric {
        Metric(
            name: name, kind: .counter, help: help, isShown: isShown, source: .roomsThreads([([], field)], .sum))
    }

    /// A counter of every rooms thread with one sample per value of `label`, each added up over them.
    static func counter(
        _ name: String, _ help: String, labeled label: String,
        _ fields: [(String, WritableKeyPath<RoomThreadCounters, Int>)]
    ) -> Metric {
        Metric(
            name: name, kind: .counter, help: help, isShown: { _ in true },
            source: .roomsThreads(fields.map { ([(label, $0.0)], $0.1) }, .sum))
    }

    /// A gauge of every rooms thread, added up over them by `total`.
    static func gauge(
        _ name: String, _ help: String, _ field: WritableKeyPath<RoomThreadCounters, Int>, _ total: Metric.Total
    ) -> Metric {
        Metric(
            name: name, kind: .gauge, help: help, isShown: { _ in true }, source: .roomsThreads([([], field)], total))
    }

    /// One value of the store's counters, shown with a store.
    static func stored(
        _ name: String, _ kind: Metric.Kind, _ help: String, _ read: @escaping (StorageStatistics) -> Int
    ) -> Metric {
        Metric(
            name: name, kind: kind, help: help, isShown: \.hasStore,
            source: .process { report in report.storage.map { [Metric.Sample(read($0))] } ?? [] })
    }

    /// One value per webhook endpoint, labeled `endpoint`, shown with at least one endpoint.
    static func webhook(
        _ name: String, _ kind: Metric.Kind, _ help: String, _ read: @escaping (WebhookStatistics) -> Double
    ) -> Metric {
        Metric(
            name: name, kind: kind, help: help, isShown: { !$0.webhooks.isEmpty },
            source: .process { report in
                report.webhooks.map { Metric.Sample(labels: [("endpoint", $0.endpoint)], read($0)) }
            })
    }

    /// One value of the cluster's shared log, shown in cluster mode.
    static func clustered(
        _ name: String, _ kind: Metric.Kind, _ help: String,
        _ read: @escaping ((statistics: SharedLogStatistics, connected: Bool)) -> Int
    ) -> Metric {
        Metric(
            name: name, kind: kind, help: help, isShown: { $0.cluster != nil },
            source: .process { report in report.cluster.map { [Metric.Sample(read($0))] } ?? [] })
    }
}
