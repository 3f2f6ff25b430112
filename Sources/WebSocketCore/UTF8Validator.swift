/// Streaming UTF-8 validation (RFC 3629) for text messages that arrive in fragments.
///
/// Feed the bytes of a message in any number of pieces; `validate` returns false at the first piece that holds a
/// byte that can never be part of valid UTF-8, so a connection can fail fast (RFC 6455 §8.1).
public struct UTF8Validator: Sendable {
    // Bytes still expected to finish the current sequence, and the allowed range of the next one.
    private var remaining: UInt8 = 0
    private var nextLow: UInt8 = 0x80
    private var nextHigh: UInt8 = 0xBF

    public init() {}

    /// Whether the bytes so far end on a character boundary.
    public var isComplete: Bool { self.remaining == 0 }

    /// Forgets any partial sequence, to start a new message.
    public mutating func reset() {
        self = UTF8Validator()
    }

    /// Validates the next bytes of the message.
    ///
    /// - Parameter bytes: the next piece of the message.
    /// - Returns: false as soon as the bytes so far cannot be a prefix of valid UTF-8.
    public mutating func validate(_ bytes: UnsafeRawBufferPointer) -> Bool {
        for byte in bytes {
            if self.remaining == 0 {
                switch byte {
                case 0x00...0x7F: continue
                case 0xC2...0xDF: self.remaining = 1; self.nextLow = 0x80; self.nextHigh = 0xBF
                case 0xE0: self.remaining = 2; self.nextLow = 0xA0; self.nextHigh = 0xBF
                case 0xE1...0xEC, 0xEE...0xEF: self.remaining = 2; self.nextLow = 0x80; self.nextHigh = 0xBF
                case 0xED: self.remaining = 2; self.nextLow = 0x80; self.nextHigh = 0x9F
                case 0xF0: self.remaining = 3; self.nextLow = 0x90; self.nextHigh = 0xBF
                case 0xF1...0xF3: self.remaining = 3; self.nextLow = 0x80; self.nextHigh = 0xBF
                case 0xF4: self.remaining = 3; self.nextLow = 0x80; self.nextHigh = 0x8F
                default: return false
                }
            } else {
                guard byte >= self.nextLow && byte <= self.nextHigh else { return false }
                self.remaining -= 1
                self.nextLow = 0x80
                self.nextHigh = 0xBF
            }
        }
        return true
    }
}
