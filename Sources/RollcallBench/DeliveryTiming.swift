/// When fan-out deliveries arrived (fanout, pubsub): the first and the last, and the latency of those that arrived
/// after the load ended.
///
/// A server that falls behind delivers much of a run while the load generator drains: dividing the deliveries by
/// the load's duration would credit it with a rate it never kept. The report divides by the span from the first
/// to the last delivery instead, and shows how many deliveries came after the load ended and how late they were.
public struct DeliveryTiming: Sendable {
    /// Monotonic nanoseconds of the first delivery; 0 while there is none.
    public private(set) var first: UInt64 = 0
    /// Monotonic nanoseconds of the last delivery; 0 while there is none.
    public private(set) var last: UInt64 = 0
    /// Deliveries recorded.
    public private(set) var count = 0
    /// The latency of every delivery that arrived after the load ended, in nanoseconds; its count is theirs.
    public private(set) var late = LatencyHistogram()

    public init() {}

    /// Counts one delivery.
    ///
    /// - Parameters:
    ///   - now: when it arrived, in monotonic nanoseconds.
    ///   - latency: its latency, in nanoseconds.
    ///   - afterLoad: whether it arrived after the load ended.
    @inline(__always)
    public mutating func record(at now: UInt64, latency: UInt64, afterLoad: Bool) {
        if self.count == 0 || now < self.first { self.first = now }
        if now > self.last { self.last = now }
        self.count += 1
        if afterLoad { self.late.record(latency) }
    }

    /// Adds another loop's deliveries.
    ///
    /// - Parameter other: the other loop's timing.
    public mutating func merge(_ other: DeliveryTiming) {
        guard other.count > 0 else { return }
        self.first = self.count == 0 ? other.first : min(self.first, other.first)
        self.last = max(self.last, other.last)
        self.count += other.count
        self.late.merge(other.late)
    }

    /// Seconds from the first delivery to the last (0 with fewer than two).
    public var spanSeconds: Double {
        self.count > 1 ? Double(self.last - self.first) / 1e9 : 0
    }

    /// Deliveries that arrived after the load ended.
    public var lateCount: Int { Int(self.late.count) }
}
