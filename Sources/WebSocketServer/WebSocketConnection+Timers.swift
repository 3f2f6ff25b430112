import EventIO
import HTTPCore

extension WebSocketConnection {
    // MARK: Timers (called by the loop's sweep)

    /// Checks the phase's timers: the handshake and HTTP timeouts here, the session's in its state machine.
    ///
    /// - Parameter now: the loop's time, in monotonic nanoseconds.
    func checkTimers(now: UInt64) {
        if !self.wroteSinceSweep { self.outbound.releaseUnusedStorage() }
        self.wroteSinceSweep = false
        let configuration = self.server.configuration
        let handshakeTimeout = UInt64(configuration.handshakeTimeoutMilliseconds) * 1_000_000
        switch self.phase {
        case .tlsHandshake(let handshake), .readingRequest(let handshake):
            if now &- handshake.startedAt > handshakeTimeout {
                self.server.count(.handshakeTimeout)
                self.closeSocket()
            }
        case .readingBody(let request):
            // The body shares the handshake's time budget, counted from the connection's start.
            if now &- request.startedAt > handshakeTimeout {
                self.respond(
                    HTTPResponse.error(.requestTimeout, message: "request body not received in time"), lingering: true)
            }
        case .awaitingResponse(let dispatchedAt):
            if now &- dispatchedAt > handshakeTimeout {
                self.respond(HTTPResponse.error(.serviceUnavailable, message: "no response in time"))
            }
        case .respondingHTTP(let responding):
            if now &- responding.since > UInt64(configuration.closeTimeoutMilliseconds) * 1_000_000 {
                self.closeSocket()
            }
        case .session:
            self.perform(self.phase.session?.timerFired(now: now))
        case .closed:
            break
        }
    }

    /// Starts the close handshake for a server shutdown (1001), or drops a connection still in its handshake.
    func shutDown() {
        switch self.phase {
        case .session:
            self.startClose(code: .goingAway, reason: "server shutting down")
        case .tlsHandshake, .readingRequest, .readingBody:
            self.closeSocket()
        case .awaitingResponse:
            self.respond(HTTPResponse.error(.serviceUnavailable, message: "server shutting down"))
        case .respondingHTTP, .closed:
            break
        }
    }
}
