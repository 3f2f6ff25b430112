import HTTPCore
import Testing

/// The answer reader: heads, bodies by length and by chunks, interim answers, bounds, and byte-by-byte arrival.
@Suite struct HTTPResponseReaderTests {
    static func read(_ text: String, bodyBound: Int = 64, oneByteAtATime: Bool = false) -> HTTPResponseReader.Outcome {
        var reader = HTTPResponseReader(maximumHeadBytes: 256, maximumBodyBytes: bodyBound)
        let bytes = Array(text.utf8)
        let pieces = oneByteAtATime ? bytes.map { [$0] } : [bytes]
        for piece in pieces {
            let outcome = piece.withUnsafeBytes { reader.feed($0) }
            if outcome != .incomplete { return outcome }
        }
        return .incomplete
    }

    @Test(arguments: [false, true])
    func aLengthOrChunkedBodyIsReadToItsEndAndKeepsTheConnection(oneByteAtATime: Bool) {
        #expect(
            Self.read("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", oneByteAtATime: oneByteAtATime)
                == .complete(status: 200, keepAlive: true))
        #expect(
            Self.read(
                "HTTP/1.1 202 A\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n1;e=1\r\n!\r\n0\r\nX-T: 1\r\n\r\n",
                oneByteAtATime: oneByteAtATime) == .complete(status: 202, keepAlive: true))
        #expect(
            Self.read("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nok", oneByteAtATime: oneByteAtATime) == .incomplete)
        #expect(
            Self.read(
                "HTTP/1.1 202 A\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n", oneByteAtATime: oneByteAtATime)
                == .incomplete)
    }

    @Test(arguments: [false, true])
    func theAnswerToHEADEndsWithItsHeadWhateverItsFieldsSay(oneByteAtATime: Bool) {
        for text in [
            "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n",
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
            "HTTP/1.1 404 Not Found\r\nContent-Length: 1000\r\n\r\n",
        ] {
            var reader = HTTPResponseReader(maximumHeadBytes: 256, maximumBodyBytes: 64, isAnswerToHEAD: true)
            let bytes = Array(text.utf8)
            var outcome = HTTPResponseReader.Outcome.incomplete
            for piece in oneByteAtATime ? bytes.map({ [$0] }) : [bytes] where outcome == .incomplete {
                outcome = piece.withUnsafeBytes { reader.feed($0) }
            }
            #expect(outcome == .complete(status: reader.head?.status ?? 0, keepAlive: true), "\(text)")
            #expect(reader.head?.status != nil)
        }
        #expect(
            Self.read("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n") == .incomplete,
            "the same head answering a GET waits for its body")
    }

    @Test func bytesAfterTheAnswerCloseTheConnection() {
        #expect(
            Self.read("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 200 OK\r\n")
                == .complete(status: 200, keepAlive: false))
    }

    @Test func anInterimAnswerIsSkipped() {
        #expect(
            Self.read("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 500 No\r\nContent-Length: 0\r\n\r\n")
                == .complete(status: 500, keepAlive: true))
    }

    @Test func closeHTTP10ALargeBodyOrABodyUntilCloseEndTheConnection() {
        #expect(
            Self.read("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")
                == .complete(status: 200, keepAlive: false))
        #expect(Self.read("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n") == .complete(status: 200, keepAlive: false))
        #expect(
            Self.read("HTTP/1.1 200 OK\r\nContent-Length: 65\r\n\r\n") == .complete(status: 200, keepAlive: false))
        #expect(
            Self.read("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n41\r\n")
                == .complete(status: 200, keepAlive: false))
        #expect(Self.read("HTTP/1.1 200 OK\r\n\r\nuntil close") == .complete(status: 200, keepAlive: false))
    }

    @Test func malformedOrOversizedAnswersFail() {
        guard case .failed = Self.read("HTTP/1.1 2x0 OK\r\n\r\n") else {
            Issue.record("a bad status line was taken")
            return
        }
        guard case .failed = Self.read("HTTP/1.1 200 OK\r\nX: " + String(repeating: "a", count: 300) + "\r\n\r\n")
        else {
            Issue.record("an oversized head was taken")
            return
        }
        guard case .failed = Self.read("HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n") else {
            Issue.record("two lengths were taken")
            return
        }
        guard case .failed = Self.read("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n") else {
            Issue.record("a bad chunk size was taken")
            return
        }
    }

    @Test func anAnswerCutShortFailsWhenTheConnectionCloses() {
        var reader = HTTPResponseReader(maximumHeadBytes: 256, maximumBodyBytes: 64)
        #expect(reader.finish() == .failed("the receiver closed without an answer"))
        _ = Array("HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nab".utf8).withUnsafeBytes { reader.feed($0) }
        #expect(reader.finish() == .failed("the receiver closed in the middle of its answer"))
    }

    /// Reads `text` with the body kept, in pieces of `pieceSize` bytes; the outcome and the body.
    static func keep(_ text: String, bodyBound: Int = 64, pieceSize: Int = 1) -> (HTTPResponseReader.Outcome, String) {
        var reader = HTTPResponseReader(maximumHeadBytes: 256, maximumBodyBytes: bodyBound, keepsBody: true)
        let bytes = Array(text.utf8)
        var outcome = HTTPResponseReader.Outcome.incomplete
        for start in stride(from: 0, to: bytes.count, by: pieceSize) where outcome == .incomplete {
            outcome = bytes[start..<min(start + pieceSize, bytes.count)].withUnsafeBytes { reader.feed($0) }
        }
        if outcome == .incomplete { outcome = reader.finish() }
        return (outcome, String(decoding: reader.body, as: UTF8.self))
    }

    @Test(arguments: [1, 7, 1000])
    func aKeptBodyIsCollectedByLengthByChunksAndUntilTheClose(pieceSize: Int) {
        let length = Self.keep("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", pieceSize: pieceSize)
        #expect(length.0 == .complete(status: 200, keepAlive: true))
        #expect(length.1 == "hello")
        let chunked = Self.keep(
            "HTTP/1.1 202 A\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n1;e=1\r\n!\r\n0\r\n\r\n",
            pieceSize: pieceSize)
        #expect(chunked.0 == .complete(status: 202, keepAlive: true))
        #expect(chunked.1 == "ok!")
        let untilClose = Self.keep("HTTP/1.1 200 OK\r\n\r\nto the end", pieceSize: pieceSize)
        #expect(untilClose.0 == .complete(status: 200, keepAlive: false))
        #expect(untilClose.1 == "to the end")
    }

    @Test func aKeptBodyOverTheBoundFailsTheAnswer() {
        let message = HTTPResponseReader.Outcome.failed("the answer's body is larger than 4 bytes")
        #expect(Self.keep("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", bodyBound: 4).0 == message)
        #expect(
            Self.keep("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n", bodyBound: 4).0
                == message)
        #expect(Self.keep("HTTP/1.1 200 OK\r\n\r\nhello", bodyBound: 4).0 == message)
    }
}
