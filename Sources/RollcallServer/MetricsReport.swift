import Rooms
import Storage
import WebSocketServer
import Webhooks

/// Everything `/metrics` shows, gathered at one scrape, and its rendering in the Prometheus text format from the
/// table of metrics (`Metrics.all`).
struct MetricsReport {
    let server: ServerStatistics?
    /// Each rooms thread's counters, in thread order.
    let roomThreads: [RoomThreadCounters]
    let latency: (cumulative: [Int], count: Int, sumSeconds: Double)
    /// Cluster mode's shared log: its counters and whether its store (Redis) is reachable; nil for a single process.
    var cluster: (statistics: SharedLogStatistics, connected: Bool)?
    /// The embedded store's counters; nil without a store.
    var storage: StorageStatistics?
    /// Each webhook endpoint's counters.
    var webhooks: [WebhookStatistics] = []

    /// Whether the process runs the embedded store.
    var hasStore: Bool { self.storage != nil }

    /// Every family the scrape shows, in the table's order.
    func render() -> String {
        var out = PrometheusText()
        for metric in Metrics.all where metric.isShown(self) {
            out.family(metric.name, metric.kind.rawValue, metric.help)
            for sample in self.samples(of: metric) {
                out.sample(metric.name + sample.suffix, sample.labels, sample.value)
            }
        }
        return out.text
    }

    /// The samples of `metric` at this scrape: read for the process, or added up over the rooms threads.
    func samples(of metric: Metric) -> [Metric.Sample] {
        switch metric.source {
        case .process(let read):
            return read(self)
        case .roomsThreads(let fields, let total):
            return fields.map { labels, field in
                let values = self.roomThreads.map { $0[keyPath: field] }
                switch total {
                case .sum: return Metric.Sample(labels: labels, values.reduce(0, +))
                case .sameOnEveryThread: return Metric.Sample(labels: labels, values.first ?? 0)
                }
            }
        }
    }
}
