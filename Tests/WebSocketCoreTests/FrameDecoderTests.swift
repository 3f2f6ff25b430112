import Testing
import WebSocketCore

/// A decoding step reduced to plain values: the payload copied out of the buffer, a violation by its close code.
enum DecodedStep: Hashable, CustomStringConvertible {
    case needMoreData(Int?)
    case frame(WebSocketFrameHeader, [UInt8])
    case violation(UInt16)

    var description: String {
        switch self {
        case .needMoreData(let size): return "needMoreData(\(size.map(String.init) ?? "nil"))"
        case .frame(let header, let payload):
            return "frame(\(header.opcode), fin: \(header.fin), \(payload.count) bytes)"
        case .violation(let code): return "violation(\(code))"
        }
    }
}

/// Decodes the frame at `offset` in a copy of `bytes`.
private func decode(
    _ bytes: [UInt8],
    at offset: Int = 0,
    maximumFrameSize: Int = 1 << 20,
    expectsMaskedFrames: Bool = true
) -> DecodedStep {
    var buffer = bytes
    let decoder = WebSocketFrameDecoder(maximumFrameSize: maximumFrameSize, expectsMaskedFrames: expectsMaskedFrames)
    return buffer.withUnsafeMutableBytes { raw in
        switch decoder.decodeFrame(in: raw, at: offset) {
        case .needMoreData(let size):
            return .needMoreData(size)
        case .frame(let header, let start, let end):
            return .frame(header, Array(raw[start..<end]))
        case .violation(let violation):
            return .violation(violation.closeCode.rawValue)
        }
    }
}

/// A server-side header for comparisons.
private func header(
    fin: Bool = true,
    rsv1: Bool = false,
    rsv2: Bool = false,
    rsv3: Bool = false,
    opcode: WebSocketOpcode,
    key: [UInt8]? = rfcMaskKey,
    length: Int
) -> WebSocketFrameHeader {
    WebSocketFrameHeader(
        fin: fin,
        rsv1: rsv1,
        rsv2: rsv2,
        rsv3: rsv3,
        opcode: opcode,
        maskingKey: key.map { WebSocketMaskingKey($0[0], $0[1], $0[2], $0[3]) },
        payloadLength: length
    )
}

private let hello = Array("Hello".utf8)

@Suite struct FrameDecoderTests {
    // MARK: RFC 6455 §5.7 examples

