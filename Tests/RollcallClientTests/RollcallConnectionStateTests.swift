#if canImport(EventIO)

import Testing

@testable import RollcallClient

/// The Linux transport's state as the sending and closing threads see it, without a socket: a close asked for
/// before the upgrade waits for it, the first close counts, nothing is queued once closing, and the compression
/// agreed outlives the end.
@Suite struct RollcallConnectionStateTests {
    typealias State = RollcallConnection.State
    typealias CloseRequest = RollcallConnection.CloseRequest

    @Test func anOpenConnectionTakesMessagesUntilACloseIsAskedFor() {
        var state = State.connecting(closeRequested: nil)
        #expect(!state.acceptsMessages && !state.isConnected && !state.isCompressionNegotiated)
        state.opened(compressed: true)
        #expect(state == .open(compressed: true) && state.acceptsMessages && state.isConnected)
        #expect(state.closeRequest == nil)
        state.requestClose(CloseRequest(code: 1000, reason: "bye"))
        state.requestClose(CloseRequest(code: 4000, reason: "later"))
        #expect(state == .closing(CloseRequest(code: 1000, reason: "bye"), compressed: true), "the first close counts")
        #expect(!state.acceptsMessages && state.isConnected, "the close handshake still runs")
        state.finish()
        #expect(state == .finished(compressed: true) && !state.isConnected && state.isCompressionNegotiated)
        state.requestClose(CloseRequest(code: 1000, reason: ""))
        state.opened(compressed: false)
        #expect(state == .finished(compressed: true), "nothing follows the end")
    }

    @Test func aCloseAskedForBeforeTheUpgradeGoesAheadOnceItCompletes() {
        var state = State.connecting(closeRequested: nil)
        state.requestClose(CloseRequest(code: 1001, reason: "going"))
        #expect(state.closeRequest == CloseRequest(code: 1001, reason: "going") && !state.isConnected)
        state.opened(compressed: false)
        #expect(state == .closing(CloseRequest(code: 1001, reason: "going"), compressed: false))
        #expect(!state.acceptsMessages)
    }

    @Test func aFailedOpenFinishesWithoutCompression() {
        var state = State.connecting(closeRequested: nil)
        state.finish()
        #expect(state == .finished(compressed: false) && !state.acceptsMessages)
    }

    @Test func theSendQueueRefusesAFrameOverItsBoundAndEmptiesWhenTaken() {
        var queue = RollcallConnection.SendQueue()
        let first = queue.append([1, 2, 3], limit: 5)
        let over = queue.append([4, 5, 6], limit: 5)
        let fits = queue.append([4, 5], limit: 5)
        #expect(first && !over && fits, "3 + 3 bytes is over 5, 3 + 2 is not")
        #expect(queue.bytes == 5)
        let taken = queue.takeAll()
        #expect(taken == [[1, 2, 3], [4, 5]])
        #expect(queue.bytes == 0 && queue.frames.isEmpty)
        let afterTaking = queue.append([7, 8, 9, 10, 11], limit: 5)
        #expect(afterTaking)
    }
}

#endif
