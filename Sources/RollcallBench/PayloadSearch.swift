import Glibc

/// Byte searches in received payloads, in place: no copy, no decoding of text.
enum PayloadSearch {
    /// Where the first occurrence of `marker` at or after `start` ends in `buffer`, or nil.
    static func end(of marker: [UInt8], in buffer: UnsafeRawBufferPointer, from start: Int = 0) -> Int? {
        guard let base = buffer.baseAddress, !marker.isEmpty, start >= 0 else { return nil }
        let last = buffer.count - marker.count
        var index = start
        while index <= last {
            guard let found = memchr(base + index, Int32(marker[0]), last - index + 1) else { return nil }
            index = base.distance(to: UnsafeRawPointer(found))
            let matches = marker.withUnsafeBytes { memcmp(found, $0.baseAddress!, marker.count) == 0 }
            if matches { return index + marker.count }
            index += 1
        }
        return nil
    }

    /// Whether `buffer` starts with `prefix`.
    static func hasPrefix(_ buffer: UnsafeRawBufferPointer, _ prefix: StaticString) -> Bool {
        let count = prefix.utf8CodeUnitCount
        guard buffer.count >= count else { return false }
        return memcmp(buffer.baseAddress!, prefix.utf8Start, count) == 0
    }
}

/// The stamp the load generator puts in every message whose delivery it times: the sequence number in
/// `sequenceDigits` digits, a space, and the send time (monotonic nanoseconds) in `timeDigits` digits.
enum DeliveryStamp {
    /// Digits of the sequence number.
    static let sequenceDigits = 10
    /// Digits of the send time.
    static let timeDigits = 20
    /// Bytes of the whole stamp.
    static let count = sequenceDigits + 1 + timeDigits

    /// The stamp's bytes with both numbers zero, to fill in with `write`.
    static var template: [UInt8] {
        Array(repeating: UInt8(ascii: "0"), count: sequenceDigits) + [UInt8(ascii: " ")]
            + Array(repeating: UInt8(ascii: "0"), count: timeDigits)
    }

    /// Writes `sequence` and `sentAt` over the stamp at `offset`.
    @inline(__always)
    static func write(sequence: UInt64, sentAt: UInt64, into buffer: UnsafeMutableRawBufferPointer, at offset: Int) {
        FixedWidthDigits.write(sequence, into: buffer, at: offset, width: Self.sequenceDigits)
        FixedWidthDigits.write(sentAt, into: buffer, at: offset + Self.sequenceDigits + 1, width: Self.timeDigits)
    }

    /// Reads the stamp at `offset`, or nil when it is cut short or not digits.
    @inline(__always)
    static func read(_ buffer: UnsafeRawBufferPointer, at offset: Int) -> (sequence: UInt64, sentAt: UInt64)? {
        guard let sequence = FixedWidthDigits.read(buffer, at: offset, width: Self.sequenceDigits),
            let sentAt = FixedWidthDigits.read(buffer, at: offset + Self.sequenceDigits + 1, width: Self.timeDigits)
        else { return nil }
        return (sequence, sentAt)
    }
}
