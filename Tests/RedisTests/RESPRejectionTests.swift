import Redis
import TestSupport
import Testing

private let rejections: [RESPRejection] = [
    // Type bytes.
    RESPRejection("an unknown type byte", "?OK\r\n", .malformed, at: 0),
    RESPRejection("inline command text", "PING\r\n", .malformed, at: 0),
    RESPRejection("a leading CRLF", "\r\n+OK\r\n", .malformed, at: 0),
    RESPRejection("an unknown type inside an array", "*2\r\n:1\r\n!x\r\n", .malformed, at: 8),
    // Line endings.
    RESPRejection("a simple string ended by a bare LF", "+OK\n", .malformed, at: 3),
    RESPRejection("a simple string with CR not followed by LF", "+OK\rX\r\n", .malformed, at: 4),
    RESPRejection("an integer ended by a bare LF", ":1\n", .malformed, at: 2),
    RESPRejection("a length with CR not followed by LF", "$3\r$foo\r\n", .malformed, at: 3),
    // Integers.
    RESPRejection("an empty integer", ":\r\n", .malformed, at: 1),
    RESPRejection("a sign without digits", ":-\r\n", .malformed, at: 2),
    RESPRejection("two signs", ":--1\r\n", .malformed, at: 2),
    RESPRejection("a non-digit in an integer", ":12a\r\n", .malformed, at: 3),
    RESPRejection("a space in an integer", ": 1\r\n", .malformed, at: 1),
    RESPRejection("an integer over the 64-bit range", ":9223372036854775808\r\n", .malformed, at: 19),
    RESPRejection("an integer under the 64-bit range", ":-9223372036854775809\r\n", .malformed, at: 20),
    RESPRejection("an endless integer", ":" + String(repeating: "1", count: 100), .malformed, at: 65),
    // Lengths.
    RESPRejection("an empty bulk length", "$\r\n", .malformed, at: 1),
    RESPRejection("a non-digit bulk length", "$1x\r\nab\r\n", .malformed, at: 2),
    RESPRejection("a bulk length of -2", "$-2\r\n", .malformed, at: 1),
    RESPRejection("a bulk length of -0", "$-0\r\n", .malformed, at: 1),
    RESPRejection("a bulk length with a plus sign", "$+1\r\na\r\n", .malformed, at: 1),
    RESPRejection("an array count of -5", "*-5\r\n", .malformed, at: 1),
    RESPRejection("a non-digit array count", "*a\r\n", .malformed, at: 1),
    RESPRejection("a null map", "%-1\r\n", .malformed, at: 1),
    RESPRejection("an endless length", "$" + String(repeating: "9", count: 100), .malformed, at: 65),
    // Bulk bodies.
    RESPRejection("a bulk string longer than declared", "$3\r\nhello\r\n", .malformed, at: 7),
    RESPRejection("a bulk string shorter than declared", "$5\r\nhi\r\n:1\r\n", .malformed, at: 9),
    RESPRejection("a bulk string followed by CR and no LF", "$2\r\nhi\r:", .malformed, at: 7),
    // RESP3 scalars.
    RESPRejection("a null with content", "_x\r\n", .malformed, at: 1),
    RESPRejection("an unknown boolean", "#x\r\n", .malformed, at: 1),
    RESPRejection("a two-letter boolean", "#tt\r\n", .malformed, at: 1),
    RESPRejection("an empty double", ",\r\n", .malformed, at: 1),
    RESPRejection("a double with letters", ",1.5x\r\n", .malformed, at: 4),
    RESPRejection("a hexadecimal double", ",0x10\r\n", .malformed, at: 2),
    RESPRejection("a double that is only an exponent", ",e5\r\n", .malformed, at: 1),
    RESPRejection("a spelled-out infinity", ",infinity\r\n", .malformed, at: 1),
    // Limits: refused as soon as the header line ends, before the body is waited for.
    RESPRejection("a bulk string over the default limit", "$16777217\r\n", .tooLarge, at: 0),
    RESPRejection("a bulk length beyond any integer", "$99999999999999999999999\r\n", .tooLarge, at: 0),
    RESPRejection(
        "a bulk string over a small limit",
        "$5\r\n",
        .tooLarge,
        at: 0,
        parser: RESPParser(maximumBulkLength: 4)
    ),
    RESPRejection("an array over the default limit", "*1000001\r\n", .tooLarge, at: 0),
    RESPRejection("an array over a small limit", "*3\r\n", .tooLarge, at: 0, parser: RESPParser(maximumArrayLength: 2)),
    RESPRejection("a map over a small limit", "%2\r\n", .tooLarge, at: 0, parser: RESPParser(maximumArrayLength: 3)),
    RESPRejection(
        "a nested array over the limit",
        "*1\r\n*3\r\n",
        .tooLarge,
        at: 4,
        parser: RESPParser(maximumArrayLength: 2)
    ),
    RESPRejection(
        "a simple string over the line limit",
        "+abcdefghij",
        .tooLarge,
        at: 5,
        parser: RESPParser(maximumLineLength: 4)
    ),
    RESPRejection("an error over the line limit", "-ERR\r\n", .tooLarge, at: 3, parser: .init(maximumLineLength: 2)),
    RESPRejection(
        "arrays nested one level too deep",
        String(repeating: "*1\r\n", count: 9) + ":1\r\n",
        .tooDeep,
        at: 32
    ),
    RESPRejection("a map nested too deep", "*1\r\n%1\r\n", .tooDeep, at: 4, parser: RESPParser(maximumDepth: 1)),
    RESPRejection("an empty array nested too deep", "*1\r\n*0\r\n", .tooDeep, at: 4, parser: .init(maximumDepth: 1)),
    RESPRejection("any array when nesting is off", "*0\r\n", .tooDeep, at: 0, parser: RESPParser(maximumDepth: 0)),
]

