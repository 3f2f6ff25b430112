import Redis
import TestSupport

/// Feeds bytes to a parser the way a connection does: unconsumed bytes stay at the front of the receive buffer,
/// new bytes are appended behind them, and `parse` runs again over the whole buffer until it wants more.
struct RESPFeeder {
    private var parser: RESPParser
    /// Bytes received but not yet consumed.
    private(set) var pending: [UInt8] = []
    /// Every value and failure reported so far, in order; `.incomplete` is never recorded.
    private(set) var results: [RESPParser.Result] = []

    init(parser: RESPParser = RESPParser()) {
        self.parser = parser
    }

    mutating func receive(_ bytes: some Collection<UInt8>) {
        self.pending.append(contentsOf: bytes)
        // A failure is final: the connection would be closed, so nothing after it is parsed.
        if case .failure = self.results.last { return }
        while true {
            let result = self.pending.withUnsafeBytes { self.parser.parse($0) }
            switch result {
            case .incomplete:
                return
            case .value(_, let consumed):
                self.results.append(result)
                self.pending.removeFirst(consumed)
            case .failure:
                self.results.append(result)
                return
            }
        }
    }

    /// Feeds `bytes` in the reads of `mode` to a fresh feeder, and returns it.
    static func feed(_ bytes: [UInt8], _ mode: FeedingMode, parser: RESPParser = RESPParser()) -> RESPFeeder {
        var feeder = RESPFeeder(parser: parser)
        for read in mode.reads(of: bytes) {
            feeder.receive(read)
        }
        return feeder
    }
}

extension FeedingMode {
    /// Reads of random chunks are mostly short enough (four bytes at most) to cut a RESP type byte, a length and its
    /// CRLF apart.
    static let respSmallRead = 4

    /// A RESP stream with random chunks from `seed`.
    static func respChunks(seed: UInt64) -> FeedingMode {
        .randomChunks(seed: seed, smallRead: respSmallRead)
    }

    /// Every mode a vector is fed in: whole, byte by byte, and several seeds of random chunks.
    static let all = FeedingMode.allModes(seeds: 1...6, smallRead: respSmallRead)
}

extension Array where Element == UInt8 {
    /// The UTF-8 bytes of `text`.
    init(resp text: String) {
        self = Array(text.utf8)
    }
}
