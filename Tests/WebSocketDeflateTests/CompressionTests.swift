import TestSupport
import Testing
import WebSocketCore
import WebSocketDeflate

@Suite struct CompressionTests {
    /// RFC 7692 §7.2.3.1: "Hello" compressed in one fixed-Huffman block.
    static let compressedHello: [UInt8] = [0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00]
    static let hello = Array("Hello".utf8)

    private func defaultParameters() throws -> PerMessageDeflateParameters {
        try #require(
            PerMessageDeflateNegotiator.negotiate(
                headerValue: "permessage-deflate",
                configuration: PerMessageDeflateConfiguration()
            )
        )
    }

    @Test func compressesHelloAsInTheRFCExample() throws {
        let deflater = try self.defaultParameters().makeDeflater()
        #expect(compress(Self.hello, with: deflater) == Self.compressedHello)
    }

    @Test func inflatesTheRFCHelloExample() throws {
        let inflater = try self.defaultParameters().makeInflater()
        #expect(try decompress([Self.compressedHello], with: inflater).get() == Self.hello)
    }

    @Test func inflatesTheRFCHelloExampleOneByteAtATime() throws {
        let inflater = try self.defaultParameters().makeInflater()
        let fragments = Self.compressedHello.map { [$0] }
        #expect(try decompress(fragments, with: inflater).get() == Self.hello)
        // And again on the same inflater, with an empty final fragment.
        #expect(try decompress(fragments + [[]], with: inflater).get() == Self.hello)
    }

    @Test func inflatesTheRFCHelloExampleInRandomSplits() throws {
        let inflater = PerMessageInflater(windowBits: 15, resetsAfterEachMessage: true)
        var generator = SplitMix64(seed: 7)
        for _ in 0..<200 {
            let fragments = randomSplit(Self.compressedHello, using: &generator)
            #expect(try decompress(fragments, with: inflater).get() == Self.hello)
        }
    }

    @Test func inflatesTheRFCUncompressedBlockExample() throws {
        // RFC 7692 §7.2.3.3: a stored block, then the first byte of the flush marker.
        let payload: [UInt8] = [0x00, 0x05, 0x00, 0xFA, 0xFF, 0x48, 0x65, 0x6C, 0x6C, 0x6F, 0x00]
        let inflater = try self.defaultParameters().makeInflater()
        #expect(try decompress([payload], with: inflater).get() == Self.hello)
    }

    @Test func inflatesTheRFCContextTakeoverExample() throws {
        // RFC 7692 §7.2.3.2: the second "Hello" refers back to the first one.
        let inflater = try self.defaultParameters().makeInflater()
        #expect(try decompress([Self.compressedHello], with: inflater).get() == Self.hello)
        #expect(try decompress([[0xF2, 0x00, 0x11, 0x00, 0x00]], with: inflater).get() == Self.hello)
    }

    @Test func inflatesTheRFCTwoBlockExample() throws {
        // RFC 7692 §7.2.3.5: "He" and "llo" in two blocks of one message.
        let payload: [UInt8] = [0xF2, 0x48, 0x05, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xCA, 0xC9, 0xC9, 0x07, 0x00]
        let inflater = try self.defaultParameters().makeInflater()
        #expect(try decompress([payload], with: inflater).get() == Self.hello)
    }

    @Test func inflatesTheRFCExampleWithBFINALSet() throws {
        // RFC 7692 §7.2.3.4: a final block, then the start of an empty stored block.
        let payload: [UInt8] = [0xF3, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00, 0x00]
        let inflater = try self.defaultParameters().makeInflater()
        #expect(try decompress([payload], with: inflater).get() == Self.hello)
        #expect(try decompress(payload.map { [$0] }, with: inflater).get() == Self.hello)
        #expect(try decompress([Self.compressedHello], with: inflater).get() == Self.hello)
    }

    @Test func inflatesAFinishedStreamWithoutFlushMarker() throws {
        // What a sender that finishes every stream sends: the tail the receiver appends is left over.
        let payload: [UInt8] = [0xF3, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00]
        let inflater = try self.defaultParameters().makeInflater()
        #expect(try decompress([payload], with: inflater).get() == Self.hello)
        #expect(try decompress([payload], with: inflater).get() == Self.hello)
        // A new stream starts with the next message.
        #expect(try decompress([Self.compressedHello], with: inflater).get() == Self.hello)
        #expect(try decompress([[0xF2, 0x00, 0x11, 0x00, 0x00]], with: inflater).get() == Self.hello)
    }

    @Test func roundTripsAnEmptyMessage() throws {
        let parameters = try self.defaultParameters()
        let deflater = parameters.makeDeflater()
        let inflater = parameters.makeInflater()
        #expect(compress([], with: deflater) == [0x00])
        #expect(try decompress([[0x00]], with: inflater).get() == [])
        #expect(try decompress([], with: inflater).get() == [])
        #expect(try decompress([[], [], []], with: inflater).get() == [])
        // The stream is still usable afterwards.
        let message = sampleText(count: 500, seed: 1)
        #expect(try decompress([compress(message, with: deflater)], with: inflater).get() == message)
    }

    @Test(arguments: [false, true])
    func roundTripsSeveralMessages(noContextTakeover: Bool) throws {
        let deflater = PerMessageDeflater(
            windowBits: 15,
            compressionLevel: 1,
            memoryLevel: 6,
            resetsAfterEachMessage: noContextTakeover
        )
        let inflater = PerMessageInflater(windowBits: 15, resetsAfterEachMessage: noContextTakeover)
        var generator = SplitMix64(seed: 99)
        let messages: [[UInt8]] = [
            sampleText(count: 1000, seed: 2), [], Self.hello, randomBytes(count: 70_000, seed: 3),
            sampleText(count: 300_000, seed: 4), sampleText(count: 1000, seed: 2), [0x00],
            randomBytes(count: 1, seed: 5),
        ]
        for message in messages {
            let compressed = compress(message, with: deflater)
            #expect(try decompress(randomSplit(compressed, using: &generator), with: inflater).get() == message)
        }
    }

    @Test func contextTakeoverShrinksARepeatedMessageAndNoContextTakeoverDoesNot() {
        let message = sampleText(count: 2000, seed: 11)
        let takeover = makeDeflater()
        let first = compress(message, with: takeover)
        let second = compress(message, with: takeover)
        #expect(second.count < 40)
        #expect(second.count * 10 < first.count)
        #expect(second.count < first.count)

        let reset = makeDeflater(resets: true)
        #expect(compress(message, with: reset) == first)
        #expect(compress(message, with: reset) == first)
    }

    @Test func appendsAfterBytesAlreadyInTheOutput() {
        let deflater = makeDeflater(level: 1)
        var output: [UInt8] = [0xAA, 0xBB]
        Self.hello.withUnsafeBytes { deflater.deflate($0, into: &output) }
        #expect(output == [0xAA, 0xBB] + Self.compressedHello)

        let inflater = PerMessageInflater(windowBits: 15, resetsAfterEachMessage: false)
        var inflated: [UInt8] = [0x01]
        let result = inflateFragment(Self.compressedHello, isFinal: true, with: inflater, into: &inflated, limit: 6)
        #expect(result == nil)
        #expect(inflated == [0x01] + Self.hello)
        // The limit counts the bytes already in the output.
        inflated = [0x01, 0x02]
        let tooLarge = inflateFragment(Self.compressedHello, isFinal: true, with: inflater, into: &inflated, limit: 6)
        #expect(tooLarge == .messageTooLarge)
    }

    @Test func rejectsADeflateBombAtTheLimit() throws {
        let bomb = compress(
            [UInt8](repeating: 0, count: 10_000_000),
            with: makeDeflater(level: 9, resets: true)
        )
        #expect(bomb.count < 12_000)
        let inflater = PerMessageInflater(windowBits: 15, resetsAfterEachMessage: false)
        let limit = 1 << 20
        var output: [UInt8] = []
        let result = inflateFragment(bomb, isFinal: true, with: inflater, into: &output, limit: limit)
        #expect(result == .messageTooLarge)
        #expect(output.count <= limit)
        #expect(output.capacity <= limit + 64 * 1024)
        // The same bomb in small fragments.
        var generator = SplitMix64(seed: 5)
        let fragments = randomSplit(bomb, using: &generator)
        #expect(decompress(fragments, with: inflater, limit: limit) == .failure(.messageTooLarge))
    }

    @Test func acceptsAMessageOfExactlyTheLimitAndRejectsOneByteMore() throws {
        let message = sampleText(count: 40_000, seed: 12)
        let deflater = makeDeflater(resets: true)
        let compressed = compress(message, with: deflater)
        let inflater = PerMessageInflater(windowBits: 15, resetsAfterEachMessage: true)
        #expect(try decompress([compressed], with: inflater, limit: message.count).get() == message)
        #expect(decompress([compressed], with: inflater, limit: message.count - 1) == .failure(.messageTooLarge))
        #expect(decompress([Self.compressedHello], with: inflater, limit: 0) == .failure(.messageTooLarge))
        #expect(try decompress([[0x00]], with: inflater, limit: 0).get() == [])
    }

    @Test(
        arguments: [
            [0xFF, 0xFF, 0xFF],  // reserved block type
            [0xF2, 0x48, 0xCD],  // the message stops inside a block
            [0x00, 0x05, 0x00, 0x00, 0x00, 0x48],  // stored block length check fails
            [0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF],  // garbage after a flush
            [0x04, 0xC0, 0x81, 0x08, 0x00, 0x00, 0x00, 0x00, 0x20, 0x7F, 0xEB, 0x0B, 0x00, 0x00],  // distance too far
        ] as [[UInt8]])
    func rejectsCorruptData(payload: [UInt8]) throws {
        let inflater = PerMessageInflater(windowBits: 15, resetsAfterEachMessage: false)
        #expect(decompress([payload], with: inflater) == .failure(.corruptData))
        // The inflater recovers for the next message.
        #expect(try decompress([Self.compressedHello], with: inflater).get() == Self.hello)
    }
}
