import TestSupport
import Testing
import WebSocketCore

/// An inbound event reduced to plain values, so whole event sequences can be compared.
enum RecordedEvent: Hashable, Sendable, CustomStringConvertible {
    case text(String)
    case binary([UInt8])
    case ping([UInt8])
    case pong([UInt8])
    /// A Close frame: its code (nil when it carried none) and its reason.
    case close(UInt16?, String)
    /// A violation, by the close code the connection is failed with.
    case violation(UInt16)

    init(_ event: WebSocketInboundProcessor.Event) {
        switch event {
        case .text(let bytes): self = .text(String(decoding: bytes, as: UTF8.self))
        case .binary(let bytes): self = .binary(Array(bytes))
        case .ping(let bytes): self = .ping(Array(bytes))
        case .pong(let bytes): self = .pong(Array(bytes))
        case .close(let code, let reason): self = .close(code?.rawValue, String(decoding: reason, as: UTF8.self))
        case .violation(let violation): self = .violation(violation.closeCode.rawValue)
        }
    }

    var description: String {
        switch self {
        case .text(let text): return "text(\(text.utf8.count) bytes: \(text.prefix(32).debugDescription))"
        case .binary(let bytes): return "binary(\(bytes.count) bytes)"
        case .ping(let bytes): return "ping(\(bytes))"
        case .pong(let bytes): return "pong(\(bytes))"
        case .close(let code, let reason): return "close(\(code.map(String.init) ?? "nil"), \(reason.debugDescription))"
        case .violation(let code): return "violation(\(code))"
        }
    }
}

/// Feeds bytes to a processor the way a connection does: unconsumed bytes stay at the front of the receive buffer,
/// new bytes are appended behind them, and `process` runs again over the whole buffer.
struct InboundFeeder {
    private var processor: WebSocketInboundProcessor
    private var pending: [UInt8] = []
    /// Every event so far, in order.
    private(set) var events: [RecordedEvent] = []
    /// The progress reported by the last call to `process`.
    private(set) var lastProgress: WebSocketInboundProcessor.Progress?

    init(
        limits: WebSocketInboundProcessor.Limits = .init(),
        inflater: (any WebSocketMessageInflater)? = nil,
        expectsMaskedFrames: Bool = true
    ) {
        self.processor = WebSocketInboundProcessor(
            limits: limits,
            inflater: inflater,
            expectsMaskedFrames: expectsMaskedFrames
        )
    }

    /// Bytes received but not yet consumed.
    var unconsumedCount: Int { self.pending.count }

    /// Whether the processor has stopped taking bytes.
    var isFinished: Bool { self.lastProgress?.isFinished ?? false }

    /// Appends one read and processes the buffer; returns the events this read produced.
    @discardableResult
    mutating func feed(
        _ bytes: some Sequence<UInt8>, sourceLocation: SourceLocation = #_sourceLocation
    )
        -> [RecordedEvent]
    {
        self.pending.append(contentsOf: bytes)
        var newEvents: [RecordedEvent] = []
        let count = self.pending.count
        let progress = self.pending.withUnsafeMutableBytes { buffer in
            self.processor.process(buffer) { newEvents.append(RecordedEvent($0)) }
        }
        #expect(progress.consumed >= 0 && progress.consumed <= count, sourceLocation: sourceLocation)
        if let nextFrameSize = progress.nextFrameSize {
            // The announced frame is not all here yet, and it starts right after the consumed bytes.
            #expect(nextFrameSize > count - progress.consumed, sourceLocation: sourceLocation)
        }
        self.pending.removeFirst(min(max(progress.consumed, 0), count))
        self.lastProgress = progress
        self.events += newEvents
        return newEvents
    }

    /// Feeds `bytes` in the reads `mode` describes; returns every event.
    mutating func feed(
        _ bytes: [UInt8], mode: FeedingMode, sourceLocation: SourceLocation = #_sourceLocation
    )
        -> [RecordedEvent]
    {
        for read in mode.reads(of: bytes) {
            self.feed(read, sourceLocation: sourceLocation)
        }
        return self.events
    }
}

