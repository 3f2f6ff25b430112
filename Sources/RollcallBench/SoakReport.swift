import JSONCoding

/// What a soak run did and saw.
public struct SoakReport: Sendable {
    public var target: String
    public var elapsedSeconds: Double
    public var samples: [SoakSample]
    /// Actions by kind, and what went wrong.
    public var counts: [(String, Int)]

    /// The least-squares slope per hour of a series, over the samples after the first (which is taken before the
    /// clients connect): a leak shows as a steady positive slope.
    /// With `lastHalfOnly`, over the second half of the run only: warm-up (history filling to its cap, allocator
    /// pools growing) is left out, so what remains is the steady state.
    public func slopePerHour(_ value: (SoakSample) -> Int?, lastHalfOnly: Bool = false) -> Double? {
        let half = (self.samples.last?.elapsed ?? 0) / 2
        let points = self.samples.dropFirst().filter { !lastHalfOnly || $0.elapsed >= half }.compactMap { sample in
            value(sample).map { (sample.elapsed / 3600, Double($0)) }
        }
        guard points.count >= 2 else { return nil }
        let meanX = points.map(\.0).reduce(0, +) / Double(points.count)
        let meanY = points.map(\.1).reduce(0, +) / Double(points.count)
        let spread = points.map { ($0.0 - meanX) * ($0.0 - meanX) }.reduce(0, +)
        guard spread > 0 else { return nil }
        return points.map { ($0.0 - meanX) * ($0.1 - meanY) }.reduce(0, +) / spread
    }

    private func slopes(lastHalfOnly: Bool = false) -> [(String, Double?)] {
        [
            ("rssBytes", self.slopePerHour(\.rssBytes, lastHalfOnly: lastHalfOnly)),
            ("fds", self.slopePerHour(\.fds, lastHalfOnly: lastHalfOnly)),
            ("rooms", self.slopePerHour(\.rooms, lastHalfOnly: lastHalfOnly)),
            ("roster", self.slopePerHour(\.roster, lastHalfOnly: lastHalfOnly)),
        ]
    }

    private static func json(_ slopes: [(String, Double?)]) -> JSONValue {
        .object(
            JSONObject(
                uniqueKeysWithValues: slopes.map { name, slope in
                    (name, slope.map { .double(($0 * 10).rounded() / 10) } ?? .null)
                }))
    }

    private static func text(_ slopes: [(String, Double?)]) -> String {
        slopes.map { name, slope in "\(name) " + (slope.map { String(format1: $0) } ?? "?") }.joined(separator: ", ")
    }

    public var json: JSONValue {
        .object(
            JSONObject(uniqueKeysWithValues: [
                ("scenario", .string("soak")), ("target", .string(self.target)),
                ("elapsedSeconds", .double((self.elapsedSeconds * 10).rounded() / 10)),
                ("counts", .object(JSONObject(uniqueKeysWithValues: self.counts.map { ($0.0, .int(Int64($0.1))) }))),
                ("samples", .array(self.samples.map(\.json))),
                ("slopePerHour", Self.json(self.slopes())),
                ("slopePerHourLastHalf", Self.json(self.slopes(lastHalfOnly: true))),
            ]))
    }

    public var text: String {
        var lines = ["soak \(self.target): \(Int(self.elapsedSeconds.rounded())) s, \(self.samples.count) samples"]
        lines.append(self.counts.map { "\($0.0) \($0.1)" }.joined(separator: ", "))
        lines.append("slope per hour: " + Self.text(self.slopes()))
        lines.append("slope per hour, second half: " + Self.text(self.slopes(lastHalfOnly: true)))
        return lines.joined(separator: "\n")
    }
}
