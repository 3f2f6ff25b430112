import TestSupport
import Testing
import WebSocketCore

/// The byte-by-byte definition of masking (RFC 6455 §5.3), to check the fast path against.
private func referenceMask(_ bytes: [UInt8], key: [UInt8], offset: Int) -> [UInt8] {
    bytes.enumerated().map { index, byte in byte ^ key[(index + offset) % 4] }
}

private func masked(_ bytes: [UInt8], key: WebSocketMaskingKey, offset: Int = 0) -> [UInt8] {
    var copy = bytes
    copy.withUnsafeMutableBytes { key.apply(to: $0, offset: offset) }
    return copy
}

@Suite struct MaskingTests {
    @Test func maskingMatchesTheRFC6455Example() {
        let key = WebSocketMaskingKey(0x37, 0xFA, 0x21, 0x3D)
        #expect(masked(Array("Hello".utf8), key: key) == [0x7F, 0x9F, 0x4D, 0x51, 0x58])
        #expect(masked([0x7F, 0x9F, 0x4D, 0x51, 0x58], key: key) == Array("Hello".utf8))
    }

    @Test func wordInitializerReadsTheKeyInNetworkOrder() {
        #expect(WebSocketMaskingKey(word: 0x37FA_213D) == WebSocketMaskingKey(0x37, 0xFA, 0x21, 0x3D))
    }

    @Test func maskingAnEmptyBufferDoesNothing() {
        let key = WebSocketMaskingKey(1, 2, 3, 4)
        key.apply(to: UnsafeMutableRawBufferPointer(start: nil, count: 0), offset: 3)
        #expect(masked([], key: key, offset: 5) == [])
    }

    @Test(arguments: 0...7)
    func fastPathMatchesTheReferenceForEveryLength(offset: Int) {
        var generator = SplitMix64(seed: 0x6D61_736B + UInt64(offset))
        for length in 0...70 {
            let keyBytes = generator.bytes(count: 4)
            let key = WebSocketMaskingKey(keyBytes[0], keyBytes[1], keyBytes[2], keyBytes[3])
            let payload = generator.bytes(count: length)
            #expect(
                masked(payload, key: key, offset: offset) == referenceMask(payload, key: keyBytes, offset: offset),
                "length \(length), offset \(offset)"
            )
        }
    }

    @Test func fastPathMatchesTheReferenceAtUnalignedAddresses() {
        var generator = SplitMix64(seed: 0xA119)
        let key = WebSocketMaskingKey(0xDE, 0xAD, 0xBE, 0xEF)
        let keyBytes: [UInt8] = [0xDE, 0xAD, 0xBE, 0xEF]
        let payload = generator.bytes(count: 200)
        for start in 0..<8 {
            for length in [0, 1, 7, 8, 9, 31, 32, 33, 100, 200 - start] {
                var copy = payload
                copy.withUnsafeMutableBytes { raw in
                    key.apply(to: UnsafeMutableRawBufferPointer(rebasing: raw[start..<(start + length)]), offset: start)
                }
                var expected = payload
                expected.replaceSubrange(
                    start..<(start + length),
                    with: referenceMask(Array(payload[start..<(start + length)]), key: keyBytes, offset: start)
                )
                #expect(copy == expected, "start \(start), length \(length)")
            }
        }
    }

    @Test func maskingTwiceRestoresThePayload() {
        var generator = SplitMix64(seed: 42)
        for _ in 0..<200 {
            let key = WebSocketMaskingKey(word: UInt32.random(in: .min ... .max, using: &generator))
            let payload = generator.bytes(count: Int.random(in: 0...300, using: &generator))
            let offset = Int.random(in: 0...1000, using: &generator)
            #expect(masked(masked(payload, key: key, offset: offset), key: key, offset: offset) == payload)
        }
    }

    @Test func maskingInRandomChunksWithRunningOffsetsEqualsMaskingOnce() {
        var generator = SplitMix64(seed: 0xC4_0C45)
        for _ in 0..<300 {
            let key = WebSocketMaskingKey(word: UInt32.random(in: .min ... .max, using: &generator))
            let payload = generator.bytes(count: Int.random(in: 0...500, using: &generator))
            var chunked = payload
            chunked.withUnsafeMutableBytes { raw in
                var start = 0
                while start < raw.count {
                    let end = min(raw.count, start + Int.random(in: 1...40, using: &generator))
                    key.apply(to: UnsafeMutableRawBufferPointer(rebasing: raw[start..<end]), offset: start)
                    start = end
                }
            }
            #expect(chunked == masked(payload, key: key))
        }
    }
}
