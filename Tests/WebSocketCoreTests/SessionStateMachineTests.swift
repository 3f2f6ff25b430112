import Testing

@testable import WebSocketCore

typealias SessionMachine = WebSocketSessionStateMachine

/// Timers in milliseconds: ping after 1 s of silence, 0.5 s for the answer, idle after 10 s, 2 s to close.
private let timeouts = SessionMachine.Timeouts(
    pingInterval: 1000, pongTimeout: 500, idleTimeout: 10_000, closeTimeout: 2000)

private func openMachine(
    _ role: SessionMachine.Role = .server, timeouts: SessionMachine.Timeouts = timeouts
) -> SessionMachine {
    SessionMachine(role: role, timeouts: timeouts, now: 100)
}

/// Runs `body` with `bytes` as a raw buffer.
private func withPayload<R>(_ bytes: [UInt8], _ body: (UnsafeRawBufferPointer) -> R) -> R {
    bytes.withUnsafeBytes(body)
}

@Suite("Session state machine")
struct SessionStateMachineTests {
    @Test("A new session is open with its clocks at the upgrade")
    func newSessionIsOpen() {
        let machine = openMachine()
        #expect(machine.isOpen)
        #expect(machine.state == .open(.init(lastReceivedAt: 100, lastMessageAt: 100, pingSentAt: nil)))
        #expect(machine.nextDeadline == 1101)
    }

    @Test("A ping is answered with a pong carrying the same payload", arguments: [SessionMachine.Role.server, .client])
    func pingIsAnsweredWithSamePayload(role: SessionMachine.Role) {
        var machine = openMachine(role)
        withPayload([1, 2, 3, 4]) { payload in
            let action = machine.receivedPing(payload)
            guard case .sendPong(let pong) = action else {
                Issue.record("expected a pong, got \(action)")
                return
            }
            #expect(Array(pong) == [1, 2, 3, 4])
            #expect(pong.baseAddress == payload.baseAddress)
        }
        #expect(machine.isOpen)
    }

