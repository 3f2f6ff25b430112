import Testing
import WebSocketCore

private let key = WebSocketMaskingKey(0x37, 0xFA, 0x21, 0x3D)

private func encode(
    _ opcode: WebSocketOpcode,
    _ payload: [UInt8],
    fin: Bool = true,
    rsv1: Bool = false,
    maskingKey: WebSocketMaskingKey? = nil
) -> WebSocketOutboundFrame {
    payload.withUnsafeBytes {
        WebSocketFrameEncoder.encode(opcode: opcode, payload: $0, fin: fin, rsv1: rsv1, maskingKey: maskingKey)
    }
}

/// Decodes one whole frame from `bytes`; nil unless it is exactly one frame.
private func decodeSingleFrame(
    _ bytes: [UInt8],
    expectsMaskedFrames: Bool
) -> (header: WebSocketFrameHeader, payload: [UInt8])? {
    var buffer = bytes
    return buffer.withUnsafeMutableBytes { raw -> (WebSocketFrameHeader, [UInt8])? in
        let decoder = WebSocketFrameDecoder(maximumFrameSize: 1 << 20, expectsMaskedFrames: expectsMaskedFrames)
        guard case .frame(let header, let start, let end) = decoder.decodeFrame(in: raw, at: 0), end == raw.count
        else { return nil }
        return (header, Array(raw[start..<end]))
    }
}

/// The reason of an encoded Close frame (payload after the two code bytes).
private func closeReasonBytes(_ frame: WebSocketOutboundFrame) -> [UInt8] {
    guard let decoded = decodeSingleFrame(frame.bytes, expectsMaskedFrames: false) else { return [0xFF] }
    return Array(decoded.payload.dropFirst(2))
}

@Suite struct FrameEncoderTests {
    // MARK: Header sizes

    @Test(arguments: [(0, 2), (125, 2), (126, 4), (65535, 4), (65536, 10), (1 << 20, 10)])
    func headerSizeFollowsTheLengthForm(length: Int, unmaskedSize: Int) {
        #expect(WebSocketFrameHeader.encodedSize(payloadLength: length, masked: false) == unmaskedSize)
        #expect(WebSocketFrameHeader.encodedSize(payloadLength: length, masked: true) == unmaskedSize + 4)
        #expect(WebSocketFrameHeader(opcode: .binary, payloadLength: length).encodedSize == unmaskedSize)

        let payload = patternBytes(count: length)
        let server = encode(.binary, payload)
        #expect(server.count == unmaskedSize + length)
        #expect(server.bytes.count == unmaskedSize + length)
        let client = encode(.binary, payload, maskingKey: key)
        #expect(client.count == unmaskedSize + 4 + length)
    }

