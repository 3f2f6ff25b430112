import HTTPCore
import TestSupport
import Testing

/// Where the upgrade request ends and the frames begin: the head parser leaves the bytes after it to the frames.
@Suite struct UpgradeRequestTests {
    /// Feeds growing prefixes of `bytes` to one request parser, as reads arrive, until it stops answering
    /// `.incomplete`; returns the last answer.
    private static func parseIncrementally(_ bytes: [UInt8], mode: FeedingMode) -> HTTPRequestParser.Result {
        var parser = HTTPRequestParser()
        var received: [UInt8] = []
        var result = HTTPRequestParser.Result.incomplete
        for read in mode.reads(of: bytes) {
            received += read
            result = received.withUnsafeBytes { parser.parse($0) }
            guard case .incomplete = result else { break }
        }
        return result
    }

    @Test func bytesAfterTheHeadAreLeftForFrames() throws {
        let frames = clientText("Hello") + clientFrame(opcode: Op.ping, payload: [1])
        let bytes = Array(sampleRequest.utf8) + frames
        let head = try #require(parseHead(String(decoding: bytes, as: UTF8.self)))
        #expect(head.size == sampleRequest.utf8.count)
        #expect(head.bytes == Array(sampleRequest.utf8))
        expectEvents(Array(bytes[head.size...]), [.text("Hello"), .ping([1])])

        // The same when the head and the first frame bytes arrive in pieces.
        for mode in allFeedingModes {
            let outcome = Self.parseIncrementally(bytes, mode: mode)
            guard case .complete(let parsed) = outcome else {
                Issue.record("\(mode): \(String(describing: outcome))")
                continue
            }
            #expect(parsed.size == sampleRequest.utf8.count, "\(mode)")
        }
    }
}