    @Test func decoderReadsTheUnmaskedHelloExampleAsAServerFrame() {
        let bytes: [UInt8] = [0x81, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F]
        #expect(
            decode(bytes, expectsMaskedFrames: false) == .frame(header(opcode: .text, key: nil, length: 5), hello)
        )
        expectEvents(bytes, [.text("Hello")], expectsMaskedFrames: false)
    }

    @Test func decoderUnmasksTheMaskedHelloExample() {
        let bytes: [UInt8] = [0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58]
        #expect(decode(bytes) == .frame(header(opcode: .text, length: 5), hello))
        expectEvents(bytes, [.text("Hello")])
    }

    @Test func decoderUnmasksThePayloadInPlace() {
        var buffer: [UInt8] = [0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58]
        let step = buffer.withUnsafeMutableBytes {
            WebSocketFrameDecoder(maximumFrameSize: 100).decodeFrame(in: $0, at: 0)
        }
        #expect(step == .frame(header(opcode: .text, length: 5), payloadStart: 6, payloadEnd: 11))
        #expect(Array(buffer[6...]) == hello)
    }

    @Test func decoderReadsTheFragmentedHelloExample() {
        let first: [UInt8] = [0x01, 0x03, 0x48, 0x65, 0x6C]
        let second: [UInt8] = [0x80, 0x02, 0x6C, 0x6F]
        #expect(
            decode(first, expectsMaskedFrames: false)
                == .frame(header(fin: false, opcode: .text, key: nil, length: 3), Array("Hel".utf8))
        )
        #expect(
            decode(first + second, at: 5, expectsMaskedFrames: false)
                == .frame(header(opcode: .continuation, key: nil, length: 2), Array("lo".utf8))
        )
        expectEvents(first + second, [.text("Hello")], expectsMaskedFrames: false)
    }

    @Test func decoderReadsThePingAndPongExamples() {
        let ping: [UInt8] = [0x89, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F]
        let pong: [UInt8] = [0x8A, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58]
        #expect(decode(ping, expectsMaskedFrames: false) == .frame(header(opcode: .ping, key: nil, length: 5), hello))
        #expect(decode(pong) == .frame(header(opcode: .pong, length: 5), hello))
        expectEvents(ping, [.ping(hello)], expectsMaskedFrames: false)
        expectEvents(pong, [.pong(hello)])
    }

    @Test func decoderReadsThe256ByteBinaryExampleWithA16BitLength() {
        let payload = patternBytes(count: 256)
        let bytes: [UInt8] = [0x82, 0x7E, 0x01, 0x00] + payload
        #expect(
            decode(bytes, expectsMaskedFrames: false) == .frame(header(opcode: .binary, key: nil, length: 256), payload)
        )
        expectEvents(bytes, [.binary(payload)], expectsMaskedFrames: false)
    }

    @Test func decoderReadsThe64KiBBinaryExampleWithA64BitLength() {
        let payload = patternBytes(count: 65536)
        let bytes: [UInt8] = [0x82, 0x7F, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00] + payload
        #expect(
            decode(bytes, expectsMaskedFrames: false)
                == .frame(header(opcode: .binary, key: nil, length: 65536), payload)
        )
        expectEvents(bytes, [.binary(payload)], expectsMaskedFrames: false)
        // The same frame masked, as a client sends it.
        expectEvents(clientFrame(opcode: Op.binary, payload: payload), [.binary(payload)])
    }

    @Test func decoderReadsAFrameAtAnOffset() {
        let bytes = clientText("Hello") + clientFrame(opcode: Op.binary, payload: [1, 2, 3])
        #expect(decode(bytes, at: 11) == .frame(header(opcode: .binary, length: 3), [1, 2, 3]))
        #expect(decode(bytes, at: bytes.count) == .needMoreData(nil))
    }

    // MARK: Masking

    @Test func decoderRejectsUnmaskedClientFrames() {
        let bytes: [UInt8] = [0x81, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F]
        #expect(decode(bytes) == .violation(1002))
        expectEvents(bytes, [.violation(1002)])
    }

    @Test func decoderRejectsMaskedServerFrames() {
        #expect(decode(clientText("Hello"), expectsMaskedFrames: false) == .violation(1002))
        expectEvents(clientText("Hello"), [.violation(1002)], expectsMaskedFrames: false)
    }

    // MARK: Opcodes and reserved bits

    @Test(arguments: [UInt8](0x3...0x7) + [UInt8](0xB...0xF))
    func decoderRejectsReservedOpcodes(opcode: UInt8) {
        let bytes = clientFrame(opcode: opcode, payload: [1, 2])
        #expect(decode(bytes) == .violation(1002))
        // Refused from the first two bytes, before the rest of the frame arrives.
        #expect(decode(Array(bytes.prefix(2))) == .violation(1002))
        expectEvents(bytes, [.violation(1002)])
    }

    @Test func decoderReportsTheReservedBitsInTheHeader() {
        let bytes = clientFrame(rsv1: true, rsv2: true, rsv3: true, opcode: Op.binary, payload: [9])
        #expect(decode(bytes) == .frame(header(rsv1: true, rsv2: true, rsv3: true, opcode: .binary, length: 1), [9]))
    }

    @Test(arguments: [(false, true), (true, false), (true, true)])
    func processorRejectsRSV2AndRSV3(rsv2: Bool, rsv3: Bool) {
        for opcode in [Op.text, Op.binary, Op.ping, Op.close] {
            let bytes = clientFrame(rsv2: rsv2, rsv3: rsv3, opcode: opcode, payload: opcode == Op.close ? [] : [0x41])
            expectEvents(bytes, [.violation(1002)])
        }
    }

    @Test func processorRejectsRSV1WithoutNegotiatedCompression() {
        expectEvents(clientFrame(rsv1: true, opcode: Op.text, payload: Array("hi".utf8)), [.violation(1002)])
        expectEvents(clientFrame(rsv1: true, opcode: Op.binary, payload: [1]), [.violation(1002)])
        expectEvents(clientFrame(rsv1: true, opcode: Op.ping), [.violation(1002)])
        expectEvents(
            clientText("a", fin: false) + clientFrame(rsv1: true, opcode: Op.continuation, payload: [0x62]),
            [.violation(1002)]
        )
    }

    // MARK: Control frames

    @Test(arguments: [Op.close, Op.ping, Op.pong])
    func decoderRejectsControlFramesWithAPayloadOf126Bytes(opcode: UInt8) {
        let bytes = clientFrame(opcode: opcode, payload: patternBytes(count: 126))
        #expect(bytes[1] == 0x80 | 126)
        #expect(decode(bytes) == .violation(1002))
        #expect(decode(Array(bytes.prefix(2))) == .violation(1002))
        expectEvents(bytes, [.violation(1002)])
    }

    @Test(arguments: [Op.close, Op.ping, Op.pong])
    func decoderAcceptsControlFramesWithAPayloadOf125Bytes(opcode: UInt8) {
        let payload =
            opcode == Op.close
            ? [0x03, 0xE8] + Array(repeating: UInt8(ascii: "x"), count: 123)
            : patternBytes(count: 125)
        let bytes = clientFrame(opcode: opcode, payload: payload)
        #expect(decode(bytes) == .frame(header(opcode: WebSocketOpcode(rawValue: opcode)!, length: 125), payload))
    }

    @Test(arguments: [Op.close, Op.ping, Op.pong])
    func decoderRejectsFragmentedControlFrames(opcode: UInt8) {
        let bytes = clientFrame(fin: false, opcode: opcode, payload: [])
        #expect(decode(bytes) == .violation(1002))
        expectEvents(bytes, [.violation(1002)])
    }

    // MARK: Lengths

    @Test func decoderRejectsA64BitLengthWithTheTopBitSet() {
        let bytes: [UInt8] = [0x82, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 0x01] + rfcMaskKey + [0xAA]
        #expect(decode(bytes) == .violation(1002))
        #expect(decode(Array(bytes.prefix(10))) == .violation(1002))
        // Even with a frame limit that could not be met, the malformed length is the reason given.
        #expect(decode(Array(bytes.prefix(10)), maximumFrameSize: 0) == .violation(1002))
        expectEvents(bytes, [.violation(1002)])
    }

    @Test(arguments: [
        // 16-bit form for lengths that fit in 7 bits.
        [0x82, 0xFE, 0x00, 0x00] as [UInt8],
        [0x82, 0xFE, 0x00, 0x7D],
        // 64-bit form for lengths that fit in 7 or 16 bits.
        [0x82, 0xFF, 0, 0, 0, 0, 0, 0, 0x00, 0x05],
        [0x82, 0xFF, 0, 0, 0, 0, 0, 0, 0x00, 0x7E],
        [0x82, 0xFF, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF],
    ])
    func decoderRejectsNonMinimalLengths(header: [UInt8]) {
        #expect(decode(header) == .violation(1002))
        let length = header.count == 4 ? Int(header[2]) << 8 | Int(header[3]) : Int(header[8]) << 8 | Int(header[9])
        let bytes = header + rfcMaskKey + Array(repeating: 0, count: length)
        #expect(decode(bytes) == .violation(1002))
        expectEvents(bytes, [.violation(1002)])
    }

    @Test func decoderAcceptsTheSmallestLengthOfEachForm() {
        let bytes126 = clientFrame(opcode: Op.binary, payload: patternBytes(count: 126))
        #expect(Array(bytes126.prefix(4)) == [0x82, 0xFE, 0x00, 0x7E])
        #expect(decode(bytes126) == .frame(header(opcode: .binary, length: 126), patternBytes(count: 126)))
        let bytes65536 = clientFrame(opcode: Op.binary, payload: patternBytes(count: 65536))
        #expect(decode(bytes65536) == .frame(header(opcode: .binary, length: 65536), patternBytes(count: 65536)))
    }

    @Test func decoderRefusesAFrameOverTheLimitAsSoonAsItsLengthArrives() {
        // A masked binary frame announcing 1 MiB, against a 64 KiB limit: only the 10 header bytes have arrived.
        let headerBytes: [UInt8] = [0x82, 0xFF, 0, 0, 0, 0, 0, 0x10, 0, 0]
        #expect(decode(headerBytes, maximumFrameSize: 65536) == .violation(1009))
        #expect(decode(Array(headerBytes.prefix(9)), maximumFrameSize: 65536) == .needMoreData(nil))

        var feeder = InboundFeeder(limits: .init(maximumFrameSize: 65536))
        #expect(feeder.feed(headerBytes.prefix(9)) == [])
        #expect(feeder.feed(headerBytes.suffix(1)) == [.violation(1009)])
        #expect(feeder.isFinished)
        expectEvents(headerBytes, [.violation(1009)], limits: .init(maximumFrameSize: 65536))
    }

    @Test func processorRefusesA16BitLengthOverTheFrameLimit() {
        // The style reference: 16,385 bytes announced against a 16 KiB frame limit.
        expectEvents([0x81, 0xFE, 0x40, 0x01], [.violation(1009)], limits: .init(maximumFrameSize: 16384))
        #expect(decode([0x81, 0xFE, 0x40, 0x00], maximumFrameSize: 16384) == .needMoreData(nil))
    }

    @Test func frameLimitIsInclusive() {
        let limit = 300
        let atLimit = clientFrame(opcode: Op.binary, payload: patternBytes(count: limit))
        let overLimit = clientFrame(opcode: Op.binary, payload: patternBytes(count: limit + 1))
        #expect(
            decode(atLimit, maximumFrameSize: limit)
                == .frame(header(opcode: .binary, length: limit), patternBytes(count: limit))
        )
        #expect(decode(overLimit, maximumFrameSize: limit) == .violation(1009))
        let small = clientFrame(opcode: Op.binary, payload: [1, 2])
        #expect(decode(small, maximumFrameSize: 1) == .violation(1009))
        #expect(decode(Array(small.prefix(2)), maximumFrameSize: 1) == .violation(1009))
    }

    // MARK: Partial frames

    @Test func decoderReportsTheFrameSizeOnceTheHeaderIsKnown() {
        // Masked, 16-bit length: 2 + 2 + 4 header bytes, then 300 payload bytes.
        let bytes = clientFrame(opcode: Op.binary, payload: patternBytes(count: 300))
        for count in 0..<8 {
            #expect(decode(Array(bytes.prefix(count))) == .needMoreData(nil), "\(count) bytes")
        }
        for count in 8..<bytes.count {
            #expect(decode(Array(bytes.prefix(count))) == .needMoreData(308), "\(count) bytes")
        }
        #expect(decode(bytes) == .frame(header(opcode: .binary, length: 300), patternBytes(count: 300)))

        // Unmasked, 64-bit length: the size is known after the 10 header bytes.
        let serverBytes = frame(opcode: Op.binary, payload: patternBytes(count: 70000), maskKey: nil)
        #expect(decode(Array(serverBytes.prefix(9)), expectsMaskedFrames: false) == .needMoreData(nil))
        #expect(decode(Array(serverBytes.prefix(10)), expectsMaskedFrames: false) == .needMoreData(70010))
        #expect(decode(Array(serverBytes.dropLast()), expectsMaskedFrames: false) == .needMoreData(70010))
    }

    @Test func processorReportsTheNextFrameSizeAndConsumesOnlyWholeFrames() {
        var feeder = InboundFeeder()
        let first = clientText("Hello")
        let second = clientFrame(opcode: Op.binary, payload: patternBytes(count: 200))
        #expect(feeder.feed(first + second.prefix(3)) == [.text("Hello")])
        #expect(feeder.lastProgress?.consumed == first.count)
        #expect(feeder.lastProgress?.nextFrameSize == nil)
        #expect(feeder.unconsumedCount == 3)
        #expect(feeder.feed(second[3..<8]) == [])
        #expect(feeder.lastProgress?.consumed == 0)
        #expect(feeder.lastProgress?.nextFrameSize == 208)
        #expect(feeder.feed(second[8...]) == [.binary(patternBytes(count: 200))])
        #expect(feeder.lastProgress?.consumed == 208)
        #expect(feeder.lastProgress?.nextFrameSize == nil)
        #expect(feeder.isFinished == false)
        #expect(feeder.unconsumedCount == 0)
    }

    @Test func decoderLeavesAPartialFrameUntouched() {
        let bytes = clientText("Hello")
        var buffer = Array(bytes.dropLast())
        let step = buffer.withUnsafeMutableBytes {
            WebSocketFrameDecoder(maximumFrameSize: 100).decodeFrame(in: $0, at: 0)
        }
        #expect(step == .needMoreData(totalFrameSize: 11))
        #expect(buffer == Array(bytes.dropLast()))
    }
}
