import Synchronization

/// A cumulative latency histogram with fixed buckets, safe to record from any thread (relaxed atomic adds, no lock),
/// exposed as a Prometheus histogram in seconds.
public final class LatencyHistogram: Sendable {
    /// Upper bounds of the buckets, in seconds: 50 µs to 1 s; larger values land only in `+Inf`.
    public static let bounds: [Double] = [
        0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1,
    ]
    private static let boundsNanoseconds: [UInt64] = bounds.map { UInt64($0 * 1e9) }

    private final class Cell: Sendable {
        let value = Atomic<Int>(0)
    }

    /// Non-cumulative counts per bucket; the last cell counts values above every bound.
    private let cells: [Cell] = (0...LatencyHistogram.bounds.count).map { _ in Cell() }
    private let sumNanoseconds = Atomic<Int>(0)

    public init() {}

    /// Records one observation.
    ///
    /// - Parameter nanoseconds: the measured time.
    public func record(nanoseconds: UInt64) {
        var index = 0
        let bounds = Self.boundsNanoseconds
        while index < bounds.count && nanoseconds > bounds[index] { index += 1 }
        self.cells[index].value.wrappingAdd(1, ordering: .relaxed)
        self.sumNanoseconds.wrappingAdd(Int(truncatingIfNeeded: nanoseconds), ordering: .relaxed)
    }

    /// The cumulative counts (observations ≤ each bound, then the total for `+Inf`) and the sum in seconds.
    public var snapshot: (cumulative: [Int], count: Int, sumSeconds: Double) {
        var running = 0
        var cumulative: [Int] = []
        for cell in self.cells {
            running += cell.value.load(ordering: .relaxed)
            cumulative.append(running)
        }
        return (Array(cumulative.dropLast()), running, Double(self.sumNanoseconds.load(ordering: .relaxed)) / 1e9)
    }
}
