import Foundation
import Testing

@testable import RollcallClient

/// The client's connection lifecycle as one value, without threads or sockets: each transition from idle through
/// connecting, open, reconnecting and closing to closed, and what each hands back to act on.
@Suite struct ConnectionStateTests {
    /// A transport that does nothing: the state only holds it.
    final class InertTransport: RollcallTransport, @unchecked Sendable {
        func start(_ handler: @escaping @Sendable (RollcallTransportEvent) -> Void) {}
        func send(text: String) throws(RollcallError) {}
        func close(code: UInt16, reason: String) {}
        func abort() {}
        var isCompressionNegotiated: Bool { true }
    }

    /// What a waiter was called with.
    final class Calls: @unchecked Sendable {
        private let lock = NSLock()
        private var storage: [String] = []

        func add(_ call: String) { self.lock.withLock { self.storage.append(call) } }

        var all: [String] { self.lock.withLock { self.storage } }

        var connectWaiter: ConnectionState.ConnectWaiter {
            { result in
                switch result {
                case .success: self.add("connected")
                case .failure(let error): self.add("failed \(error)")
                }
            }
        }
    }

    static let policy = RollcallReconnectPolicy(
        maximumAttempts: 2, initialDelay: 0.5, maximumDelay: 10, multiplier: 2, jitter: 0)

    static func same(_ lhs: (any RollcallTransport)?, _ rhs: any RollcallTransport) -> Bool {
        lhs.map { $0 as AnyObject } === (rhs as AnyObject)
    }

    /// A state welcomed on its first attempt over `transport`.
    static func open(_ transport: any RollcallTransport, calls: Calls) -> ConnectionState {
        var state = ConnectionState.idle
        _ = state.start(calls.connectWaiter)
        _ = state.attach(transport, inbox: TransportInbox())
        state.opened(welcomeBy: 10)
        _ = state.welcomed(refreshAt: 100)
        return state
    }

    @Test func theFirstAttemptOpensOnItsWelcomeAndResumesConnectOnce() throws {
        let calls = Calls()
        let transport = InertTransport()
        var state = ConnectionState.idle
        #expect(state.status == .idle && state.transport == nil)
        let started = state.start(calls.connectWaiter)
        let startedAgain = state.start(calls.connectWaiter)
        #expect(started && !startedAgain, "connect() twice")
        #expect(state.status == .connecting && !state.isReconnectAttempt)
        let attached = state.attach(transport, inbox: TransportInbox())
        #expect(attached)
        #expect(Self.same(state.transport, transport) && state.welcomedTransport == nil, "no requests before welcome")
        state.opened(welcomeBy: 10)
        let welcomed = state.welcomed(refreshAt: 100)
        let welcome = try #require(welcomed)
        #expect(welcome.isFirst && state.status == .connected)
        welcome.connectWaiter?(.success(()))
        #expect(calls.all == ["connected"])
        #expect(Self.same(state.welcomedTransport, transport) && state.refreshAt == 100)
        // A token refresh is answered by another welcome: the connection stays as it is, with a new refresh time.
        let welcomedAgain = state.welcomed(refreshAt: 200)
        let refreshed = try #require(welcomedAgain)
        #expect(!refreshed.isFirst && refreshed.connectWaiter == nil && state.refreshAt == 200)
        state.refresh(at: 150)
        #expect(state.refreshAt == 150)
    }

    @Test func aRefusedFirstAttemptIsNotRetriedAndHandsBackTheRefusal() {
        let calls = Calls()
        var state = ConnectionState.idle
        _ = state.start(calls.connectWaiter)
        _ = state.attach(InertTransport(), inbox: TransportInbox())
        state.opened(welcomeBy: 10)
        let refusal = RollcallError(.server(code: "ERR_UNAUTHORIZED", message: "bad token"))
        state.refused(refusal)
        let ending = state.connectionEnded(code: nil, policy: Self.policy)
        #expect(ending.next == .finish && !ending.wasOpen)
        #expect(ending.authenticationFailure == refusal && ending.connectWaiter != nil)
        #expect(state.isEnding && state.status == .connecting, "shown connecting until it is closed")
        #expect(state.takeConnectWaiter() == nil, "the waiter was handed back once")
        state.showClosed(nil)
        #expect(state.status == .closed(nil) && state.isEnding)
        #expect(state.finish(nil).isEmpty)
        #expect(state.status == .closed(nil))
    }

    @Test func anOverdueWelcomeClosesTheTransportOnceAndCountsAsTheRefusal() {
        let transport = InertTransport()
        var state = ConnectionState.idle
        _ = state.start(Calls().connectWaiter)
        _ = state.attach(transport, inbox: TransportInbox())
        #expect(state.overdueWelcome(now: 1_000) == nil, "no deadline before the transport opens")
        state.opened(welcomeBy: 10)
        #expect(state.overdueWelcome(now: 9) == nil)
        #expect(Self.same(state.overdueWelcome(now: 11), transport))
        #expect(state.overdueWelcome(now: 12) == nil, "closed once")
        let ending = state.connectionEnded(code: 1000, policy: Self.policy)
        #expect(ending.authenticationFailure?.isTimeout == true)
    }