@Suite struct RESPRejectionTests {
    @Test(arguments: rejections)
    func everyMalformedOrOverLimitInputIsRefusedHoweverItsBytesArrive(_ rejection: RESPRejection) throws {
        for mode in FeedingMode.all {
            let feeder = RESPFeeder.feed(rejection.bytes, mode, parser: rejection.parser)
            try #require(feeder.results.count == 1, "\(mode): \(feeder.results)")
            guard case .failure(let error) = feeder.results[0] else {
                Issue.record("\(mode): expected a failure, got \(feeder.results[0])")
                continue
            }
            #expect(error.kind == rejection.kind, "\(mode): \(error)")
            #expect(error.offset == rejection.offset, "\(mode): \(error)")
        }
    }

    @Test func aFailureIsReportedAgainOnEveryLaterCall() {
        var parser = RESPParser()
        let bad = Array(resp: "?\r\n")
        let first = bad.withUnsafeBytes { parser.parse($0) }
        let good = Array(resp: "+OK\r\n")
        let second = good.withUnsafeBytes { parser.parse($0) }
        guard case .failure(let error) = first else {
            Issue.record("expected a failure, got \(first)")
            return
        }
        #expect(error.kind == .malformed)
        #expect(second == first)
    }

    @Test func anOverLimitBulkStringIsRefusedWithoutWaitingForItsBody() {
        var parser = RESPParser(maximumBulkLength: 1024)
        let header = Array(resp: "$1025\r\n")
        let result = header.withUnsafeBytes { parser.parse($0) }
        guard case .failure(let error) = result else {
            Issue.record("expected a failure, got \(result)")
            return
        }
        #expect(error.kind == .tooLarge)
        #expect(error.description.contains("1024"))
    }

    @Test func aMalformedLengthIsReportedBeforeAnOverLimitOne() {
        let feeder = RESPFeeder.feed(Array(resp: "$99999999999x\r\n"), .whole)
        guard case .failure(let error)? = feeder.results.first else {
            Issue.record("expected a failure, got \(feeder.results)")
            return
        }
        #expect(error.kind == .malformed)
        #expect(error.offset == 12)
    }

    @Test func theKindsDescribeThemselves() {
        #expect(RESPProtocolError.Kind.malformed.description == "malformed")
        #expect(RESPProtocolError.Kind.tooLarge.description == "too large")
        #expect(RESPProtocolError.Kind.tooDeep.description == "too deep")
        #expect(RESPProtocolError.Kind.malformed != .tooLarge)
    }
}
