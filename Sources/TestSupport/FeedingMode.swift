/// How a byte stream reaches an incremental parser (a WebSocket frame decoder, an HTTP head parser, a RESP parser):
/// the ways a socket may cut the same bytes into reads. A parser must give the same answer in every mode.
public enum FeedingMode: Hashable, Sendable, CustomStringConvertible {
    /// Everything in one read.
    case whole
    /// One byte per read.
    case byteByByte
    /// Reads of random sizes, reproducible from the seed: about half of them at most `smallRead` bytes, which cut
    /// headers and length fields apart, the others up to a third of the stream, which hold several messages.
    case randomChunks(seed: UInt64, smallRead: Int = 8)

    /// Whole, byte by byte, then random chunks from each seed.
    public static func allModes(seeds: some Sequence<UInt64>, smallRead: Int = 8) -> [FeedingMode] {
        [.whole, .byteByByte] + seeds.map { .randomChunks(seed: $0, smallRead: smallRead) }
    }

    public var description: String {
        switch self {
        case .whole: return "whole"
        case .byteByByte: return "byte by byte"
        case .randomChunks(let seed, 8): return "random chunks (seed \(seed))"
        case .randomChunks(let seed, let smallRead): return "random chunks (seed \(seed), small reads \(smallRead))"
        }
    }

    /// Splits `count` bytes into the read sizes of this mode; every size is at least 1 and they add up to `count`.
    public func chunkSizes(for count: Int) -> [Int] {
        switch self {
        case .whole:
            return count == 0 ? [] : [count]
        case .byteByByte:
            return Array(repeating: 1, count: count)
        case .randomChunks(let seed, let smallRead):
            var generator = SplitMix64(seed: seed)
            var sizes: [Int] = []
            var remaining = count
            while remaining > 0 {
                let largest = Bool.random(using: &generator) ? smallRead : max(1, count / 3)
                let size = min(remaining, Int.random(in: 1...largest, using: &generator))
                sizes.append(size)
                remaining -= size
            }
            return sizes
        }
    }

    /// `bytes` cut into the reads of this mode, in order.
    public func reads(of bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        var start = bytes.startIndex
        return self.chunkSizes(for: bytes.count).map { size in
            defer { start += size }
            return bytes[start..<(start + size)]
        }
    }
}
