import JSONCoding

/// What a run measured.
public struct BenchReport: Sendable {
    public var scenario: BenchOptions.Scenario
    public var target: String
    /// Seconds of load actually run.
    public var elapsedSeconds: Double
    public var counters: BenchCounterValues
    /// Latency in nanoseconds (round trips, deliveries or handshakes).
    public var latency: LatencyHistogram
    /// The first few errors seen.
    public var errorSamples: [String]
    /// Server resident set size before and after opening connections (idle with a server process).
    public var serverRSSBefore: Int?
    public var serverRSSAfter: Int?
    /// How the observers' rosters ended (roster).
    public var convergence: Convergence?
    /// Whether the connections offered permessage-deflate (`--compression`); the compression counts are reported
    /// only then.
    public var compressionOffered = false
    /// When the deliveries arrived (fanout, pubsub): the span they took and those after the load ended.
    public var deliveries = DeliveryTiming()

    /// The observers' final rosters compared (roster).
    public struct Convergence: Sendable {
        /// Observers holding the reference roster (the most common one at the highest sequence number).
        public var converged = 0
        /// Observers holding another roster, or none.
        public var divergent = 0
        /// Distinct final rosters among the observers.
        public var distinctRosters = 0
        /// Participants whose entry in the reference roster differs from what they last asked for.
        public var stateMismatches = 0
        /// The reference roster's sequence number and checksum.
        public var sequence: UInt64 = 0
        public var checksum = ""

        /// Every observer holds the same roster, and it shows every participant's last change.
        public var isConverged: Bool { self.divergent == 0 && self.stateMismatches == 0 && self.converged > 0 }
    }

    /// Whether the scenario fans messages out to subscribers (fanout, pubsub).
    public var isFanOut: Bool { self.scenario == .fanout || self.scenario == .pubsub }

    /// Messages (echo replies, deliveries) or handshakes per second. Deliveries are counted over the span from the
    /// first to the last one, drain included, not over the load's duration: a server that falls behind and
    /// delivers during the drain gets the rate it really kept.
    public var ratePerSecond: Double {
        if self.isFanOut, self.deliveries.spanSeconds > 0 {
            return Double(self.counters.received) / self.deliveries.spanSeconds
        }
        return self.elapsedSeconds > 0 ? Double(self.counters.received) / self.elapsedSeconds : 0
    }

    /// Lost messages: for fanout and pubsub, deliveries expected and never received.
    public var lost: Int {
        self.isFanOut ? max(0, self.counters.expected - self.counters.received) : self.counters.lost
    }

    /// The share of the deliveries received that arrived after the load ended, in percent with one decimal.
    public var latePercent: Double {
        Self.percent(self.deliveries.lateCount, of: self.counters.received) ?? 0
    }

    /// Server memory per open connection, in bytes (idle).
    public var bytesPerConnection: Double? {
        guard let before = self.serverRSSBefore, let after = self.serverRSSAfter, self.counters.opened > 0 else {
            return nil
        }
        return Double(after - before) / Double(self.counters.opened)
    }

    /// Bytes as received or sent compressed per byte of the messages themselves, in percent (nil without any).
    private static func percent(_ part: Int, of whole: Int) -> Double? {
        whole > 0 ? (Double(part) * 1000 / Double(whole)).rounded() / 10 : nil
    }

    /// The compression counts as one JSON object, or null when compression was not offered.
    private var compressionJSON: JSONValue {
        guard self.compressionOffered else { return .null }
        let counters = self.counters
        let received = Self.percent(counters.compressedReceivedWireBytes, of: counters.compressedReceivedInflatedBytes)
        let sent = Self.percent(counters.compressedSentWireBytes, of: counters.compressedSentOriginalBytes)
        return .object(
            JSONObject(uniqueKeysWithValues: [
                ("connectionsAgreed", .int(Int64(counters.compressionAgreed))),
                ("messagesReceived", .int(Int64(counters.compressedReceived))),
                ("wireBytesReceived", .int(Int64(counters.compressedReceivedWireBytes))),
                ("inflatedBytesReceived", .int(Int64(counters.compressedReceivedInflatedBytes))),
                ("receivedPercent", received.map { .double($0) } ?? .null),
                ("messagesSent", .int(Int64(counters.compressedSent))),
                ("originalBytesSent", .int(Int64(counters.compressedSentOriginalBytes))),
                ("wireBytesSent", .int(Int64(counters.compressedSentWireBytes))),
                ("sentPercent", sent.map { .double($0) } ?? .null),
            ])
        )
    }

