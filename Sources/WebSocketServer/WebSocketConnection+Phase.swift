import HTTPCore
import WebSocketCore
import WebSocketDeflate

extension WebSocketConnection {
    /// Where a connection is in its life, each case with the data only that phase needs.
    enum Phase {
        /// The TLS handshake is running (wss only).
        case tlsHandshake(Handshake)
        /// Reading the HTTP request head; the parser remembers how far it has scanned.
        case readingRequest(Handshake)
        /// Reading the body of a plain HTTP request (up to its `Content-Length`).
        case readingBody(PlainHTTPRequest)
        /// A plain HTTP request went to its route at this time (loop nanoseconds); waiting for the route's response.
        case awaitingResponse(dispatchedAt: UInt64)
        /// An HTTP response was queued; the socket closes once it is written.
        case respondingHTTP(HTTPResponding)
        /// The upgrade completed: the WebSocket session, up to the end of its close handshake.
        case session(Session)
        /// The socket is closed.
        case closed
    }

    /// The opening handshake's data: the request head parser and when the connection was accepted (for the
    /// handshake timeout). An object, so the phase stays small and the connection holds none of it once open.
    final class Handshake {
        /// The request head's parser; it remembers how far it has scanned.
        var parser: HTTPRequestParser
        /// When the connection was accepted, in the loop's monotonic nanoseconds.
        let startedAt: UInt64

        init(limits: HTTPRequestParser.Limits, startedAt: UInt64) {
            self.parser = HTTPRequestParser(limits: limits)
            self.startedAt = startedAt
        }
    }

    /// The permessage-deflate parameters a connection agreed to, behind one reference.
    final class CompressionParameters {
        let parameters: PerMessageDeflateParameters

        init(_ parameters: PerMessageDeflateParameters) {
            self.parameters = parameters
        }
    }

    /// A plain HTTP request whose body is being read: its head, its route, and the body so far. An object, so the
    /// phase stays small (see `Session`) and the body grows in place.
    final class PlainHTTPRequest {
        let head: HTTPRequestHead
        let route: HTTPRoute
        /// The body so far.
        var body: [UInt8] = []
        /// The body's announced length.
        let length: Int
        /// When the connection was accepted (the body shares the handshake's time budget).
        let startedAt: UInt64

        init(head: HTTPRequestHead, route: HTTPRoute, length: Int, startedAt: UInt64) {
            self.head = head
            self.route = route
            self.length = length
            self.startedAt = startedAt
        }

