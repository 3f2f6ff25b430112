import Testing
import WebSocketCore

/// A stand-in for permessage-deflate: transforms each fragment in a recognisable way, honours the output limit
/// the way a real inflater must, and records how it was called.
private final class FakeInflater: WebSocketMessageInflater {
    enum Behaviour {
        /// Appends each fragment's bytes reversed.
        case reverse
        /// Appends every byte twice, so a message grows on inflation.
        case duplicate
        /// Throws this failure.
        case fail(InflateFailure)
    }

    struct Call: Equatable {
        var fragment: [UInt8]
        var isFinal: Bool
        var limit: Int
    }

    let behaviour: Behaviour
    private(set) var calls: [Call] = []

    init(_ behaviour: Behaviour) {
        self.behaviour = behaviour
    }

    func inflate(
        _ fragment: UnsafeRawBufferPointer,
        isFinal: Bool,
        into output: inout [UInt8],
        limit: Int
    ) throws(InflateFailure) {
        self.calls.append(Call(fragment: Array(fragment), isFinal: isFinal, limit: limit))
        let inflated: [UInt8]
        switch self.behaviour {
        case .reverse: inflated = fragment.reversed()
        case .duplicate: inflated = fragment.flatMap { [$0, $0] }
        case .fail(let failure): throw failure
        }
        guard output.count + inflated.count <= limit else { throw .messageTooLarge }
        output += inflated
    }
}

private func continuation(_ payload: [UInt8], fin: Bool) -> [UInt8] {
    clientFrame(fin: fin, opcode: Op.continuation, payload: payload)
}

private func continuation(_ text: String, fin: Bool) -> [UInt8] {
    continuation(Array(text.utf8), fin: fin)
}

/// The close codes a peer may send, listed independently of `WebSocketCloseCode.isValidOnWire`.
private func isRegisteredForTheWire(_ code: Int) -> Bool {
    (1000...1003).contains(code) || (1007...1014).contains(code) || (3000...4999).contains(code)
}

@Suite struct InboundProcessorTests {
    // MARK: Fragmentation

    @Test func pingBetweenFragmentsIsDeliveredBeforeTheWholeMessage() {
        let bytes =
            clientText("Hel", fin: false) + clientFrame(opcode: Op.ping, payload: [1, 2])
            + continuation("lo", fin: true)
        expectEvents(bytes, [.ping([1, 2]), .text("Hello")])

        // The ping is delivered as soon as it arrives, while the message is still open.
        var feeder = InboundFeeder()
        #expect(feeder.feed(clientText("Hel", fin: false)) == [])
        #expect(feeder.feed(clientFrame(opcode: Op.ping, payload: [1, 2])) == [.ping([1, 2])])
        #expect(feeder.feed(clientFrame(opcode: Op.pong)) == [.pong([])])
        #expect(feeder.feed(continuation("lo", fin: true)) == [.text("Hello")])
    }

    @Test func fragmentedBinaryMessageIsDeliveredWhole() {
        let bytes =
            clientFrame(fin: false, opcode: Op.binary, payload: [1, 2]) + continuation([3], fin: false)
            + continuation([], fin: false) + continuation([4, 5], fin: true)
            + clientFrame(opcode: Op.binary, payload: [6])
        expectEvents(bytes, [.binary([1, 2, 3, 4, 5]), .binary([6])])
    }

    @Test func continuationWithoutAStartIsAProtocolError() {
        expectEvents(continuation("x", fin: true), [.violation(1002)])
        expectEvents(continuation("x", fin: false), [.violation(1002)])
        // After a finished message, too.
        expectEvents(clientText("done") + continuation("x", fin: true), [.text("done"), .violation(1002)])
    }

    @Test(arguments: [Op.text, Op.binary])
    func newDataFrameWhileAMessageIsOpenIsAProtocolError(opcode: UInt8) {
        let bytes = clientText("open", fin: false) + clientFrame(opcode: opcode, payload: [0x41])
        expectEvents(bytes, [.violation(1002)])
        let unfinished = clientText("open", fin: false) + clientFrame(fin: false, opcode: opcode, payload: [0x41])
        expectEvents(unfinished, [.violation(1002)])
    }

