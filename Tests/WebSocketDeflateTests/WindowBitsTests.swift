import CWebSocket
import TestSupport
import Testing
import WebSocketCore
import WebSocketDeflate

/// An 8-bit server window is honoured by compressing with 9 bits, whose matches never reach back more than 250 bytes.
@Suite struct WindowBitsTests {
    /// Bytes that repeat earlier bytes at distances from 256 to 511 only, between random bytes.
    static let farRepeats: [UInt8] = {
        var generator = SplitMix64(seed: 2024)
        var data = randomBytes(count: 512, seed: 77)
        while data.count < 60_000 {
            let distance = Int.random(in: 256...511, using: &generator)
            for _ in 0..<Int.random(in: 8...40, using: &generator) {
                data.append(data[data.count - distance])
            }
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                data.append(UInt8.random(in: 0...255, using: &generator))
            }
        }
        return data
    }()

    /// Inflates messages with zlib directly, as a peer with an 8-bit window would, one output byte per call so that
    /// every back reference must be served from zlib's window.
    private func inflateWithZlib(_ messages: [[UInt8]], windowBits: Int32) -> [[UInt8]]? {
        // zlib keeps a pointer to its z_stream, so it lives at a fixed address.
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        defer { stream.deallocate() }
        guard CWebSocket_inflateInit2(stream, -windowBits) == Z_OK else { return nil }
        defer { inflateEnd(stream) }
        var results: [[UInt8]] = []
        for message in messages {
            var input = message + [0x00, 0x00, 0xFF, 0xFF]
            var output: [UInt8] = []
            let ok = input.withUnsafeMutableBufferPointer { inputBuffer -> Bool in
                stream.pointee.next_in = inputBuffer.baseAddress
                stream.pointee.avail_in = uInt(inputBuffer.count)
                var byte: UInt8 = 0
                while true {
                    let status = withUnsafeMutablePointer(to: &byte) { pointer in
                        stream.pointee.next_out = pointer
                        stream.pointee.avail_out = 1
                        return inflate(stream, Z_SYNC_FLUSH)
                    }
                    if stream.pointee.avail_out == 0 {
                        output.append(byte)
                    }
                    let drained = stream.pointee.avail_in == 0 && stream.pointee.avail_out == 1
                    if status == Z_BUF_ERROR || (status == Z_OK && drained) {
                        return true
                    }
                    if status != Z_OK {
                        return false
                    }
                }
            }
            guard ok else { return nil }
            results.append(output)
        }
        return results
    }

    @Test func theTestDataCompressesWithAWindowThatReachesItsRepeats() {
        let wide = makeDeflater(windowBits: 10)
        let compressed = compress(Self.farRepeats, with: wide)
        #expect(compressed.count * 2 < Self.farRepeats.count)
        // Its matches reach past 256 bytes, which a peer with an 8-bit window cannot follow.
        #expect(self.inflateWithZlib([compressed], windowBits: 8) == nil)
        #expect(self.inflateWithZlib([compressed], windowBits: 10) == [Self.farRepeats])
    }

    @Test func anEightBitServerWindowIsReadableWithAnEightBitInflater() throws {
        let parameters = try #require(
            PerMessageDeflateNegotiator.negotiate(
                headerValue: "permessage-deflate; server_max_window_bits=8",
                configuration: PerMessageDeflateConfiguration(compressionLevel: 9, memoryLevel: 9)
            )
        )
        #expect(parameters.serverMaxWindowBits == 8)
        let deflater = parameters.makeDeflater()
        let second = Array(Self.farRepeats.reversed())
        let messages = [Self.farRepeats, second, Self.farRepeats]
        let compressed = messages.map { compress($0, with: deflater) }
        #expect(self.inflateWithZlib(compressed, windowBits: 8) == messages)
    }

    @Test func anEightBitClientWindowInflates() throws {
        let deflater = makeDeflater(windowBits: 8)
        let inflater = PerMessageInflater(windowBits: 8, resetsAfterEachMessage: false)
        var generator = SplitMix64(seed: 8)
        for message in [Self.farRepeats, sampleText(count: 5000, seed: 9), Self.farRepeats] {
            let compressed = compress(message, with: deflater)
            #expect(try decompress(randomSplit(compressed, using: &generator), with: inflater).get() == message)
        }
    }

    @Test(arguments: 8...15)
    func everyNegotiableWindowRoundTrips(bits: Int) throws {
        let deflater = makeDeflater(windowBits: bits)
        let inflater = PerMessageInflater(windowBits: bits, resetsAfterEachMessage: false)
        for message in [sampleText(count: 70_000, seed: 10), Self.farRepeats] {
            #expect(try decompress([compress(message, with: deflater)], with: inflater).get() == message)
        }
    }
}