    @Test func aDropBacksOffAttemptByAttemptUntilThePolicyGivesUp() {
        let calls = Calls()
        var state = Self.open(InertTransport(), calls: calls)
        let dropped = state.connectionEnded(code: nil, policy: Self.policy)
        #expect(dropped.wasOpen && dropped.next == .reconnect(attempt: 1, delay: 0.5) && dropped.connectWaiter == nil)
        #expect(state.status == .reconnecting(attempt: 1) && state.transport == nil && state.welcomedTransport == nil)
        #expect(state.welcomed(refreshAt: 1) == nil, "nothing to welcome while waiting")
        let began = state.beginReconnect()
        #expect(began && state.status == .reconnecting(attempt: 1) && state.isReconnectAttempt)
        let failed = state.connectionEnded(code: nil, policy: Self.policy)
        #expect(!failed.wasOpen && failed.next == .reconnect(attempt: 2, delay: 1))
        let beganAgain = state.beginReconnect()
        #expect(beganAgain)
        let last = state.connectionEnded(code: nil, policy: Self.policy)
        #expect(last.next == .finish && state.isEnding && state.status == .reconnecting(attempt: 2))
        let beganAfterTheLast = state.beginReconnect()
        #expect(!beganAfterTheLast && calls.all.isEmpty)
    }

    @Test func aWelcomeOnAReconnectRejoinsAndStartsTheCountAgain() throws {
        let calls = Calls()
        var state = Self.open(InertTransport(), calls: calls)
        _ = state.connectionEnded(code: nil, policy: Self.policy)
        _ = state.beginReconnect()
        _ = state.attach(InertTransport(), inbox: TransportInbox())
        let welcomed = state.welcomed(refreshAt: 100)
        let welcome = try #require(welcomed)
        #expect(welcome.isFirst && welcome.connectWaiter == nil, "a reconnect rejoins instead of resuming connect()")
        #expect(state.status == .connected)
        #expect(state.connectionEnded(code: 1006, policy: Self.policy).next == .reconnect(attempt: 1, delay: 0.5))
    }

    @Test func aFinalCloseCodeEndsTheClientWithoutAnotherAttempt() {
        var state = Self.open(InertTransport(), calls: Calls())
        let ending = state.connectionEnded(code: 4003, policy: Self.policy)
        #expect(ending.wasOpen && ending.next == .finish)
        #expect(state.isEnding && state.status == .connected)
        var never = Self.open(InertTransport(), calls: Calls())
        #expect(never.connectionEnded(code: nil, policy: .never).next == .finish, "a policy of no attempts")
    }

    @Test func closeWhileOpenClosesTheTransportAndWaitsForTheThread() {
        let transport = InertTransport()
        var state = Self.open(transport, calls: Calls())
        let closes = Calls()
        guard case .wait(let closing, let inbox) = state.requestClose({ closes.add("first") }) else {
            Issue.record("close() did not wait: \(state.status)")
            return
        }
        #expect(Self.same(closing, transport) && inbox != nil)
        #expect(state.isEnding && state.status == .connected && state.welcomedTransport == nil)
        #expect(Self.same(state.transport, transport), "a drop still reaches the closing transport")
        guard case .wait(nil, nil) = state.requestClose({ closes.add("second") }) else {
            Issue.record("a second close() closed the transport again")
            return
        }
        let ending = state.connectionEnded(code: 1000, policy: Self.policy)
        #expect(ending.wasOpen && ending.next == .finish && state.transport == nil)
        let info = RollcallCloseInfo(code: 1000, reason: "", wasClean: true, initiatedLocally: true)
        state.showClosed(info)
        #expect(state.status == .closed(info) && closes.all.isEmpty)
        for waiter in state.finish(info) { waiter() }
        #expect(closes.all == ["first", "second"])
        guard case .closedAlready = state.requestClose({ closes.add("late") }) else {
            Issue.record("close() after the end waited")
            return
        }
        #expect(closes.all == ["first", "second"] && state.status == .closed(info))
    }

    @Test func closeBeforeConnectClosesAtOnceAndRefusesAConnect() {
        var state = ConnectionState.idle
        guard case .closedIdle = state.requestClose({}) else {
            Issue.record("an idle client waited to close")
            return
        }
        #expect(state.status == .closed(nil) && state.isEnding)
        let started = state.start(Calls().connectWaiter)
        #expect(!started)
    }

    @Test func closeDuringTheFirstAttemptIgnoresALateWelcomeAndFailsConnectAtTheEnd() {
        let calls = Calls()
        var state = ConnectionState.idle
        _ = state.start(calls.connectWaiter)
        _ = state.requestClose({})
        let attached = state.attach(InertTransport(), inbox: TransportInbox())
        #expect(!attached, "no transport is started once closing")
        #expect(state.welcomed(refreshAt: 1) == nil && state.status == .connecting)
        let ending = state.connectionEnded(code: nil, policy: Self.policy)
        #expect(!ending.wasOpen && ending.connectWaiter == nil && ending.next == .finish)
        let waiter = state.takeConnectWaiter()
        waiter?(.failure(RollcallError(.notConnected)))
        #expect(calls.all.count == 1 && calls.all.first?.hasPrefix("failed") == true)
    }

    @Test func closeWhileWaitingToReconnectStopsTheNextAttempt() {
        var state = Self.open(InertTransport(), calls: Calls())
        _ = state.connectionEnded(code: nil, policy: Self.policy)
        guard case .wait(nil, nil) = state.requestClose({}) else {
            Issue.record("no transport to close while waiting")
            return
        }
        let began = state.beginReconnect()
        #expect(state.status == .reconnecting(attempt: 1) && state.isEnding && !began)
    }
}