    @Test func messageSizeLimitCountsEveryFragment() {
        let limits = WebSocketInboundProcessor.Limits(maximumFrameSize: 100, maximumMessageSize: 10)
        let atLimit = clientText("abcd", fin: false) + continuation("efgh", fin: false) + continuation("ij", fin: true)
        expectEvents(atLimit, [.text("abcdefghij")], limits: limits)

        let overLimit =
            clientText("abcd", fin: false) + continuation("efgh", fin: false)
            + continuation("ijk", fin: true)
        expectEvents(overLimit, [.violation(1009)], limits: limits)

        // Failed at the fragment that crosses the limit, without waiting for the end of the message.
        var feeder = InboundFeeder(limits: limits)
        #expect(feeder.feed(clientText("abcd", fin: false) + continuation("efgh", fin: false)) == [])
        #expect(feeder.feed(continuation("ijk", fin: false)) == [.violation(1009)])
        #expect(feeder.isFinished)

        // A single frame within the frame limit but over the message limit.
        expectEvents(clientText("abcdefghijk"), [.violation(1009)], limits: limits)
        let binary = clientFrame(opcode: Op.binary, payload: patternBytes(count: 11))
        expectEvents(binary, [.violation(1009)], limits: limits)
    }

    @Test func controlFramesDoNotCountTowardsTheMessageSize() {
        let limits = WebSocketInboundProcessor.Limits(maximumFrameSize: 100, maximumMessageSize: 4)
        let bytes =
            clientText("ab", fin: false) + clientFrame(opcode: Op.ping, payload: patternBytes(count: 50))
            + continuation("cd", fin: true)
        expectEvents(bytes, [.ping(patternBytes(count: 50)), .text("abcd")], limits: limits)
    }

    @Test func fragmentLimitIsAPolicyViolation() {
        let limits = WebSocketInboundProcessor.Limits(maximumFragmentsPerMessage: 3)
        let three = clientText("a", fin: false) + continuation("b", fin: false) + continuation("c", fin: true)
        expectEvents(three + three, [.text("abc"), .text("abc")], limits: limits)

        let four =
            clientText("a", fin: false) + continuation("b", fin: false) + continuation("c", fin: false)
            + continuation("d", fin: true)
        expectEvents(four, [.violation(1008)], limits: limits)

        // Empty fragments count too: they cost a frame each.
        let empties =
            clientText("", fin: false) + continuation("", fin: false) + continuation("", fin: false)
            + continuation("", fin: false)
        expectEvents(empties, [.violation(1008)], limits: limits)
    }

    // MARK: UTF-8

    @Test(arguments: [
        [0xFF] as [UInt8],
        [0x41, 0xC3],
        [0xC3, 0x28],
        [0xED, 0xA0, 0x80],
        [0xF4, 0x90, 0x80, 0x80],
        [0xC0, 0xAF],
    ])
    func invalidUTF8InASingleFrameIsRejected(payload: [UInt8]) {
        expectEvents(clientFrame(opcode: Op.text, payload: payload), [.violation(1007)])
        // The same bytes are fine as binary.
        expectEvents(clientFrame(opcode: Op.binary, payload: payload), [.binary(payload)])
    }

    @Test func invalidUTF8IsReportedAtTheFragmentThatHoldsTheBadByte() {
        // "ab" then the first byte of "é" (still a valid prefix), then "(" which cannot continue it.
        let fragments = [
            clientFrame(fin: false, opcode: Op.text, payload: [0x61, 0x62]),
            continuation([0xC3], fin: false),
            continuation([0x28, 0x61], fin: false),
            continuation("z", fin: true),
        ]
        var feeder = InboundFeeder()
        #expect(feeder.feed(fragments[0]) == [])
        #expect(feeder.feed(fragments[1]) == [])
        #expect(feeder.feed(fragments[2]) == [.violation(1007)])
        #expect(feeder.isFinished)
        #expect(feeder.feed(fragments[3]) == [])
        expectEvents(fragments.flatMap { $0 }, [.violation(1007)])

        // A byte that is never valid, in a middle fragment.
        var second = InboundFeeder()
        #expect(second.feed(clientText("ok", fin: false)) == [])
        #expect(second.feed(continuation([0x61, 0xFF], fin: false)) == [.violation(1007)])
    }

    @Test func messageEndingInsideACharacterIsRejected() {
        let bytes = clientText("ab", fin: false) + continuation([0xE2, 0x82], fin: true)
        expectEvents(bytes, [.violation(1007)])
        expectEvents(clientFrame(opcode: Op.text, payload: [0xE2, 0x82]), [.violation(1007)])
    }

    @Test func characterSplitAcrossFragmentsIsAccepted() {
        // "€" is E2 82 AC and "😀" is F0 9F 98 80: split them after every byte.
        let euro =
            clientFrame(fin: false, opcode: Op.text, payload: [0x61, 0xE2]) + continuation([0x82], fin: false)
            + continuation([0xAC, 0xF0], fin: false) + continuation([0x9F, 0x98], fin: false)
            + continuation([0x80], fin: true)
        expectEvents(euro, [.text("a€😀")])
    }