    @Test func lengthFieldsAreWrittenInTheShortestFormBigEndian() {
        #expect(Array(encode(.binary, patternBytes(count: 125)).bytes.prefix(2)) == [0x82, 0x7D])
        #expect(Array(encode(.binary, patternBytes(count: 126)).bytes.prefix(4)) == [0x82, 0x7E, 0x00, 0x7E])
        #expect(Array(encode(.binary, patternBytes(count: 65535)).bytes.prefix(4)) == [0x82, 0x7E, 0xFF, 0xFF])
        #expect(
            Array(encode(.binary, patternBytes(count: 65536)).bytes.prefix(10))
                == [0x82, 0x7F, 0, 0, 0, 0, 0, 0x01, 0x00, 0x00]
        )
        #expect(
            Array(encode(.binary, patternBytes(count: 126), maskingKey: key).bytes.prefix(8))
                == [0x82, 0xFE, 0x00, 0x7E, 0x37, 0xFA, 0x21, 0x3D]
        )
    }

    @Test func encoderMatchesTheRFC6455HelloExamples() {
        let hello = Array("Hello".utf8)
        #expect(encode(.text, hello).bytes == [0x81, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F])
        #expect(
            encode(.text, hello, maskingKey: key).bytes
                == [0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58]
        )
        #expect(encode(.text, Array("Hel".utf8), fin: false).bytes == [0x01, 0x03, 0x48, 0x65, 0x6C])
        #expect(encode(.continuation, Array("lo".utf8)).bytes == [0x80, 0x02, 0x6C, 0x6F])
        #expect(encode(.ping, hello).bytes == [0x89, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F])
    }

    @Test func finAndRSV1AreWrittenInTheFirstByte() {
        #expect(encode(.text, [], fin: false, rsv1: true).bytes == [0x41, 0x00])
        #expect(encode(.binary, [], rsv1: true).bytes == [0xC2, 0x00])
        #expect(encode(.continuation, []).bytes == [0x80, 0x00])
    }

    // MARK: Round trips through the decoder

    @Test(arguments: [0, 1, 125, 126, 127, 65535, 65536, 70001])
    func encodedFramesDecodeBack(length: Int) {
        let payload = patternBytes(count: length)
        for opcode in [WebSocketOpcode.text, .binary, .ping, .pong, .connectionClose, .continuation] {
            if opcode.isControl && length > 125 { continue }
            let server = decodeSingleFrame(encode(opcode, payload).bytes, expectsMaskedFrames: false)
            #expect(server?.header == WebSocketFrameHeader(opcode: opcode, payloadLength: length), "\(opcode)")
            #expect(server?.payload == payload, "\(opcode) \(length)")

            let clientBytes = encode(opcode, payload, maskingKey: key).bytes
            if length >= 4 {
                #expect(Array(clientBytes.suffix(length)) != payload, "the payload is masked on the wire")
            }
            let client = decodeSingleFrame(clientBytes, expectsMaskedFrames: true)
            #expect(
                client?.header == WebSocketFrameHeader(opcode: opcode, maskingKey: key, payloadLength: length),
                "\(opcode)"
            )
            #expect(client?.payload == payload, "\(opcode) \(length)")
        }
    }

    @Test func maskedFramesReachTheProcessorIntact() {
        let text = String(repeating: "héllo wörld ", count: 20)
        let bytes =
            encode(.text, Array(text.utf8), fin: false, maskingKey: key).bytes
            + encode(.ping, [1, 2, 3], maskingKey: key).bytes
            + encode(.continuation, Array("!".utf8), maskingKey: WebSocketMaskingKey(word: 0xDEAD_BEEF)).bytes
            + WebSocketFrameEncoder.encodeClose(code: .goingAway, reason: "bye").bytes
        // The close frame above is unmasked: a server reading it fails the connection there.
        expectEvents(bytes, [.ping([1, 2, 3]), .text(text + "!"), .violation(1002)])
    }

    // MARK: Close frames

    @Test func closeWithoutACodeIsEmpty() {
        #expect(WebSocketFrameEncoder.encodeClose(code: nil).bytes == [0x88, 0x00])
        #expect(WebSocketFrameEncoder.encodeClose(code: nil, reason: "ignored").bytes == [0x88, 0x00])
    }

    @Test func closeCarriesTheCodeBigEndianThenTheReason() {
        let frame = WebSocketFrameEncoder.encodeClose(code: .messageTooBig, reason: "too big")
        #expect(frame.bytes == [0x88, 0x09, 0x03, 0xF1] + Array("too big".utf8))
        expectEvents(frame.bytes, [.close(1009, "too big")], expectsMaskedFrames: false)
    }

    @Test(arguments: ["é", "€", "😀", "a€", "ab😀", "x"])
    func longCloseReasonIsCutAtACharacterBoundary(unit: String) {
        let reason = String(repeating: unit, count: 200)
        let frame = WebSocketFrameEncoder.encodeClose(code: .normalClosure, reason: reason)
        let bytes = frame.bytes
        #expect(bytes.count <= 2 + 125)
        #expect(Int(bytes[1]) == bytes.count - 2)
        let cut = closeReasonBytes(frame)
        #expect(cut.count <= 123)
        // The longest run of whole characters that fits in 123 bytes.
        var expected: [UInt8] = []
        for scalar in reason.unicodeScalars {
            let encoded = Array(String(scalar).utf8)
            guard expected.count + encoded.count <= 123 else { break }
            expected += encoded
        }
        #expect(cut == expected)
        #expect(cut.count > 123 - 4)
        var validator = UTF8Validator()
        let valid = cut.withUnsafeBytes { validator.validate($0) }
        #expect(valid && validator.isComplete)
        expectEvents(bytes, [.close(1000, String(decoding: cut, as: UTF8.self))], expectsMaskedFrames: false)
    }

    @Test func closeReasonOf123BytesIsKeptWhole() {
        let reason = String(repeating: "é", count: 61) + "a"
        #expect(reason.utf8.count == 123)
        let whole = WebSocketFrameEncoder.encodeClose(code: .normalClosure, reason: reason)
        #expect(closeReasonBytes(whole) == Array(reason.utf8))
        let longer = WebSocketFrameEncoder.encodeClose(code: .normalClosure, reason: reason + "b")
        #expect(closeReasonBytes(longer) == Array(reason.utf8))
    }

    @Test func closeReasonCutKeepsACharacterEndingExactlyAtTheLimit() {
        // 120 ASCII bytes then "€" (3 bytes) ends at byte 123; the next character must go.
        let reason = String(repeating: "a", count: 120) + "€" + "€"
        let cut = closeReasonBytes(WebSocketFrameEncoder.encodeClose(code: .normalClosure, reason: reason))
        #expect(cut == Array((String(repeating: "a", count: 120) + "€").utf8))
        // Shifted by one byte, the first "€" straddles the limit and goes too.
        let shifted = String(repeating: "a", count: 121) + "€" + "€"
        let shiftedCut = closeReasonBytes(WebSocketFrameEncoder.encodeClose(code: .normalClosure, reason: shifted))
        #expect(shiftedCut == Array(String(repeating: "a", count: 121).utf8))
    }

    // MARK: Outbound frame storage

    @Test(arguments: [0, 5, 125, 126, 65535, 65536])
    func headerIsWrittenRightInFrontOfThePayload(length: Int) {
        let payload = patternBytes(count: length)
        let frame = encode(.binary, payload)
        #expect(frame.startIndex + frame.count == frame.storage.count)
        #expect(frame.payloadCount == length)
        let headerSize = WebSocketFrameHeader.encodedSize(payloadLength: length, masked: false)
        #expect(frame.startIndex == WebSocketFrameHeader.maximumSize - headerSize)
        // The payload was not moved or changed: it sits after the header room.
        #expect(Array(frame.storage[WebSocketFrameHeader.maximumSize...]) == payload)
        #expect(frame.bytes == Array(frame.storage[frame.startIndex...]))
        #expect(decodeSingleFrame(frame.bytes, expectsMaskedFrames: false)?.payload == payload)
    }

    @Test func payloadAppendedInPiecesOrThroughTheStorageIsFramedWhole() {
        var frame = WebSocketOutboundFrame(payloadCapacity: 10)
        #expect(frame.payloadCount == 0)
        let first: [UInt8] = [1, 2, 3]
        first.withUnsafeBytes { frame.appendPayload($0) }
        frame.withStorage { $0 += [4, 5] }
        #expect(frame.payloadCount == 5)
        frame.finish(opcode: .binary, rsv1: true)
        #expect(frame.bytes == [0xC2, 0x05, 1, 2, 3, 4, 5])
        #expect(frame.startIndex == WebSocketFrameHeader.maximumSize - 2)
        #expect(frame.startIndex + frame.count == frame.storage.count)
    }

    @Test func maskedFrameKeepsItsHeaderInFrontOfTheMaskedPayload() {
        let payload = patternBytes(count: 300)
        let frame = encode(.binary, payload, maskingKey: key)
        #expect(frame.startIndex == WebSocketFrameHeader.maximumSize - 8)
        #expect(frame.startIndex + frame.count == frame.storage.count)
        let masked = payload.enumerated().map { index, byte in byte ^ rfcMaskKey[index % 4] }
        #expect(Array(frame.storage[WebSocketFrameHeader.maximumSize...]) == masked)
    }

    @Test func writeHeaderFillsOnlyTheBytesBeforeTheEnd() {
        var buffer = [UInt8](repeating: 0xEE, count: 20)
        let header = WebSocketFrameHeader(fin: false, opcode: .text, maskingKey: key, payloadLength: 300)
        let start = buffer.withUnsafeMutableBytes { WebSocketFrameEncoder.writeHeader(header, into: $0, endingAt: 16) }
        #expect(start == 8)
        #expect(Array(buffer[8..<16]) == [0x01, 0xFE, 0x01, 0x2C, 0x37, 0xFA, 0x21, 0x3D])
        #expect(buffer[0..<8].allSatisfy { $0 == 0xEE })
        #expect(buffer[16...].allSatisfy { $0 == 0xEE })
    }
}
