import WebSocketCore

/// A token bucket per connection: `ratePerSecond` tokens a second, at most `burst` saved up. Every message and
/// every control frame takes one token; a connection that finds the bucket empty is over its rate.
struct MessageRateLimiter {
    /// Tokens added per second; 0 turns the limit off.
    let ratePerSecond: Int
    /// The most tokens the bucket holds.
    let burst: Int
    /// Tokens in the bucket, in millitokens (integer arithmetic, no drift).
    private var milliTokens: Int
    /// When the bucket was last refilled, in monotonic nanoseconds.
    private var refilledAt: UInt64

    init(ratePerSecond: Int, burst: Int, now: UInt64) {
        self.ratePerSecond = ratePerSecond
        self.burst = max(burst, 1)
        self.milliTokens = self.burst * 1000
        self.refilledAt = now
    }

    /// Whether the limit is on.
    var isEnabled: Bool { self.ratePerSecond > 0 }

    /// Takes one token; false when the bucket is empty (the message is over the rate).
    mutating func admit(now: UInt64) -> Bool {
        guard self.ratePerSecond > 0 else { return true }
        let capacity = self.burst * 1000
        if now > self.refilledAt {
            let elapsed = now - self.refilledAt
            // rate tokens/s = rate millitokens/ms; whole milliseconds only, the rest is kept for the next refill.
            let milliseconds = elapsed / 1_000_000
            if milliseconds > 0 {
                let added = min(UInt64(capacity), milliseconds &* UInt64(self.ratePerSecond))
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
