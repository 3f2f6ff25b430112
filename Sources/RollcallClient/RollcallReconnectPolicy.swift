/// When and how often a client reconnects after its connection drops.
///
/// The delay before attempt *n* (1-based) is `initialDelay × multiplier^(n−1)`, capped at `maximumDelay`, with up
/// to `jitter` of it added at random. Attempts restart from 1 after a connection that authenticated.
public struct RollcallReconnectPolicy: Hashable, Sendable {
    /// The most attempts after one drop; 0 disables reconnecting.
    public var maximumAttempts: Int
    /// The delay before the first attempt, in seconds.
    public var initialDelay: Double
    /// The largest delay, in seconds.
    public var maximumDelay: Double
    /// The factor between consecutive delays.
    public var multiplier: Double
    /// The fraction of each delay added at random, 0...1, so many clients do not reconnect in step.
    public var jitter: Double

    /// Creates a policy.
    ///
    /// - Parameters:
    ///   - maximumAttempts: the most attempts after one drop; default 10, 0 disables reconnecting.
    ///   - initialDelay: seconds before the first attempt; default 0.2.
    ///   - maximumDelay: the largest delay in seconds; default 10.
    ///   - multiplier: the factor between delays; default 2.
    ///   - jitter: the random fraction added to each delay; default 0.2.
    public init(
        maximumAttempts: Int = 10,
        initialDelay: Double = 0.2,
        maximumDelay: Double = 10,
        multiplier: Double = 2,
        jitter: Double = 0.2
    ) {
        self.maximumAttempts = maximumAttempts
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
        self.multiplier = multiplier
        self.jitter = jitter
    }

    /// No reconnecting: a dropped connection closes the client.
    public static let never = RollcallReconnectPolicy(maximumAttempts: 0)

    /// The delay before an attempt, in seconds.
    ///
    /// - Parameters:
    ///   - attempt: the attempt number, from 1.
    public func delay(beforeAttempt attempt: Int) -> Double {
        let base = min(self.maximumDelay, self.initialDelay * pow(self.multiplier, Double(max(0, attempt - 1))))
        let spread = max(0, min(1, self.jitter))
        return base + (spread > 0 ? Double.random(in: 0...(base * spread)) : 0)
    }

    private func pow(_ base: Double, _ exponent: Double) -> Double {
        var result = 1.0
        var remaining = Int(exponent)
        while remaining > 0 && result < 1e9 {
            result *= base
            remaining -= 1
        }
        return result
    }
}
