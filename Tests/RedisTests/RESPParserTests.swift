import Redis
import TestSupport
import Testing

private func bulk(_ text: String) -> RESPValue {
    .bulkString(text)
}

/// An XREAD reply: one stream with two entries, each an ID and its field-value pairs.
private let xreadReply = RESPVector(
    "an XREAD reply",
    "*1\r\n*2\r\n$8\r\nmystream\r\n*2\r\n"
        + "*2\r\n$15\r\n1526984818136-0\r\n*4\r\n$8\r\nduration\r\n$4\r\n1532\r\n$8\r\nevent-id\r\n$1\r\n5\r\n"
        + "*2\r\n$15\r\n1526999352406-0\r\n*2\r\n$8\r\nduration\r\n$3\r\n812\r\n",
    .array([
        .array([
            bulk("mystream"),
            .array([
                .array([
                    bulk("1526984818136-0"),
                    .array([bulk("duration"), bulk("1532"), bulk("event-id"), bulk("5")]),
                ]),
                .array([bulk("1526999352406-0"), .array([bulk("duration"), bulk("812")])]),
            ]),
        ])
    ])
)

private let vectors: [RESPVector] = [
    RESPVector("a simple string", "+OK\r\n", .simpleString("OK")),
    RESPVector("an empty simple string", "+\r\n", .simpleString("")),
    RESPVector("an error", "-ERR unknown command\r\n", .error("ERR unknown command")),
    RESPVector("a WRONGTYPE error", "-WRONGTYPE Bad key\r\n", .error("WRONGTYPE Bad key")),
    RESPVector("an integer", ":1000\r\n", .integer(1000)),
    RESPVector("zero", ":0\r\n", .integer(0)),
    RESPVector("a negative integer", ":-42\r\n", .integer(-42)),
    RESPVector("an integer with a plus sign", ":+7\r\n", .integer(7)),
    RESPVector("the largest integer", ":9223372036854775807\r\n", .integer(.max)),
    RESPVector("the smallest integer", ":-9223372036854775808\r\n", .integer(.min)),
    RESPVector("a bulk string", "$5\r\nhello\r\n", bulk("hello")),
    RESPVector("an empty bulk string", "$0\r\n\r\n", bulk("")),
    RESPVector("a bulk string holding CRLF", "$4\r\na\r\nb\r\n", bulk("a\r\nb")),
    RESPVector(
        "a binary bulk string", [0x24, 0x33, 0x0D, 0x0A, 0, 0xFF, 0x0D, 0x0D, 0x0A], .bulkString([0, 0xFF, 13])),
    RESPVector("a null bulk string", "$-1\r\n", .bulkString(nil)),
    RESPVector("an array of two bulk strings", "*2\r\n$3\r\nfoo\r\n$3\r\nbar\r\n", .array([bulk("foo"), bulk("bar")])),
    RESPVector("an empty array", "*0\r\n", .array([])),
    RESPVector("a null array", "*-1\r\n", .array(nil)),
    RESPVector(
        "a mixed array",
        "*5\r\n:1\r\n:2\r\n:3\r\n:4\r\n$5\r\nhello\r\n",
        .array([.integer(1), .integer(2), .integer(3), .integer(4), bulk("hello")])
    ),
    RESPVector(
        "nested arrays",
        "*2\r\n*3\r\n:1\r\n:2\r\n:3\r\n*2\r\n+Hello\r\n-World\r\n",
        .array([.array([.integer(1), .integer(2), .integer(3)]), .array([.simpleString("Hello"), .error("World")])])
    ),
    RESPVector(
        "an array with a null element",
        "*3\r\n$3\r\nfoo\r\n$-1\r\n$3\r\nbar\r\n",
        .array([bulk("foo"), .bulkString(nil), bulk("bar")])
    ),
    RESPVector("a null array and an empty one in an array", "*2\r\n*-1\r\n*0\r\n", .array([.array(nil), .array([])])),
    xreadReply,
    RESPVector("a RESP3 null", "_\r\n", .null),
    RESPVector("a RESP3 true", "#t\r\n", .boolean(true)),
    RESPVector("a RESP3 false", "#f\r\n", .boolean(false)),
    RESPVector("a RESP3 double", ",1.23\r\n", .double(1.23)),
    RESPVector("a RESP3 double with an exponent", ",-1.5e-3\r\n", .double(-0.0015)),
    RESPVector("a RESP3 integral double", ",10\r\n", .double(10)),
    RESPVector("a RESP3 infinity", ",inf\r\n", .double(.infinity)),
    RESPVector("a RESP3 negative infinity", ",-inf\r\n", .double(-.infinity)),
    RESPVector(
        "a RESP3 map",
        "%2\r\n+first\r\n:1\r\n+second\r\n:2\r\n",
        .map([
            RESPMapEntry(key: .simpleString("first"), value: .integer(1)),
            RESPMapEntry(key: .simpleString("second"), value: .integer(2)),
        ])
    ),
    RESPVector("an empty RESP3 map", "%0\r\n", .map([])),
    RESPVector(
        "a RESP3 map inside an array",
        "*2\r\n%1\r\n$1\r\nk\r\n*1\r\n#t\r\n_\r\n",
        .array([.map([RESPMapEntry(key: bulk("k"), value: .array([.boolean(true)]))]), .null])
    ),
]

