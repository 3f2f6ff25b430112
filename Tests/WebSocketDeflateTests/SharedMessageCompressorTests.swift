import Testing
import WebSocketCore
import WebSocketDeflate

/// Agreed parameters as the negotiator would produce them, with the server defaults.
private func agreed(
    windowBits: Int = 15,
    level: Int = 1,
    memoryLevel: Int = 6,
    minimumSize: Int = 64,
    serverNoContextTakeover: Bool = false
) -> PerMessageDeflateParameters {
    PerMessageDeflateParameters(
        serverNoContextTakeover: serverNoContextTakeover,
        clientNoContextTakeover: false,
        serverMaxWindowBits: windowBits,
        clientMaxWindowBits: 15,
        compressionLevel: level,
        memoryLevel: memoryLevel,
        minimumCompressedMessageSize: minimumSize,
        responseHeaderValue: "permessage-deflate"
    )
}

/// The payload of a finished frame (server frames carry no mask).
private func payload(of frame: WebSocketOutboundFrame) -> [UInt8] {
    let bytes = frame.bytes
    let length = Int(bytes[1] & 0x7F)
    let headerSize = length < 126 ? 2 : (length == 126 ? 4 : 10)
    return Array(bytes[headerSize...])
}

private let roster = Array(
    String(repeating: #"{"uid":"u-17","name":"Participant","audioMuted":false,"handRaised":true},"#, count: 40).utf8
)

@Suite("Compressing a message once for many connections")
struct SharedMessageCompressorTests {
    @Test("Connections with the same settings share a variant; another window is another variant")
    func variantsFollowTheCompressorSettings() {
        let compressor = SharedMessageCompressor()
        let first = compressor.variant(for: agreed())
        #expect(first == 0)
        #expect(compressor.variant(for: agreed(serverNoContextTakeover: true)) == first)
        #expect(compressor.variant(for: agreed(windowBits: 10)) == 1)
        #expect(compressor.variant(for: agreed()) == first)
        #expect(compressor.variantCount == 2)
    }

    @Test("No more than the maximum number of variants is created; connections beyond get none")
    func variantsAreBounded() {
        let compressor = SharedMessageCompressor()
        var created = 0
        for level in 0...9 {
            for memoryLevel in 1...2 {
                if compressor.variant(for: agreed(level: level, memoryLevel: memoryLevel)) != nil { created += 1 }
            }
        }
        #expect(created == SharedMessageCompressor.maximumVariants)
        #expect(compressor.variant(for: agreed(level: 9, memoryLevel: 9)) == nil)
        #expect(compressor.variant(for: agreed(level: 0, memoryLevel: 1)) == 0)
    }

    @Test("A message shorter than the threshold is not compressed")
    func shortMessagesStayUncompressed() {
        let compressor = SharedMessageCompressor()
        let variant = compressor.variant(for: agreed(minimumSize: 64))!
        let short = Array(repeating: UInt8(ascii: "a"), count: 63)
        let refused = short.withUnsafeBytes { compressor.compressedFrame(opcode: .text, payload: $0, variant: variant) }
        #expect(refused == nil)
        let long = Array(repeating: UInt8(ascii: "a"), count: 64)
        let frame = long.withUnsafeBytes { compressor.compressedFrame(opcode: .text, payload: $0, variant: variant) }
        #expect(frame?.isCompressed == true)
        #expect(frame?.bytes.first == 0xC1)
    }

    @Test("Every message decodes on its own, also after others on a peer that keeps its window")
    func messagesDecodeWithFreshAndWithUsedWindows() throws {
        let compressor = SharedMessageCompressor()
        let variant = compressor.variant(for: agreed())!
        let fresh = PerMessageInflater(windowBits: 15, resetsAfterEachMessage: true)
        let keepsWindow = PerMessageInflater(windowBits: 15, resetsAfterEachMessage: false)
        for round in 0..<3 {
            let message = roster + Array("round \(round)".utf8)
            let frame = try #require(
                message.withUnsafeBytes { compressor.compressedFrame(opcode: .text, payload: $0, variant: variant) }
            )
            // Compressed without context: the second message is as long as the first, it does not refer back.
            #expect(frame.payloadCount < message.count / 4)
            #expect(try decompress([payload(of: frame)], with: fresh).get() == message)
            #expect(try decompress([payload(of: frame)], with: keepsWindow).get() == message)
        }
    }

    @Test("A small window's frames decode with that window")
    func smallWindowsAreHonoured() throws {
        let compressor = SharedMessageCompressor()
        let variant = compressor.variant(for: agreed(windowBits: 9))!
        let frame = try #require(
            roster.withUnsafeBytes { compressor.compressedFrame(opcode: .text, payload: $0, variant: variant) }
        )
        let inflater = PerMessageInflater(windowBits: 9, resetsAfterEachMessage: false)
        #expect(try decompress([payload(of: frame)], with: inflater).get() == roster)
    }

    @Test("After a shared frame, a connection's own compressor must start over: with resetWindow the peer decodes")
    func ownCompressorRestartsAfterASharedFrame() throws {
        let shared = SharedMessageCompressor()
        let variant = shared.variant(for: agreed())!
        let sharedMessage = Array(String(repeating: "zq-shared-", count: 400).utf8)
        let sharedPayload = payload(
            of: try #require(
                sharedMessage.withUnsafeBytes { shared.compressedFrame(opcode: .text, payload: $0, variant: variant) }
            )
        )

        func deliver(resettingAfterSharedFrame: Bool) -> [UInt8]? {
            // The connection's own compressor keeps its context; the peer's inflater keeps its window.
            let own = PerMessageDeflater(
                windowBits: 15, compressionLevel: 1, memoryLevel: 6, resetsAfterEachMessage: false)
            let peer = PerMessageInflater(windowBits: 15, resetsAfterEachMessage: false)
            guard (try? decompress([compress(roster, with: own)], with: peer).get()) == roster,
                (try? decompress([sharedPayload], with: peer).get()) == sharedMessage
            else { return nil }
            if resettingAfterSharedFrame { own.resetWindow() }
            // The same roster again: without the reset it is one match back into what the peer no longer has last.
            return try? decompress([compress(roster, with: own)], with: peer).get()
        }

        #expect(deliver(resettingAfterSharedFrame: true) == roster)
        #expect(deliver(resettingAfterSharedFrame: false) != roster)
    }
}