    /// The compression line of the text summary.
    private var compressionText: String {
        let counters = self.counters
        func ratio(_ part: Int, _ whole: Int) -> String {
            Self.percent(part, of: whole).map { " (\($0) %)" } ?? ""
        }
        let received =
            "received \(counters.compressedReceived) compressed messages, "
            + "\(counters.compressedReceivedWireBytes) bytes on the wire for "
            + "\(counters.compressedReceivedInflatedBytes) inflated"
            + ratio(counters.compressedReceivedWireBytes, counters.compressedReceivedInflatedBytes)
        let sent =
            "sent \(counters.compressedSent) compressed, \(counters.compressedSentOriginalBytes) bytes as "
            + "\(counters.compressedSentWireBytes) on the wire"
            + ratio(counters.compressedSentWireBytes, counters.compressedSentOriginalBytes)
        let agreed = "\(counters.compressionAgreed) of \(counters.opened) connections agreed"
        return "compression: \(agreed); \(received); \(sent)"
    }

    /// `bytes` over `seconds` in megabits per second, with one decimal.
    private static func megabitsPerSecond(_ bytes: Int, _ seconds: Double) -> String {
        guard seconds > 0 else { return "0" }
        let tenths = (Double(bytes) * 8 / seconds / 100_000).rounded()
        return "\(Int(tenths) / 10).\(Int(tenths) % 10)"
    }

    private func microseconds(_ nanoseconds: UInt64) -> Double {
        (Double(nanoseconds) / 100).rounded() / 10
    }

    /// The report as one JSON object.
    public var json: JSONValue {
        var fields: [(String, JSONValue)] = [
            ("scenario", .string(self.scenario.rawValue)),
            ("target", .string(self.target)),
            ("seconds", .double((self.elapsedSeconds * 1000).rounded() / 1000)),
            ("connectionsOpened", .int(Int64(self.counters.opened))),
            ("connectFailures", .int(Int64(self.counters.connectFailures))),
            ("errors", .int(Int64(self.counters.errors))),
        ]
        switch self.scenario {
        case .echo:
            fields += [
                ("sent", .int(Int64(self.counters.sent))),
                ("received", .int(Int64(self.counters.received))),
                ("lost", .int(Int64(self.lost))),
                ("mismatched", .int(Int64(self.counters.mismatched))),
                ("messagesPerSecond", .double(self.ratePerSecond.rounded())),
            ]
        case .fanout, .pubsub:
            let late = self.deliveries.late
            fields += [
                ("published", .int(Int64(self.counters.sent))),
                ("expectedDeliveries", .int(Int64(self.counters.expected))),
                ("deliveries", .int(Int64(self.counters.received))),
                ("lost", .int(Int64(self.lost))),
                ("mismatched", .int(Int64(self.counters.mismatched))),
                ("deliveriesPerSecond", .double(self.ratePerSecond.rounded())),
                ("deliverySpanSeconds", .double((self.deliveries.spanSeconds * 1000).rounded() / 1000)),
                ("lateDeliveries", .int(Int64(self.deliveries.lateCount))),
                ("latePercent", .double(self.latePercent)),
                (
                    "lateLatencyMicroseconds",
                    .object(
                        JSONObject(uniqueKeysWithValues: [
                            ("p50", .double(self.microseconds(late.value(atQuantile: 0.5)))),
                            ("p99", .double(self.microseconds(late.value(atQuantile: 0.99)))),
                            ("max", .double(self.microseconds(late.maximum))),
                        ])
                    )
                ),
            ]
        case .idle:
            fields += [
                ("serverRSSBefore", self.serverRSSBefore.map { .int(Int64($0)) } ?? .null),
                ("serverRSSAfter", self.serverRSSAfter.map { .int(Int64($0)) } ?? .null),
                ("bytesPerConnection", self.bytesPerConnection.map { .double($0.rounded()) } ?? .null),
            ]
        case .roster:
            let convergence = self.convergence ?? Convergence()
            fields += [
                ("changes", .int(Int64(self.counters.sent))),
                ("acknowledged", .int(Int64(self.counters.acknowledged))),
                ("patchDeliveries", .int(Int64(self.counters.received))),
                ("patchDeliveriesPerSecond", .double(self.ratePerSecond.rounded())),
                ("drifted", .int(Int64(self.counters.mismatched))),
                ("observersConverged", .int(Int64(convergence.converged))),
                ("observersDivergent", .int(Int64(convergence.divergent))),
                ("distinctRosters", .int(Int64(convergence.distinctRosters))),
                ("stateMismatches", .int(Int64(convergence.stateMismatches))),
                ("finalSequence", .int(Int64(convergence.sequence))),
                ("finalChecksum", .string(convergence.checksum)),
                ("converged", .bool(convergence.isConverged)),
            ]
        case .connect:
            fields += [
                ("handshakes", .int(Int64(self.counters.received))),
                ("handshakesPerSecond", .double(self.ratePerSecond.rounded())),
            ]
        }
        if self.scenario != .idle {
            fields.append(
                (
                    "latencyMicroseconds",
                    .object(
                        JSONObject(uniqueKeysWithValues: [
                            ("samples", .int(Int64(self.latency.count))),
                            ("mean", .double((self.latency.mean / 100).rounded() / 10)),
                            ("p50", .double(self.microseconds(self.latency.value(atQuantile: 0.5)))),
                            ("p99", .double(self.microseconds(self.latency.value(atQuantile: 0.99)))),
                            ("p999", .double(self.microseconds(self.latency.value(atQuantile: 0.999)))),
                            ("max", .double(self.microseconds(self.latency.maximum))),
                        ])
                    )
                ))
        }
        fields.append(("bytesSent", .int(Int64(self.counters.bytesSent))))
        fields.append(("bytesReceived", .int(Int64(self.counters.bytesReceived))))
        fields.append(("compression", self.compressionJSON))
        fields.append(("errorSamples", .array(self.errorSamples.map { .string($0) })))
        return .object(JSONObject(uniqueKeysWithValues: fields))
    }

