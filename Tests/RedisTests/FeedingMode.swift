/// How the bytes reach the parser.
enum FeedingMode: Hashable, Sendable, CustomStringConvertible {
    /// Everything in one read.
    case whole
    /// One byte per read.
    case byteByByte
    /// Reads of random sizes, reproducible from the seed.
    case randomChunks(seed: UInt64)

    /// Every mode a vector is fed in: whole, byte by byte, and several seeds of random chunks.
    static let all: [FeedingMode] = [.whole, .byteByByte] + (1...6).map { .randomChunks(seed: $0) }

    var description: String {
        switch self {
        case .whole: return "whole"
        case .byteByByte: return "byte by byte"
        case .randomChunks(let seed): return "random chunks (seed \(seed))"
        }
    }

    /// Splits `count` bytes into the read sizes of this mode.
    func chunkSizes(for count: Int) -> [Int] {
        switch self {
        case .whole:
            return count == 0 ? [] : [count]
        case .byteByByte:
            return Array(repeating: 1, count: count)
        case .randomChunks(let seed):
            var generator = SplitMix64(seed: seed)
            var sizes: [Int] = []
            var remaining = count
            while remaining > 0 {
                let largest = Bool.random(using: &generator) ? 4 : max(1, count / 3)
                let size = min(remaining, Int.random(in: 1...largest, using: &generator))
                sizes.append(size)
                remaining -= size
            }
            return sizes
        }
    }
}