    @Test("A ping after our Close is not answered")
    func pingAfterOurCloseIsIgnored() {
        var machine = openMachine()
        _ = machine.close(code: .normalClosure, reason: "", now: 200)
        withPayload([7]) { #expect(machine.receivedPing($0) == .doNothing) }
    }

    @Test("A pong that is not awaited is ignored")
    func unsolicitedPongIsIgnored() {
        var machine = openMachine()
        let before = machine.state
        withPayload([]) { #expect(machine.receivedPong($0) == .doNothing) }
        withPayload([9, 9]) { #expect(machine.receivedPong($0) == .doNothing) }
        #expect(machine.state == before)
    }

    @Test("A pong with our empty payload answers the outstanding ping; one with another payload does not")
    func awaitedPongAnswersThePing() {
        var machine = openMachine()
        #expect(machine.timerFired(now: 1101) == .sendPing)
        withPayload([1]) { #expect(machine.receivedPong($0) == .doNothing) }
        #expect(machine.state == .open(.init(lastReceivedAt: 100, lastMessageAt: 100, pingSentAt: 1101)))
        withPayload([]) { #expect(machine.receivedPong($0) == .doNothing) }
        #expect(machine.state == .open(.init(lastReceivedAt: 100, lastMessageAt: 100, pingSentAt: nil)))
    }

    @Test("After a silence of the ping interval a ping goes out, once")
    func pingAfterSilence() {
        var machine = openMachine()
        #expect(machine.timerFired(now: 1100) == .doNothing)
        #expect(machine.timerFired(now: 1101) == .sendPing)
        #expect(machine.timerFired(now: 1200) == .doNothing)
        #expect(machine.nextDeadline == 1602)
    }

    @Test("Any bytes from the peer answer the ping and restart the interval")
    func receivedDataAnswersThePing() {
        var machine = openMachine()
        #expect(machine.timerFired(now: 1101) == .sendPing)
        machine.receivedData(now: 1300)
        #expect(machine.state == .open(.init(lastReceivedAt: 1300, lastMessageAt: 100, pingSentAt: nil)))
        #expect(machine.timerFired(now: 2300) == .doNothing)
        #expect(machine.timerFired(now: 2301) == .sendPing)
    }

    @Test("A ping left unanswered for the pong timeout closes the socket without a Close frame")
    func pongTimeoutClosesTheSocket() {
        var machine = openMachine()
        #expect(machine.timerFired(now: 1101) == .sendPing)
        #expect(machine.timerFired(now: 1601) == .doNothing)
        #expect(machine.timerFired(now: 1602) == .closeSocket(.pong))
        #expect(machine.state == .closed)
        #expect(machine.nextDeadline == nil)
        #expect(machine.timerFired(now: 99_999) == .doNothing)
    }

    @Test("No pings go out when the interval is zero")
    func noPingsWithZeroInterval() {
        var machine = openMachine(timeouts: .init(pingInterval: 0, pongTimeout: 500, idleTimeout: 0))
        #expect(machine.nextDeadline == nil)
        #expect(machine.timerFired(now: 1_000_000) == .doNothing)
        #expect(machine.isOpen)
    }

    @Test("The idle timeout closes with 1001 after no message, even while pings are answered")
    func idleTimeoutSendsGoingAway() {
        var machine = openMachine()
        #expect(machine.receivedMessage(now: 5000) == true)
        machine.receivedData(now: 14_500)
        #expect(machine.timerFired(now: 15_000) == .doNothing)
        #expect(machine.nextDeadline == 15_001)
        #expect(machine.timerFired(now: 15_001) == .sendClose(code: .goingAway, reason: "idle timeout"))
        #expect(machine.state == .closeSent(at: 15_001))
    }

    @Test("Messages are delivered while open and dropped after our Close")
    func messagesAfterOurCloseAreDropped() {
        var machine = openMachine()
        #expect(machine.receivedMessage(now: 300) == true)
        #expect(
            machine.close(code: .normalClosure, reason: "bye", now: 400)
                == .sendClose(code: .normalClosure, reason: "bye"))
        #expect(machine.receivedMessage(now: 500) == false)
    }

    @Test("A received Close is echoed with its code, and the server closes the socket once it is written")
    func serverEchoesClose() {
        var machine = openMachine(.server)
        #expect(
            machine.receivedClose(code: WebSocketCloseCode(rawValue: 4000), now: 500)
                == .sendClose(code: WebSocketCloseCode(rawValue: 4000), reason: ""))
        #expect(machine.state == .closing(since: 500))
        #expect(machine.closesSocketOnceWritten)
        #expect(!machine.isOpen)
    }

    @Test("A Close without a code is echoed with an empty Close")
    func emptyCloseIsEchoedEmpty() {
        var machine = openMachine()
        #expect(machine.receivedClose(code: nil, now: 500) == .sendClose(code: nil, reason: ""))
    }

    @Test("The client echoes a Close and then waits for the server to close the connection")
    func clientEchoesCloseAndWaits() {
        var machine = openMachine(.client)
        #expect(machine.receivedClose(code: .goingAway, now: 500) == .sendClose(code: .goingAway, reason: ""))
        #expect(machine.state == .awaitingServerClose(since: 500))
        #expect(!machine.closesSocketOnceWritten)
        #expect(machine.timerFired(now: 2500) == .doNothing)
        #expect(machine.timerFired(now: 2501) == .closeSocket(.close))
    }

    @Test("Closing from this side sends our Close and waits for the peer's")
    func localCloseWaits() {
        var machine = openMachine()
        #expect(machine.close(code: .goingAway, reason: "bye", now: 300) == .sendClose(code: .goingAway, reason: "bye"))
        #expect(machine.state == .closeSent(at: 300))
        #expect(!machine.closesSocketOnceWritten)
        #expect(machine.close(code: .normalClosure, reason: "", now: 301) == .doNothing)
        #expect(machine.nextDeadline == 2301)
    }

    @Test(
        "The peer's Close after ours completes the handshake without a second Close",
        arguments: [
            (SessionMachine.Role.server, SessionMachine.State.closing(since: 300)),
            (.client, .awaitingServerClose(since: 300)),
        ])
    func closeAnsweredCompletesHandshake(role: SessionMachine.Role, expected: SessionMachine.State) {
        var machine = openMachine(role)
        _ = machine.close(code: .normalClosure, reason: "", now: 300)
        #expect(machine.receivedClose(code: .normalClosure, now: 400) == .doNothing)
        #expect(machine.state == expected)
    }

    @Test("A close handshake that does not finish in time closes the socket")
    func closeTimeoutClosesTheSocket() {
        var machine = openMachine()
        _ = machine.close(code: .normalClosure, reason: "", now: 300)
        #expect(machine.timerFired(now: 2300) == .doNothing)
        #expect(machine.timerFired(now: 2301) == .closeSocket(.close))
        #expect(machine.state == .closed)
    }

    @Test("A server whose echo is not written in time closes the socket")
    func closingTimeoutClosesTheSocket() {
        var machine = openMachine(.server)
        _ = machine.receivedClose(code: .normalClosure, now: 500)
        #expect(machine.timerFired(now: 2501) == .closeSocket(.close))
    }

    @Test("A violation while open sends a Close with its code, and the socket closes once it is written")
    func violationFailsTheConnection() {
        var machine = openMachine(.client)
        #expect(
            machine.receivedViolation(.invalidUTF8, now: 700)
                == .sendClose(
                    code: .invalidFramePayloadData, reason: WebSocketProtocolViolation.invalidUTF8.description))
        #expect(machine.state == .closing(since: 700))
        #expect(machine.closesSocketOnceWritten)
    }

    @Test("A violation after our Close sends nothing more and closes the socket")
    func violationAfterOurClose() {
        var machine = openMachine()
        _ = machine.close(code: .normalClosure, reason: "", now: 300)
        #expect(machine.receivedViolation(.reservedBitsSet, now: 400) == .doNothing)
        #expect(machine.state == .closing(since: 300))
    }

    @Test("Nothing happens after the socket is closed")
    func closedSessionIgnoresEverything() {
        var machine = openMachine()
        machine.socketClosed()
        #expect(machine.state == .closed)
        #expect(machine.close(code: .normalClosure, reason: "", now: 1) == .doNothing)
        #expect(machine.receivedClose(code: .normalClosure, now: 1) == .doNothing)
        #expect(machine.receivedViolation(.invalidUTF8, now: 1) == .doNothing)
        #expect(machine.receivedMessage(now: 1) == false)
        withPayload([1]) { #expect(machine.receivedPing($0) == .doNothing) }
        machine.receivedData(now: 5)
        #expect(machine.state == .closed)
        #expect(machine.nextDeadline == nil)
    }

    @Test("The next deadline is the earlier of the idle and keep-alive timers")
    func nextDeadlineIsTheEarliest() {
        var machine = openMachine(timeouts: .init(pingInterval: 5000, pongTimeout: 500, idleTimeout: 3000))
        #expect(machine.nextDeadline == 3101)
        _ = machine.receivedMessage(now: 4000)
        #expect(machine.nextDeadline == 5101)
    }
}
