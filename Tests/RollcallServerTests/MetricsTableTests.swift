import Rooms
import Storage
import Testing

@testable import RollcallServer

/// The table of metrics (`Metrics.all`): each family declared once, and what the rooms threads count added up over
/// them as the table says.
struct MetricsTableTests {
    /// Every field some family reads on the rooms threads, in table order.
    static let threadFields: [WritableKeyPath<RoomThreadCounters, Int>] = Metrics.all.flatMap { metric in
        guard case .roomsThreads(let fields, _) = metric.source else {
            return [WritableKeyPath<RoomThreadCounters, Int>]()
        }
        return fields.map(\.field)
    }

    /// Two rooms threads' counters where every field the table reads holds a value of its own on each thread.
    static func twoThreads() -> [RoomThreadCounters] {
        (1...2).map { thread in
            var counters = RoomThreadCounters()
            for (index, field) in Self.threadFields.enumerated() { counters[keyPath: field] = thread * 1000 + index }
            return counters
        }
    }

    /// The samples of a rendered scrape by name with labels, as Prometheus reads them.
    static func samples(_ text: String) -> [String: Double] {
        var samples: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else {
                continue
            }
            samples[String(line[..<space])] = value
        }
        return samples
    }

    static func sampleName(_ metric: Metric, _ labels: [(String, String)]) -> String {
        labels.isEmpty
            ? metric.name : metric.name + "{" + labels.map { "\($0.0)=\"\($0.1)\"" }.joined(separator: ",") + "}"
    }

    @Test("every family is declared once, and counters are named _total")
    func familiesAreDeclaredOnce() {
        let names = Metrics.all.map(\.name)
        #expect(
            Set(names).count == names.count,
            "declared twice: \(names.filter { name in names.count { $0 == name } > 1 })")
        for metric in Metrics.all where metric.kind == .counter {
            #expect(metric.name.hasSuffix("_total"), "\(metric.name)")
        }
        for metric in Metrics.all where metric.kind != .counter {
            #expect(!metric.name.hasSuffix("_total"), "\(metric.name)")
        }
    }

    @Test("every counter the rooms threads count adds up over two rooms threads")
    func countersAddUpOverRoomsThreads() {
        let threads = Self.twoThreads()
        let report = MetricsReport(
            server: nil, roomThreads: threads, latency: ([], 0, 0), storage: StorageStatistics())
        let rendered = Self.samples(report.render())
        var checked = 0
        for metric in Metrics.all {
            guard case .roomsThreads(let fields, let total) = metric.source else { continue }
            #expect(metric.kind != .counter || total == .sum, "\(metric.name) is a counter that is not added up")
            #expect(metric.isShown(report), "\(metric.name) is not shown")
            for (labels, field) in fields {
                let values = threads.map { $0[keyPath: field] }
                let expected = metric.kind == .counter || total == .sum ? values.reduce(0, +) : values[0]
                let name = Self.sampleName(metric, labels)
                #expect(rendered[name] == Double(expected), "\(name): \(rendered[name] ?? -1), not \(expected)")
                checked += 1
            }
        }
        #expect(checked == Self.threadFields.count)
        #expect(checked > 15)
    }

    @Test("one rooms thread's scrape shows its own counters as they are")
    func oneThreadIsShownAsItIs() {
        let thread = Self.twoThreads()[0]
        let report = MetricsReport(
            server: nil, roomThreads: [thread], latency: ([], 0, 0), storage: StorageStatistics())
        let rendered = Self.samples(report.render())
        #expect(rendered["rollcall_room_events_total"] == Double(thread.statistics.events))
        #expect(
            rendered["rollcall_resumes_total{result=\"not_recovered\"}"]
                == Double(thread.statistics.resumesNotRecovered))
        #expect(rendered["rollcall_sessions"] == Double(thread.sessions))
        #expect(rendered["rollcall_store_read_failures_total"] == Double(thread.statistics.storeFailures))
        #expect(rendered["rollcall_store_available"] == 1)
    }

    @Test("the store's families are left out without a store, and the cluster's and webhooks' outside their modes")
    func familiesOfModesAreLeftOutOfOthers() {
        let report = MetricsReport(server: nil, roomThreads: Self.twoThreads(), latency: ([], 0, 0))
        let text = report.render()
        #expect(!text.contains("rollcall_store_"))
        #expect(!text.contains("rollcall_cluster_"))
        #expect(!text.contains("rollcall_webhook_"))
        #expect(!text.contains("rollcall_connections_open"))
        #expect(text.contains("# TYPE rollcall_room_events_total counter\n"))
        #expect(text.contains("rollcall_delivery_latency_seconds_bucket{le=\"+Inf\"} 0\n"))
    }
}