    @Test func emptyMessagesAreDelivered() {
        expectEvents(clientFrame(opcode: Op.text), [.text("")])
        expectEvents(clientFrame(opcode: Op.binary), [.binary([])])
        expectEvents(clientText("", fin: false) + continuation([], fin: true), [.text("")])
        expectEvents(
            clientFrame(fin: false, opcode: Op.binary) + continuation([], fin: true) + clientFrame(opcode: Op.ping),
            [.binary([]), .ping([])]
        )
    }

    // MARK: Close frames

    @Test func closeWithoutAPayloadHasNoCode() {
        expectEvents(clientFrame(opcode: Op.close), [.close(nil, "")])
    }

    @Test func closeWithAOneBytePayloadIsAProtocolError() {
        expectEvents(clientFrame(opcode: Op.close, payload: [0x03]), [.violation(1002)])
    }

    @Test func closeCarriesItsCodeAndReason() {
        expectEvents(clientClose(code: 1000, reason: Array("bye, héllo".utf8)), [.close(1000, "bye, héllo")])
        let longest = Array(repeating: UInt8(ascii: "r"), count: 123)
        expectEvents(clientClose(code: 4999, reason: longest), [.close(4999, String(repeating: "r", count: 123))])
    }

    @Test func closeReasonWithInvalidUTF8IsRejected() {
        expectEvents(clientClose(code: 1000, reason: [0x61, 0xFF]), [.violation(1007)])
        expectEvents(clientClose(code: 1000, reason: [0x61, 0xE2, 0x82]), [.violation(1007)])
    }

    @Test func everyCloseCodeIsClassifiedAndHandledAsClassified() {
        var accepted = 0
        for code in 0...5000 {
            let closeCode = WebSocketCloseCode(rawValue: UInt16(code))
            #expect(closeCode.isValidOnWire == isRegisteredForTheWire(code), "code \(code)")
            var feeder = InboundFeeder()
            let events = feeder.feed(clientClose(code: UInt16(code), reason: Array("r".utf8)))
            if closeCode.isValidOnWire {
                accepted += 1
                #expect(events == [.close(UInt16(code), "r")], "code \(code)")
            } else {
                #expect(events == [.violation(1002)], "code \(code)")
            }
            #expect(feeder.isFinished, "code \(code)")
        }
        #expect(accepted == 4 + 8 + 2000)
    }

    @Test func closeIsAllowedInTheMiddleOfAFragmentedMessage() {
        expectEvents(clientText("half", fin: false) + clientClose(code: 1001), [.close(1001, "")])
    }

    // MARK: After the end

    @Test func nothingIsDeliveredAfterAClose() {
        let after = clientText("late") + clientFrame(opcode: Op.ping) + clientFrame(opcode: Op.close)
        expectEvents(clientClose(code: 1000) + after, [.close(1000, "")])

        var feeder = InboundFeeder()
        #expect(feeder.feed(clientFrame(opcode: Op.close) + clientText("same read")) == [.close(nil, "")])
        #expect(feeder.lastProgress?.consumed == 6)
        #expect(feeder.lastProgress?.isFinished == true)
        #expect(feeder.feed(after) == [])
        #expect(feeder.isFinished)
        #expect(feeder.events == [.close(nil, "")])
    }

    @Test func nothingIsDeliveredAfterAViolation() {
        let after = clientText("late") + clientClose(code: 1000)
        expectEvents(continuation("x", fin: true) + after, [.violation(1002)])
        expectEvents(clientFrame(opcode: Op.text, payload: [0xFF]) + after, [.violation(1007)])

        var feeder = InboundFeeder()
        #expect(feeder.feed([0x81, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F]) == [.violation(1002)])
        #expect(feeder.isFinished)
        #expect(feeder.feed(after) == [])
        #expect(feeder.events == [.violation(1002)])
    }

    // MARK: Compression

