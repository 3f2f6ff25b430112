import Rooms
import Storage
import Webhooks

/// The embedded store's and the webhooks' part of `/metrics`.
extension MetricsReport {
    func renderStorage(_ storage: StorageStatistics, into out: inout PrometheusText) {
        out.single(
            "rollcall_store_commits_total", "counter",
            "Store transactions committed (one per rooms-thread iteration that changed something).", storage.commits)
        out.single(
            "rollcall_store_commit_failures_total", "counter",
            "Store commits that failed, each try counted; their writes are tried again.", storage.commitFailures)
        out.single(
            "rollcall_store_available", "gauge",
            "1 while the store commits; 0 from a failed commit until one succeeds (output waits, requests are refused).",
            storage.isFailing ? 0 : 1)
        out.single(
            "rollcall_store_requests_refused_total", "counter",
            "Requests answered ERR_UNAVAILABLE because the store could not commit.", self.gateway.storeRefusals)
        out.single(
            "rollcall_store_entries_written_total", "counter",
            "Room log entries committed to the store (once each, however many commits failed before).",
            storage.entriesWritten)
        out.single(
            "rollcall_store_checkpoints_written_total", "counter", "Room checkpoints committed to the store.",
            storage.checkpointsWritten)
        out.single(
            "rollcall_store_entries_trimmed_total", "counter", "Stored entries dropped by retention.",
            storage.entriesTrimmed)
        out.single(
            "rollcall_store_rooms_loaded_total", "counter", "Rooms read back from the store when first used.",
            self.gateway.roomsLoaded)
        out.single(
            "rollcall_store_read_failures_total", "counter",
            "Store reads that failed (the request was answered ERR_UNAVAILABLE, a resume with a fresh snapshot).",
            self.gateway.storeFailures)
    }

    func renderWebhooks(into out: inout PrometheusText) {
        let families: [(String, String, String, (WebhookStatistics) -> Int)] = [
            (
                "rollcall_webhook_events_delivered_total", "counter", "Events acknowledged by the endpoint (2xx).",
                { $0.delivered.load(ordering: .relaxed) }
            ),
            (
                "rollcall_webhook_retries_total", "counter", "Deliveries tried again after a failure.",
                { $0.retried.load(ordering: .relaxed) }
            ),
            (
                "rollcall_webhook_events_failed_total", "counter",
                "Events given up on after webhooks.dead_letter_after_ms (dead letters).",
                { $0.failed.load(ordering: .relaxed) }
            ),
            (
                "rollcall_webhook_connections_opened_total", "counter",
                "Connections opened to the endpoint (one carries many deliveries while the receiver keeps it open).",
                { $0.connectionsOpened.load(ordering: .relaxed) }
            ),
            (
                "rollcall_webhook_lag_seconds", "gauge",
                "Age of the oldest event the endpoint has not had yet; 0 when it is up to date.",
                { $0.lagMilliseconds.load(ordering: .relaxed) }
            ),
        ]
        for (name, type, help, value) in families {
            out.family(name, type, help)
            for endpoint in self.webhooks {
                if name.hasSuffix("_seconds") {
                    out.sample(name, [("endpoint", endpoint.endpoint)], Double(value(endpoint)) / 1000)
                } else {
                    out.sample(name, [("endpoint", endpoint.endpoint)], value(endpoint))
                }
            }
        }
    }
}