@Suite struct RESPParserTests {
    @Test(arguments: vectors)
    func everyVectorReadsTheSameValueHoweverItsBytesArrive(_ vector: RESPVector) {
        for mode in FeedingMode.all {
            let feeder = RESPFeeder.feed(vector.bytes, mode)
            #expect(feeder.results == [.value(vector.value, consumed: vector.bytes.count)], "\(mode)")
            #expect(feeder.pending.isEmpty, "\(mode)")
        }
    }

    @Test(arguments: vectors)
    func everyVectorIsIncompleteUntilItsLastByte(_ vector: RESPVector) {
        var parser = RESPParser()
        for end in 0..<vector.bytes.count {
            let result = vector.bytes[..<end].withUnsafeBytes { parser.parse($0) }
            #expect(result == .incomplete, "after \(end) bytes")
        }
        let result = vector.bytes.withUnsafeBytes { parser.parse($0) }
        #expect(result == .value(vector.value, consumed: vector.bytes.count))
    }

    @Test func aNaNDoubleIsRead() {
        let feeder = RESPFeeder.feed(Array(resp: ",nan\r\n"), .byteByByte)
        guard case .value(.double(let double), consumed: 6)? = feeder.results.first else {
            Issue.record("expected a double, got \(feeder.results)")
            return
        }
        #expect(double.isNaN)
    }

    @Test func invalidUTF8InASimpleStringIsReadAsReplacementCharacters() {
        let feeder = RESPFeeder.feed([0x2B, 0x61, 0xFF, 0x0D, 0x0A], .whole)
        #expect(feeder.results == [.value(.simpleString("a\u{FFFD}"), consumed: 5)])
    }

    @Test func pipelinedRepliesInOneBufferAreReadOneAfterAnother() {
        let bytes = Array(resp: "+OK\r\n:1\r\n$3\r\nfoo\r\n*2\r\n:1\r\n$-1\r\n-ERR no\r\n+QUEUED")
        var parser = RESPParser()
        var offset = 0
        var results: [RESPParser.Result] = []
        while true {
            let result = bytes[offset...].withUnsafeBytes { parser.parse($0) }
            guard case .value(_, let consumed) = result else {
                results.append(result)
                break
            }
            results.append(result)
            offset += consumed
        }
        #expect(
            results == [
                .value(.simpleString("OK"), consumed: 5),
                .value(.integer(1), consumed: 4),
                .value(bulk("foo"), consumed: 9),
                .value(.array([.integer(1), .bulkString(nil)]), consumed: 13),
                .value(.error("ERR no"), consumed: 9),
                .incomplete,
            ]
        )
        #expect(offset == bytes.count - "+QUEUED".utf8.count)
    }

    @Test func pipelinedRepliesReadTheSameHoweverTheirBytesArrive() {
        let bytes = vectors.flatMap(\.bytes)
        let expected = vectors.map { RESPParser.Result.value($0.value, consumed: $0.bytes.count) }
        for mode in FeedingMode.all {
            let feeder = RESPFeeder.feed(bytes, mode)
            #expect(feeder.results == expected, "\(mode)")
            #expect(feeder.pending.isEmpty, "\(mode)")
        }
    }

    @Test func nestingUpToTheDepthLimitIsAccepted() {
        let bytes = Array(resp: String(repeating: "*1\r\n", count: 8) + ":1\r\n")
        var expected = RESPValue.integer(1)
        for _ in 0..<8 { expected = .array([expected]) }
        let feeder = RESPFeeder.feed(bytes, .whole)
        #expect(feeder.results == [.value(expected, consumed: bytes.count)])
    }

    @Test func aBulkStringAtTheLengthLimitIsAccepted() {
        let parser = RESPParser(maximumBulkLength: 4)
        let feeder = RESPFeeder.feed(Array(resp: "$4\r\nabcd\r\n"), .byteByByte, parser: parser)
        #expect(feeder.results == [.value(bulk("abcd"), consumed: 10)])
    }

    @Test func anArrayAtTheElementLimitIsAccepted() {
        let parser = RESPParser(maximumArrayLength: 2)
        let feeder = RESPFeeder.feed(Array(resp: "*2\r\n:1\r\n:2\r\n"), .whole, parser: parser)
        #expect(feeder.results == [.value(.array([.integer(1), .integer(2)]), consumed: 12)])
    }

    @Test func aLineAtTheLengthLimitIsAccepted() {
        let parser = RESPParser(maximumLineLength: 3)
        let feeder = RESPFeeder.feed(Array(resp: "+abc\r\n"), .whole, parser: parser)
        #expect(feeder.results == [.value(.simpleString("abc"), consumed: 6)])
    }

    @Test func theDefaultLimitsAreTheDocumentedOnes() {
        let parser = RESPParser()
        #expect(parser.maximumBulkLength == 16 * 1024 * 1024)
        #expect(parser.maximumArrayLength == 1_000_000)
        #expect(parser.maximumDepth == 8)
        #expect(parser.maximumLineLength == 64 * 1024)
    }
}
