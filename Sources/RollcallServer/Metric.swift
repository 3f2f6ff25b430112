/// One metric family of `/metrics`, declared once in `Metrics.all`: its name, type and help, when a scrape shows it,
/// where its samples are read, and how a value read on every rooms thread adds up to the node's.
struct Metric {
    /// The family's type in the Prometheus text format.
    enum Kind: String {
        case counter, gauge, histogram
    }

    /// How the values the rooms threads report make the node's value.
    enum Total: Equatable {
        /// Their sum: every counter, and gauges of what each thread holds apart (rooms, subscriptions).
        case sum
        /// The first thread's: what every rooms thread knows alike and must count once (the sessions).
        case sameOnEveryThread
    }

    /// Where a family's samples come from.
    enum Source {
        /// Each sample is one field of the counters every rooms thread reports at the scrape (`RoomThreadCounters`),
        /// added up by `Total`. The fields are writable so that a test can give each thread its own value.
        case roomsThreads([(labels: [(String, String)], field: WritableKeyPath<RoomThreadCounters, Int>)], Total)
        /// Read once for the whole process from the scrape: the transport, the latency histogram, the store, the
        /// cluster's shared log, the webhooks.
        case process((MetricsReport) -> [Sample])
    }

    /// One sample of a family.
    struct Sample {
        /// Appended to the family's name: `_bucket`, `_sum` and `_count` of a histogram; empty otherwise.
        var suffix = ""
        var labels: [(String, String)] = []
        var value: Double

        init(suffix: String = "", labels: [(String, String)] = [], _ value: Double) {
            self.suffix = suffix
            self.labels = labels
            self.value = value
        }

        init(suffix: String = "", labels: [(String, String)] = [], _ value: Int) {
            self.init(suffix: suffix, labels: labels, Double(value))
        }
    }

    /// The family's name (counters end in `_total`).
    let name: String
    let kind: Kind
    /// What it measures, the `# HELP` line.
    let help: String
    /// Whether a scrape shows the family: the store's families only with a store, and so on.
    let isShown: (MetricsReport) -> Bool
    let source: Source
}
