/// Decimal numbers of a fixed width written into and read from payload bytes in place (the sequence numbers and send
/// times the load generator stamps into its messages), without building strings.
enum FixedWidthDigits {
    /// Writes `value` as exactly `width` decimal digits at `offset`, zero-padded (higher digits are dropped).
    @inline(__always)
    static func write(_ value: UInt64, into buffer: UnsafeMutableRawBufferPointer, at offset: Int, width: Int) {
        var remaining = value
        var index = offset + width - 1
        while index >= offset {
            buffer[index] = UInt8(ascii: "0") + UInt8(remaining % 10)
            remaining /= 10
            index -= 1
        }
    }

    /// Reads `width` decimal digits at `offset`, or nil when they run past the end or one is not a digit.
    @inline(__always)
    static func read(_ buffer: UnsafeRawBufferPointer, at offset: Int, width: Int) -> UInt64? {
        guard offset + width <= buffer.count else { return nil }
        var value: UInt64 = 0
        for index in offset..<(offset + width) {
            let digit = buffer[index] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            value = value &* 10 &+ UInt64(digit)
        }
        return value
    }

    /// Reads `width` decimal digits at `offset` of a mutable buffer.
    @inline(__always)
    static func read(_ buffer: UnsafeMutableRawBufferPointer, at offset: Int, width: Int) -> UInt64? {
        Self.read(UnsafeRawBufferPointer(buffer), at: offset, width: width)
    }
}
