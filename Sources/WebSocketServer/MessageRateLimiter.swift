import WebSocketCore

/// A token bucket per connection: `rate.perSecond` tokens a second, at most `rate.burst` saved up. Every message
/// and every control frame takes one token; a connection that finds the bucket empty is over its rate.
///
/// The rate is the server's, the same for every connection, so the bucket keeps only its own state (two words)
/// and is given the rate on each use.
struct MessageRateLimiter {
    /// A server's message rate.
    struct Rate {
        /// Tokens added per second; 0 turns the limit off.
        let perSecond: Int
        /// The most tokens a bucket holds.
        let burst: Int

        init(perSecond: Int, burst: Int) {
            self.perSecond = perSecond
            self.burst = max(burst, 1)
        }

        /// Whether the limit is on.
        var isEnabled: Bool { self.perSecond > 0 }
    }

    /// Tokens in the bucket, in millitokens (integer arithmetic, no drift).
    private var milliTokens: Int
    /// When the bucket was last refilled, in monotonic nanoseconds.
    private var refilledAt: UInt64

    /// A full bucket.
    init(rate: Rate, now: UInt64) {
        self.milliTokens = rate.burst * 1000
        self.refilledAt = now
    }

    /// Takes one token; false when the bucket is empty (the message is over the rate).
    mutating func admit(now: UInt64, rate: Rate) -> Bool {
        guard rate.perSecond > 0 else { return true }
        let capacity = rate.burst * 1000
        if now > self.refilledAt {
            let elapsed = now - self.refilledAt
            // rate tokens/s = rate millitokens/ms; whole milliseconds only, the rest is kept for the next refill.
            let milliseconds = elapsed / 1_000_000
            if milliseconds > 0 {
                let added = min(UInt64(capacity), milliseconds &* UInt64(rate.perSecond))
                self.milliTokens = min(capacity, self.milliTokens + Int(added))
                self.refilledAt += milliseconds * 1_000_000
            }
        }
        guard self.milliTokens >= 1000 else { return false }
        self.milliTokens -= 1000
        return true
    }
}

extension WebSocketInboundProcessor.Event {
    /// Messages and control frames take a token; a Close and a protocol violation end the connection anyway.
    var countsAgainstRate: Bool {
        switch self {
        case .text, .binary, .ping, .pong: return true
        case .close, .violation: return false
        }
    }
}
