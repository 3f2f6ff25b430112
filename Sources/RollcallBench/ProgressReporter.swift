import EventIO

/// Prints a status line about once a second.
struct ProgressReporter {
    let scenario: BenchOptions.Scenario
    let sink: ((String) -> Void)?
    private let start = EventLoop.monotonicNow()
    private var lastTime = EventLoop.monotonicNow()
    private var lastReceived = 0

    init(scenario: BenchOptions.Scenario, sink: ((String) -> Void)?) {
        self.scenario = scenario
        self.sink = sink
    }

    mutating func tick(_ values: BenchCounterValues) {
        guard let sink = self.sink else { return }
        let now = EventLoop.monotonicNow()
        guard now - self.lastTime >= 1_000_000_000 else { return }
        let rate = Double(values.received - self.lastReceived) * 1e9 / Double(now - self.lastTime)
        self.lastTime = now
        self.lastReceived = values.received
        let unit: String
        switch self.scenario {
        case .echo: unit = "msgs/s"
        case .fanout, .pubsub: unit = "deliveries/s"
        case .roster: unit = "patches/s"
        case .connect: unit = "handshakes/s"
        case .idle: unit = "-"
        }
        let seconds = Int((Double(now - self.start) / 1e9).rounded())
        var line = "[\(seconds)s] open \(values.open)"
        if self.scenario == .idle {
            line += ", opened \(values.opened)"
        } else {
            line += ", \(Int(rate.rounded())) \(unit)"
        }
        line += ", errors \(values.errors + values.connectFailures)"
        if values.lost > 0 { line += ", lost \(values.lost)" }
        sink(line)
    }
}
