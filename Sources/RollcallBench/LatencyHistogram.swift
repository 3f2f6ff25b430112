/// A latency histogram with log-linear buckets: exact below 128, then 64 buckets per power of two (under 1.6 %
/// relative error), for any 64-bit value. Its storage is fixed at creation, so recording never allocates.
public struct LatencyHistogram: Sendable {
    /// Values below this are counted exactly.
    static let linearLimit: UInt64 = 128
    /// Buckets per power of two above `linearLimit`.
    static let subBuckets = 64
    static let bucketCount = Int(linearLimit) + (63 - 7 + 1) * subBuckets

    private var counts: [UInt64]
    /// Samples recorded.
    public private(set) var count: UInt64 = 0
    /// The largest sample, exact.
    public private(set) var maximum: UInt64 = 0
    /// The smallest sample, exact (0 when empty).
    public var minimum: UInt64 { self.count == 0 ? 0 : self.smallest }
    private var smallest: UInt64 = .max
    private var sum: Double = 0

    public init() {
        self.counts = [UInt64](repeating: 0, count: Self.bucketCount)
    }

    /// The mean of the samples (0 when empty).
    public var mean: Double { self.count == 0 ? 0 : self.sum / Double(self.count) }

    @inline(__always)
    static func bucket(of value: UInt64) -> Int {
        if value < linearLimit { return Int(value) }
        let power = 63 - value.leadingZeroBitCount  // >= 7
        let mantissa = Int(value >> UInt64(power - 6))  // 64..<128
        return Int(linearLimit) + (power - 7) * subBuckets + (mantissa - subBuckets)
    }

    /// The largest value that falls into `bucket`.
    static func upperBound(of bucket: Int) -> UInt64 {
        if bucket < Int(linearLimit) { return UInt64(bucket) }
        let offset = bucket - Int(linearLimit)
        let power = offset / subBuckets + 7
        let mantissa = UInt64(offset % subBuckets + subBuckets)
        let shift = UInt64(power - 6)
        let low = mantissa << shift
        return low &+ ((1 << shift) - 1)
    }

    /// Counts one sample.
    @inline(__always)
    public mutating func record(_ value: UInt64) {
        self.counts[Self.bucket(of: value)] &+= 1
        self.count &+= 1
        self.sum += Double(value)
        if value > self.maximum { self.maximum = value }
        if value < self.smallest { self.smallest = value }
    }

    /// Adds another histogram's samples.
    public mutating func merge(_ other: LatencyHistogram) {
        for index in 0..<Self.bucketCount { self.counts[index] &+= other.counts[index] }
        self.count &+= other.count
        self.sum += other.sum
        self.maximum = max(self.maximum, other.maximum)
        self.smallest = min(self.smallest, other.smallest)
    }

    /// The value at `quantile` (0...1): the upper bound of its bucket, capped at the exact maximum.
    public func value(atQuantile quantile: Double) -> UInt64 {
        guard self.count > 0 else { return 0 }
        let rank = max(1, UInt64((quantile * Double(self.count)).rounded(.up)))
        var seen: UInt64 = 0
        for index in 0..<Self.bucketCount {
            seen &+= self.counts[index]
            if seen >= rank { return min(Self.upperBound(of: index), self.maximum) }
        }
        return self.maximum
    }
}
