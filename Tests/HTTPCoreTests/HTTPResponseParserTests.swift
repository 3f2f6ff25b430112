import HTTPCore
import TestSupport
import Testing

/// A 101 answer, and `extra` lines before the blank line.
private func answer(_ extra: [String] = []) -> [UInt8] {
    sampleAnswer(extra)
}

private func parsedHead(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) -> HTTPResponseHead? {
    guard case .complete(let head) = feedResponse(bytes, mode: .whole).result else {
        Issue.record("the response did not parse", sourceLocation: sourceLocation)
        return nil
    }
    return head
}

@Suite("Response head parser")
struct HTTPResponseParserTests {
    @Test("A head over the size limit is refused without waiting for its end")
    func oversizeHeadIsRefused() {
        let bytes = answer((0..<20).map { "X-Padding-\($0): \(String(repeating: "x", count: 20))" })
        let (result, _) = feedResponse(bytes, mode: .byteByByte, parser: HTTPResponseParser(maximumHeadSize: 256))
        guard case .failure(let error) = result else {
            Issue.record("an oversize head was not refused")
            return
        }
        #expect(error.description == "the response head is larger than 256 bytes")
    }

    @Test("A head with too many fields is refused")
    func tooManyFieldsAreRefused() {
        let bytes = answer((0..<10).map { "X-\($0): y" })
        let (result, _) = feedResponse(bytes, mode: .whole, parser: HTTPResponseParser(maximumHeaderCount: 8))
        guard case .failure = result else {
            Issue.record("too many fields were not refused")
            return
        }
    }

    @Test(
        "Malformed status lines and field lines are refused",
        arguments: [
            "HTTP/2 101 Switching Protocols\r\n\r\n", "HTTP/1.1 1O1 Switching Protocols\r\n\r\n",
            "HTTP/1.1 1011 Switching Protocols\r\n\r\n", "ICY 200 OK\r\n\r\n",
            "HTTP/1.1 101 OK\r\nUpgrade websocket\r\n\r\n", "HTTP/1.1 101 OK\r\n folded: value\r\n\r\n",
            "HTTP/1.1 101 OK\r\nName : value\r\n\r\n",
        ])
    func malformedHeadsAreRefused(text: String) {
        guard case .failure = feedResponse(Array(text.utf8), mode: .whole).result else {
            Issue.record("accepted: \(text.debugDescription)")
            return
        }
    }

    @Test("A status line without a reason phrase is read")
    func statusWithoutReason() throws {
        let head = try #require(parsedHead(Array("HTTP/1.1 101\r\nUpgrade: websocket\r\n\r\n".utf8)))
        #expect(head.status == 101)
        #expect(head.reason == "")
        #expect(head.value(of: "Upgrade") == "websocket")
    }
}