    @Test func compressedMessagesGoThroughTheInflater() {
        let bytes =
            clientFrame(rsv1: true, opcode: Op.text, payload: Array("olleH".utf8)) + clientText("plain")
            + clientFrame(rsv1: true, opcode: Op.binary, payload: [1, 2, 3])
        expectEvents(
            bytes,
            [.text("Hello"), .text("plain"), .binary([3, 2, 1])],
            makeInflater: { FakeInflater(.reverse) }
        )

        let inflater = FakeInflater(.reverse)
        var feeder = InboundFeeder(limits: .init(maximumMessageSize: 4000), inflater: inflater)
        feeder.feed(bytes)
        #expect(
            inflater.calls == [
                .init(fragment: Array("olleH".utf8), isFinal: true, limit: 4000),
                .init(fragment: [1, 2, 3], isFinal: true, limit: 4000),
            ]
        )
    }

    @Test func compressedMessageIsInflatedFragmentByFragment() {
        let bytes =
            clientFrame(fin: false, rsv1: true, opcode: Op.text, payload: Array("cba".utf8))
            + clientFrame(opcode: Op.ping, payload: [7]) + continuation("fed", fin: true)
        expectEvents(bytes, [.ping([7]), .text("abcdef")], makeInflater: { FakeInflater(.reverse) })

        let inflater = FakeInflater(.reverse)
        var feeder = InboundFeeder(inflater: inflater)
        feeder.feed(bytes)
        #expect(inflater.calls.map(\.fragment) == [Array("cba".utf8), Array("fed".utf8)])
        #expect(inflater.calls.map(\.isFinal) == [false, true])
    }

    @Test func uncompressedFragmentedMessageBypassesTheInflater() {
        let inflater = FakeInflater(.reverse)
        var feeder = InboundFeeder(inflater: inflater)
        #expect(feeder.feed(clientText("ab", fin: false) + continuation("cd", fin: true)) == [.text("abcd")])
        #expect(inflater.calls.isEmpty)
    }

    @Test func rsv1OnAContinuationIsAProtocolError() {
        let compressedStart = clientFrame(fin: false, rsv1: true, opcode: Op.text, payload: Array("ba".utf8))
        let plainStart = clientText("ab", fin: false)
        let badContinuation = clientFrame(rsv1: true, opcode: Op.continuation, payload: Array("dc".utf8))
        expectEvents(compressedStart + badContinuation, [.violation(1002)], makeInflater: { FakeInflater(.reverse) })
        expectEvents(plainStart + badContinuation, [.violation(1002)], makeInflater: { FakeInflater(.reverse) })
    }

    @Test(arguments: [Op.ping, Op.pong, Op.close])
    func rsv1OnAControlFrameIsAProtocolError(opcode: UInt8) {
        let bytes = clientFrame(rsv1: true, opcode: opcode)
        expectEvents(bytes, [.violation(1002)], makeInflater: { FakeInflater(.reverse) })
    }

    @Test func messageSizeLimitAppliesAfterInflation() {
        let limits = WebSocketInboundProcessor.Limits(maximumFrameSize: 100, maximumMessageSize: 10)
        let duplicate: () -> (any WebSocketMessageInflater)? = { FakeInflater(.duplicate) }
        expectEvents(
            clientFrame(rsv1: true, opcode: Op.text, payload: Array("abcde".utf8)),
            [.text("aabbccddee")],
            limits: limits,
            makeInflater: duplicate
        )
        // Six bytes on the wire, twelve once inflated.
        expectEvents(
            clientFrame(rsv1: true, opcode: Op.text, payload: Array("abcdef".utf8)),
            [.violation(1009)],
            limits: limits,
            makeInflater: duplicate
        )
        // Across fragments: 3 + 3 bytes on the wire, 6 + 6 inflated.
        expectEvents(
            clientFrame(fin: false, rsv1: true, opcode: Op.binary, payload: [1, 2, 3])
                + continuation([4, 5, 6], fin: true),
            [.violation(1009)],
            limits: limits,
            makeInflater: duplicate
        )
    }

    @Test func inflateFailuresMapToTheirCloseCodes() {
        let bytes = clientFrame(rsv1: true, opcode: Op.binary, payload: [1, 2, 3])
        expectEvents(bytes, [.violation(1009)], makeInflater: { FakeInflater(.fail(.messageTooLarge)) })
        expectEvents(bytes, [.violation(1007)], makeInflater: { FakeInflater(.fail(.corruptData)) })
        let fragmented =
            clientFrame(fin: false, rsv1: true, opcode: Op.text, payload: [1])
            + continuation([2], fin: true)
        expectEvents(fragmented, [.violation(1007)], makeInflater: { FakeInflater(.fail(.corruptData)) })
    }

    @Test func inflatedTextIsValidatedAsUTF8() {
        let reverse: () -> (any WebSocketMessageInflater)? = { FakeInflater(.reverse) }
        // A9 C3 reversed is C3 A9, "é": invalid on the wire, valid once inflated.
        let reversedE = clientFrame(rsv1: true, opcode: Op.text, payload: [0xA9, 0xC3])
        expectEvents(reversedE, [.text("é")], makeInflater: reverse)
        // And the other way round.
        let plainE = clientFrame(rsv1: true, opcode: Op.text, payload: [0xC3, 0xA9])
        expectEvents(plainE, [.violation(1007)], makeInflater: reverse)
        // A character split across inflated fragments.
        expectEvents(
            clientFrame(fin: false, rsv1: true, opcode: Op.text, payload: [0xC3]) + continuation([0xA9], fin: true),
            [.text("é")],
            makeInflater: reverse
        )
    }
}