    /// The line about deliveries after the load ended (fanout, pubsub).
    private var lateText: String {
        let late = self.deliveries.late
        guard late.count > 0 else { return "after the load ended: no deliveries" }
        return "after the load ended: \(late.count) deliveries (\(self.latePercent) % of those received), latency "
            + "(µs) p50 \(self.microseconds(late.value(atQuantile: 0.5))), "
            + "p99 \(self.microseconds(late.value(atQuantile: 0.99))), max \(self.microseconds(late.maximum))"
    }

    /// The report for people.
    public var text: String {
        var lines = ["\(self.scenario.rawValue) \(self.target): \(String(format3: self.elapsedSeconds)) s"]
        lines.append(
            "connections: \(self.counters.opened) opened, \(self.counters.connectFailures) failed to open, "
                + "\(self.counters.errors) errors"
        )
        switch self.scenario {
        case .echo:
            lines.append(
                "messages: \(self.counters.sent) sent, \(self.counters.received) received, \(self.lost) lost, "
                    + "\(self.counters.mismatched) mismatched; \(Int(self.ratePerSecond.rounded())) msgs/s"
            )
        case .fanout, .pubsub:
            lines.append(
                "published \(self.counters.sent); deliveries: \(self.counters.expected) expected, "
                    + "\(self.counters.received) received, \(self.lost) lost, \(self.counters.mismatched) mismatched; "
                    + "\(Int(self.ratePerSecond.rounded())) deliveries/s over "
                    + "\(String(format3: self.deliveries.spanSeconds)) s from the first delivery to the last"
            )
            lines.append(self.lateText)
        case .idle:
            if let before = self.serverRSSBefore, let after = self.serverRSSAfter {
                let perConnection = self.bytesPerConnection.map { String(Int($0.rounded())) } ?? "-"
                lines.append(
                    "server RSS: \(before / 1024) KiB before, \(after / 1024) KiB after; \(perConnection) bytes per connection"
                )
            }
        case .roster:
            let convergence = self.convergence ?? Convergence()
            lines.append(
                "changes: \(self.counters.sent) sent, \(self.counters.acknowledged) acknowledged; patches: "
                    + "\(self.counters.received) delivered, \(Int(self.ratePerSecond.rounded())) deliveries/s, "
                    + "\(self.counters.mismatched) drifted"
            )
            lines.append(
                "convergence: \(convergence.isConverged ? "OK" : "FAILED"): \(convergence.converged) observers at seq "
                    + "\(convergence.sequence) checksum \(convergence.checksum), \(convergence.divergent) divergent, "
                    + "\(convergence.distinctRosters) distinct rosters, \(convergence.stateMismatches) participants "
                    + "not showing their last change"
            )
        case .connect:
            lines.append("handshakes: \(self.counters.received); \(Int(self.ratePerSecond.rounded())) handshakes/s")
        }
        if self.scenario != .idle {
            lines.append(
                "latency (µs): p50 \(self.microseconds(self.latency.value(atQuantile: 0.5))), "
                    + "p99 \(self.microseconds(self.latency.value(atQuantile: 0.99))), "
                    + "p99.9 \(self.microseconds(self.latency.value(atQuantile: 0.999))), "
                    + "max \(self.microseconds(self.latency.maximum)) over \(self.latency.count) samples"
            )
        }
        lines.append(
            "bytes: \(self.counters.bytesSent) sent, \(self.counters.bytesReceived) received on the sockets "
                + "(\(Self.megabitsPerSecond(self.counters.bytesSent, self.elapsedSeconds)) / "
                + "\(Self.megabitsPerSecond(self.counters.bytesReceived, self.elapsedSeconds)) Mbit/s)"
        )
        if self.compressionOffered { lines.append(self.compressionText) }
        for sample in self.errorSamples { lines.append("error: \(sample)") }
        return lines.joined(separator: "\n")
    }
}

extension String {
    fileprivate init(format3 value: Double) {
        let thousandths = Int((value * 1000).rounded())
        let fraction = String(thousandths % 1000)
        self = "\(thousandths / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
    }
}
