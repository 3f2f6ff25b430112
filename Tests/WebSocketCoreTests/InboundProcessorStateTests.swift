import Testing
import WebSocketCore

/// An inflater that never runs: only its presence matters here.
private final class UnusedInflater: WebSocketMessageInflater {
    func inflate(
        _ fragment: UnsafeRawBufferPointer,
        isFinal: Bool,
        into output: inout [UInt8],
        limit: Int
    ) throws(InflateFailure) {
        output.append(contentsOf: fragment)
    }
}

/// Feeds one read and returns the events' count.
private func feed(_ processor: inout WebSocketInboundProcessor, _ bytes: [UInt8]) -> Int {
    var read = bytes
    var events = 0
    _ = read.withUnsafeMutableBytes { buffer in processor.process(buffer) { _ in events += 1 } }
    return events
}

@Suite("What an inbound processor holds between reads")
struct InboundProcessorStateTests {
    @Test func itHoldsStateOnlyWhileAMessageIsInPiecesAndOnceItHasFinished() {
        var processor = WebSocketInboundProcessor(limits: .init())
        #expect(!processor.holdsState)
        #expect(feed(&processor, clientText("whole")) == 1)
        #expect(!processor.holdsState)
        #expect(feed(&processor, clientText("Hel", fin: false)) == 0)
        #expect(processor.holdsState)
        #expect(feed(&processor, clientFrame(opcode: Op.ping)) == 1)
        #expect(processor.holdsState)
        #expect(feed(&processor, clientFrame(opcode: Op.continuation, payload: Array("lo".utf8))) == 1)
        #expect(!processor.holdsState)
        // After a close it takes no more bytes, which a new processor would.
        #expect(feed(&processor, clientFrame(opcode: Op.close)) == 1)
        #expect(processor.holdsState)
        #expect(feed(&processor, clientText("late")) == 0)
    }

    @Test func aViolationFinishesIt() {
        var processor = WebSocketInboundProcessor(limits: .init())
        #expect(feed(&processor, clientFrame(opcode: Op.continuation, payload: [1])) == 1)
        #expect(processor.holdsState)
    }

    @Test func anInflaterIsState() {
        let processor = WebSocketInboundProcessor(limits: .init(), inflater: UnusedInflater())
        #expect(processor.holdsState)
    }
}