/// The feeding modes every stream is checked in: whole, byte by byte, and random chunks from several seeds.
let allFeedingModes = FeedingMode.allModes(seeds: (1...6).map { 0x5EED_0000 + $0 })

/// Feeds `bytes` in every feeding mode, each to a fresh processor, expects identical events, and returns them.
///
/// - Parameters:
///   - bytes: the received stream.
///   - limits: the processor's limits.
///   - makeInflater: creates a fresh inflater for each run (inflaters keep state), or nil for no compression.
///   - expectsMaskedFrames: true for a server reading client frames.
@discardableResult
func eventsInEveryFeedingMode(
    _ bytes: [UInt8],
    limits: WebSocketInboundProcessor.Limits = .init(),
    makeInflater: () -> (any WebSocketMessageInflater)? = { nil },
    expectsMaskedFrames: Bool = true,
    sourceLocation: SourceLocation = #_sourceLocation
) -> [RecordedEvent] {
    var reference: [RecordedEvent]?
    for mode in allFeedingModes {
        var feeder = InboundFeeder(limits: limits, inflater: makeInflater(), expectsMaskedFrames: expectsMaskedFrames)
        let events = feeder.feed(bytes, mode: mode, sourceLocation: sourceLocation)
        if let reference {
            #expect(events == reference, "feeding mode \(mode)", sourceLocation: sourceLocation)
        } else {
            reference = events
        }
    }
    return reference ?? []
}

/// Expects `bytes` to produce exactly `expected` in every feeding mode.
func expectEvents(
    _ bytes: [UInt8],
    _ expected: [RecordedEvent],
    limits: WebSocketInboundProcessor.Limits = .init(),
    makeInflater: () -> (any WebSocketMessageInflater)? = { nil },
    expectsMaskedFrames: Bool = true,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    let events = eventsInEveryFeedingMode(
        bytes,
        limits: limits,
        makeInflater: makeInflater,
        expectsMaskedFrames: expectsMaskedFrames,
        sourceLocation: sourceLocation
    )
    #expect(events == expected, sourceLocation: sourceLocation)
}

/// Opcodes as raw wire values, including reserved ones.
enum Op {
    static let continuation: UInt8 = 0x0
    static let text: UInt8 = 0x1
    static let binary: UInt8 = 0x2
    static let close: UInt8 = 0x8
    static let ping: UInt8 = 0x9
    static let pong: UInt8 = 0xA
}

/// The masking key of the RFC 6455 §5.7 examples.
let rfcMaskKey: [UInt8] = [0x37, 0xFA, 0x21, 0x3D]

/// Builds a frame byte by byte from RFC 6455 §5.2, independently of the encoder under test.
///
/// - Parameters:
///   - fin: the FIN bit.
///   - rsv1, rsv2, rsv3: the reserved bits.
///   - opcode: the raw four-bit opcode (reserved values allowed).
///   - payload: the unmasked payload.
///   - maskKey: four bytes for a client frame, nil for an unmasked server frame.
/// - Returns: the frame, with its length in the shortest form.
func frame(
    fin: Bool = true,
    rsv1: Bool = false,
    rsv2: Bool = false,
    rsv3: Bool = false,
    opcode: UInt8,
    payload: [UInt8] = [],
    maskKey: [UInt8]? = rfcMaskKey
) -> [UInt8] {
    var first = opcode & 0x0F
    if fin { first |= 0x80 }
    if rsv1 { first |= 0x40 }
    if rsv2 { first |= 0x20 }
    if rsv3 { first |= 0x10 }
    var bytes: [UInt8] = [first]
    let maskBit: UInt8 = maskKey == nil ? 0 : 0x80
    if payload.count < 126 {
        bytes.append(maskBit | UInt8(payload.count))
    } else if payload.count <= 0xFFFF {
        bytes.append(maskBit | 126)
        bytes.append(UInt8(payload.count >> 8))
        bytes.append(UInt8(payload.count & 0xFF))
    } else {
        bytes.append(maskBit | 127)
        for shift in stride(from: 56, through: 0, by: -8) {
            bytes.append(UInt8(truncatingIfNeeded: UInt64(payload.count) >> UInt64(shift)))
        }
    }
    if let maskKey {
        precondition(maskKey.count == 4, "a masking key has four bytes")
        bytes += maskKey
        bytes += payload.enumerated().map { index, byte in byte ^ maskKey[index % 4] }
    } else {
        bytes += payload
    }
    return bytes
}