        /// Appends body bytes, up to the announced length.
        ///
        /// - Parameter bytes: received bytes.
        /// - Returns: whether the body is complete.
        func append(_ bytes: UnsafeRawBufferPointer) -> Bool {
            let wanted = self.length - self.body.count
            self.body.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[0..<min(wanted, bytes.count)]))
            return self.body.count == self.length
        }
    }

    /// An HTTP response on its way out. An object, like every phase's data but a time: the phase is then a word and
    /// a tag byte, which the per-message path tests with one comparison (a payload with spare bits, such as a
    /// `Bool` beside a time, moves the tag into them and costs every test a load, a mask and a comparison).
    final class HTTPResponding {
        /// When the response was queued (loop nanoseconds), for the close timeout.
        let since: UInt64
        /// Whether the client may still be sending a body we did not read: after the response, the socket is shut
        /// for writing and drained until the client closes, so the response is not lost to a reset.
        var lingers: Bool

        init(since: UInt64, lingers: Bool) {
            self.since = since
            self.lingers = lingers
        }
    }

    /// The WebSocket session: its rules, the decoder of its input, the endpoint it serves, and why it ended.
    ///
    /// An object, not a struct, so the per-message path updates it in place through the phase, and the phase stays
    /// a few words: a struct payload is copied out of the enum and back on every change, and a large enum is copied
    /// whole on every read, each of which cost more than the rest of an echoed message. It is the second of the two
    /// records an idle connection costs, so it holds only what differs between connections.
    final class Session {
        /// Pongs, keep-alive pings, the close handshake and the timeouts, in milliseconds.
        var machine: WebSocketSessionStateMachine
        /// Lent out (nil) while it decodes a read: an endpoint callback may close the connection meanwhile, which
        /// must not touch it.
        var processor: WebSocketInboundProcessor?
        /// Where messages go.
        let endpoint: any WebSocketEndpoint
        /// The compressor for messages this connection compresses itself, made on the first one.
        var deflater: PerMessageDeflater?
        /// Messages and control frames from the peer, against the server's message rate.
        var rateLimiter: MessageRateLimiter
        /// How the connection ends, once that is known; reported to the endpoint when the socket closes.
        var closeReason: WebSocketCloseReason?

        /// - Parameters:
        ///   - machine: the session's state machine, open.
        ///   - processor: the decoder of the peer's frames.
        ///   - endpoint: where messages go.
        ///   - rateLimiter: the peer's message budget.
        init(
            machine: WebSocketSessionStateMachine,
            processor: WebSocketInboundProcessor,
            endpoint: any WebSocketEndpoint,
            rateLimiter: MessageRateLimiter
        ) {
            self.machine = machine
            self.processor = processor
            self.endpoint = endpoint
            self.rateLimiter = rateLimiter
        }

        /// The state machine's time for a loop time.
        ///
        /// - Parameter nanoseconds: monotonic nanoseconds of the loop.
        static func milliseconds(_ nanoseconds: UInt64) -> UInt64 { nanoseconds / 1_000_000 }

        /// Takes a rate token for a message or control frame; true when the peer is over `rate` (counted only
        /// while the session is open).
        func isOverRate(now: UInt64, rate: MessageRateLimiter.Rate) -> Bool {
            self.machine.isOpen && rate.isEnabled && !self.rateLimiter.admit(now: now, rate: rate)
        }

        /// Starts the close handshake from the server (the endpoint, a limit or shutdown).
        func close(code: WebSocketCloseCode, reason: String, now: UInt64) -> WebSocketSessionStateMachine.Action {
            let action = self.machine.close(code: code, reason: reason, now: Self.milliseconds(now))
            if case .sendClose = action {
                self.closeReason = WebSocketCloseReason(code: code, initiatedByServer: true, detail: reason)
            }
            return action
        }

        /// The peer's Close arrived; while open, the echo is the close reason, with the peer's code.
        func receivedClose(code: WebSocketCloseCode?, now: UInt64) -> WebSocketSessionStateMachine.Action {
            let action = self.machine.receivedClose(code: code, now: Self.milliseconds(now))
            if case .sendClose = action {
                self.closeReason = WebSocketCloseReason(
                    code: code ?? .noStatusReceived, initiatedByServer: false, detail: "closed by peer")
            }
            return action
        }

        /// The peer broke the protocol; while open, the connection fails with the violation's code.
        func receivedViolation(
            _ violation: WebSocketProtocolViolation,
            now: UInt64
        ) -> WebSocketSessionStateMachine.Action {
            let action = self.machine.receivedViolation(violation, now: Self.milliseconds(now))
            if case .sendClose = action {
                self.closeReason = WebSocketCloseReason(
                    code: violation.closeCode, initiatedByServer: true, detail: violation.description)
            }
            return action
        }

        /// Checks the session's timers; an idle timeout and an unanswered ping are the close reason.
        func timerFired(now: UInt64) -> WebSocketSessionStateMachine.Action {
            let action = self.machine.timerFired(now: Self.milliseconds(now))
            switch action {
            case .sendClose(let code?, let reason):
                self.closeReason = WebSocketCloseReason(code: code, initiatedByServer: true, detail: reason)
            case .closeSocket(.pong):
                self.closeReason = WebSocketCloseReason(
                    code: .abnormalClosure, initiatedByServer: true, detail: "no answer to ping")
            default:
                break
            }
            return action
        }
    }
}

extension WebSocketConnection.Phase {
    /// Whether the connection is still in its TLS or HTTP handshake (and holds a pending-handshake slot).
    var isHandshake: Bool {
        switch self {
        case .tlsHandshake, .readingRequest: return true
        default: return false
        }
    }

    /// Whether the socket is closed.
    var isClosed: Bool {
        if case .closed = self { return true }
        return false
    }

    /// The session's data, nil outside the session.
    var session: WebSocketConnection.Session? {
        if case .session(let session) = self { return session }
        return nil
    }

    /// Whether the WebSocket session is open: messages may be sent and are delivered.
    var isSessionOpen: Bool { self.session?.machine.isOpen == true }
}

@available(*, unavailable)
extension WebSocketConnection.Session: Sendable {}

@available(*, unavailable)
extension WebSocketConnection.PlainHTTPRequest: Sendable {}

@available(*, unavailable)
extension WebSocketConnection.Handshake: Sendable {}

@available(*, unavailable)
extension WebSocketConnection.HTTPResponding: Sendable {}
