import Redis
import TestSupport
import Testing

@Suite struct RESPEncoderTests {
    @Test func aCommandIsAnArrayOfBulkStrings() {
        var buffer: [UInt8] = []
        RESPEncoder.encodeCommand(["SET", "key", "value"], into: &buffer)
        #expect(buffer == Array(resp: "*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$5\r\nvalue\r\n"))
    }

    @Test func aCommandIsAppendedBehindWhatTheBufferHolds() {
        var buffer = Array(resp: "*1\r\n$4\r\nPING\r\n")
        RESPEncoder.encodeCommand([Array(resp: "GET"), [0x0D, 0x0A, 0x00], []], into: &buffer)
        #expect(buffer == Array(resp: "*1\r\n$4\r\nPING\r\n*3\r\n$3\r\nGET\r\n$3\r\n\r\n\u{0}\r\n$0\r\n\r\n"))
    }

    @Test func anEncodedCommandParsesBackAsItsArguments() {
        var buffer: [UInt8] = []
        RESPEncoder.encodeCommand(["XADD", "room:1", "*", "event", "joined"], into: &buffer)
        let feeder = RESPFeeder.feed(buffer, .byteByByte)
        let arguments = ["XADD", "room:1", "*", "event", "joined"].map { RESPValue.bulkString($0) }
        #expect(feeder.results == [.value(.array(arguments), consumed: buffer.count)])
    }

    @Test func everyTypeIsWrittenAsTheSpecificationSpellsIt() {
        let cases: [(RESPValue, String)] = [
            (.simpleString("OK"), "+OK\r\n"),
            (.error("ERR unknown command"), "-ERR unknown command\r\n"),
            (.integer(1000), ":1000\r\n"),
            (.integer(.min), ":-9223372036854775808\r\n"),
            (.bulkString("hello"), "$5\r\nhello\r\n"),
            (.bulkString(nil), "$-1\r\n"),
            (.array([.bulkString("foo"), .integer(1)]), "*2\r\n$3\r\nfoo\r\n:1\r\n"),
            (.array([]), "*0\r\n"),
            (.array(nil), "*-1\r\n"),
            (.null, "_\r\n"),
            (.map([RESPMapEntry(key: .simpleString("a"), value: .integer(1))]), "%1\r\n+a\r\n:1\r\n"),
            (.double(1.5), ",1.5\r\n"),
            (.double(.infinity), ",inf\r\n"),
            (.double(-.infinity), ",-inf\r\n"),
            (.double(.nan), ",nan\r\n"),
            (.boolean(true), "#t\r\n"),
            (.boolean(false), "#f\r\n"),
        ]
        for (value, text) in cases {
            var buffer: [UInt8] = []
            RESPEncoder.encode(value, into: &buffer)
            #expect(buffer == Array(resp: text), "\(value)")
        }
    }

    @Test func lineBreaksInASimpleStringAreWrittenAsSpaces() {
        var buffer: [UInt8] = []
        RESPEncoder.encode(.error("ERR a\r\nb"), into: &buffer)
        #expect(buffer == Array(resp: "-ERR a  b\r\n"))
    }

    @Test(arguments: 1...8 as ClosedRange<UInt64>)
    func randomValuesRoundTripThroughTheEncoderAndTheParser(seed: UInt64) {
        var generator = SplitMix64(seed: seed)
        var values: [RESPValue] = []
        for _ in 0..<40 {
            values.append(Self.randomValue(depth: 0, using: &generator))
        }
        var buffer: [UInt8] = []
        var expected: [RESPParser.Result] = []
        for value in values {
            let start = buffer.count
            RESPEncoder.encode(value, into: &buffer)
            expected.append(.value(value, consumed: buffer.count - start))
        }
        for mode in [FeedingMode.whole, .byteByByte, .respChunks(seed: seed)] {
            let feeder = RESPFeeder.feed(buffer, mode)
            #expect(feeder.results == expected, "\(mode)")
        }
    }

    private static func randomValue(depth: Int, using generator: inout SplitMix64) -> RESPValue {
        let choice = Int.random(in: 0..<(depth < 4 ? 11 : 9), using: &generator)
        switch choice {
        case 0: return .simpleString(Self.randomText(using: &generator))
        case 1: return .error("ERR " + Self.randomText(using: &generator))
        case 2: return .integer(Int64.random(in: .min ... .max, using: &generator))
        case 3:
            let count = Int.random(in: 0...40, using: &generator)
            return .bulkString((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) })
        case 4: return .bulkString(nil)
        case 5: return .array(nil)
        case 6: return .null
        case 7: return .boolean(Bool.random(using: &generator))
        case 8:
            let double = Double(bitPattern: UInt64.random(in: 0 ... .max, using: &generator))
            return .double(double.isNaN ? 0.5 : double)
        case 9:
            let count = Int.random(in: 0...4, using: &generator)
            return .array((0..<count).map { _ in Self.randomValue(depth: depth + 1, using: &generator) })
        default:
            let count = Int.random(in: 0...3, using: &generator)
            return .map(
                (0..<count).map { _ in
                    RESPMapEntry(
                        key: Self.randomValue(depth: depth + 1, using: &generator),
                        value: Self.randomValue(depth: depth + 1, using: &generator)
                    )
                }
            )
        }
    }

    private static func randomText(using generator: inout SplitMix64) -> String {
        let letters = Array("abcXYZ 09-:é✓")
        let count = Int.random(in: 0...12, using: &generator)
        return String((0..<count).map { _ in letters[Int.random(in: 0..<letters.count, using: &generator)] })
    }
}