/// A masked client frame, as a browser would send it.
func clientFrame(
    fin: Bool = true,
    rsv1: Bool = false,
    rsv2: Bool = false,
    rsv3: Bool = false,
    opcode: UInt8,
    payload: [UInt8] = [],
    maskKey: [UInt8] = rfcMaskKey
) -> [UInt8] {
    frame(fin: fin, rsv1: rsv1, rsv2: rsv2, rsv3: rsv3, opcode: opcode, payload: payload, maskKey: maskKey)
}

/// A masked client text frame.
func clientText(_ text: String, fin: Bool = true) -> [UInt8] {
    clientFrame(fin: fin, opcode: Op.text, payload: Array(text.utf8))
}

/// A masked client Close frame with a code and a reason.
func clientClose(code: UInt16, reason: [UInt8] = []) -> [UInt8] {
    clientFrame(opcode: Op.close, payload: [UInt8(code >> 8), UInt8(code & 0xFF)] + reason)
}

/// Deterministic filler bytes for large payloads.
func patternBytes(count: Int) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
}

/// Self-checks of the helpers, so a broken helper cannot make every other test pass vacuously.
@Suite struct FeedingHelperTests {
    @Test func frameBuilderMatchesTheRFC6455MaskedHelloExample() {
        #expect(clientText("Hello") == [0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58])
        let hello = Array("Hello".utf8)
        #expect(frame(opcode: Op.text, payload: hello, maskKey: nil) == [0x81, 0x05] + hello)
    }

    @Test func frameBuilderUsesTheShortestLengthForm() {
        #expect(frame(opcode: Op.binary, payload: patternBytes(count: 125), maskKey: nil).count == 2 + 125)
        #expect(
            frame(opcode: Op.binary, payload: patternBytes(count: 126), maskKey: nil).prefix(4) == [0x82, 0x7E, 0, 126]
        )
        #expect(
            frame(opcode: Op.binary, payload: patternBytes(count: 65536)).prefix(10)
                == [0x82, 0xFF, 0, 0, 0, 0, 0, 1, 0, 0]
        )
    }

    @Test(arguments: allFeedingModes)
    func everyModeDeliversEveryByteExactlyOnce(mode: FeedingMode) {
        let sizes = mode.chunkSizes(for: 1000)
        #expect(sizes.reduce(0, +) == 1000)
        #expect(sizes.allSatisfy { $0 > 0 })
        if mode == .byteByByte { #expect(sizes.count == 1000) }
        if mode == .whole { #expect(sizes == [1000]) }
    }

    @Test(arguments: allFeedingModes)
    func readsHoldEveryByteInOrder(mode: FeedingMode) {
        let bytes = patternBytes(count: 1000)
        let reads = mode.reads(of: bytes)
        #expect(reads.map(\.count) == mode.chunkSizes(for: 1000))
        #expect(Array(reads.joined()) == bytes)
    }

    @Test func randomChunksDependOnTheSeed() {
        let first = FeedingMode.randomChunks(seed: 1).chunkSizes(for: 500)
        #expect(first == FeedingMode.randomChunks(seed: 1).chunkSizes(for: 500))
        #expect(first != FeedingMode.randomChunks(seed: 2).chunkSizes(for: 500))
    }

    @Test func feederKeepsAPartialFrameUntilTheRestArrives() {
        var feeder = InboundFeeder()
        let bytes = clientText("Hello") + clientText("World")
        #expect(feeder.feed(bytes[0..<13]) == [.text("Hello")])
        #expect(feeder.unconsumedCount == 2)
        #expect(feeder.feed(bytes[13...]) == [.text("World")])
        #expect(feeder.unconsumedCount == 0)
        #expect(feeder.events == [.text("Hello"), .text("World")])
    }
}
