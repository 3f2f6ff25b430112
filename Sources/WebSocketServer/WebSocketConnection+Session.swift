import EventIO
import WebSocketCore

extension WebSocketConnection {
    // MARK: The WebSocket session

    /// Decodes frames and acts on them; returns how many bytes were used.
    func processFrames(_ bytes: UnsafeMutableRawBufferPointer) -> Int {
        // Moved out (not copied, which would retain and release its references) while it runs: an endpoint
        // callback may close this connection, which must not touch the processor meanwhile.
        guard var processor = self.phase.session?.processor.take() else { return bytes.count }
        let progress = processor.process(bytes) { event in self.handle(event) }
        self.phase.session?.processor = processor
        if progress.isFinished { return bytes.count }
        self.expectedFrameSize = UInt32(clamping: progress.nextFrameSize ?? 0)
        return progress.consumed
    }

    private func handle(_ event: WebSocketInboundProcessor.Event) {
        let now = self.loop.now
        // The rate before the session: without a limit, the session is not looked at here.
        if event.countsAgainstRate, self.server.messageRate.isEnabled,
            self.phase.session?.isOverRate(now: now, rate: self.server.messageRate) == true
        {
            self.server.count(.rateLimited)
            self.startClose(code: .policyViolation, reason: "rate limit")
            return
        }
        switch event {
        case .text(let bytes):
            guard self.phase.session?.machine.receivedMessage(now: Session.milliseconds(now)) == true else { return }
            self.statistics.messagesReceived.add(1, ordering: .relaxed)
            self.phase.session?.endpoint.connection(self, didReceive: .text(bytes))
        case .binary(let bytes):
            guard self.phase.session?.machine.receivedMessage(now: Session.milliseconds(now)) == true else { return }
            self.statistics.messagesReceived.add(1, ordering: .relaxed)
            self.phase.session?.endpoint.connection(self, didReceive: .binary(bytes))
        case .ping(let bytes):
            self.perform(self.phase.session?.machine.receivedPing(bytes))
        case .pong(let bytes):
            _ = self.phase.session?.machine.receivedPong(bytes)
        case .close(let code, _):
            // Echo the peer's code (RFC 6455 §5.5.1), then close the TCP connection: the server closes first.
            self.perform(self.phase.session?.receivedClose(code: code, now: now))
            self.scheduleFlush()
        case .violation(let violation):
            self.server.count(.protocolViolation)
            self.perform(self.phase.session?.receivedViolation(violation, now: now))
            self.scheduleFlush()
        }
    }

    /// Starts the close handshake from this side. Our Close goes after what is already queued (the handshake
    /// response, messages sent before the close), which must reach the peer first; only a slow consumer's backlog
    /// is dropped (`discardingQueued`), except the rest of a frame already partly written. Nothing happens once a close
    /// has begun.
    ///
    /// - Parameters:
    ///   - code: the close code.
    ///   - reason: a short reason (cut to fit a control frame).
    ///   - discardingQueued: whether to drop the queued output first.
    func startClose(code: WebSocketCloseCode, reason: String, discardingQueued: Bool = false) {
        let now = self.loop.now
        guard let action = self.phase.session?.close(code: code, reason: reason, now: now),
            case .sendClose = action
        else { return }
        // A frame the socket took part of is finished first, or the Close would land inside it; over TLS the queue
        // holds records the peer must get in order, so nothing can be dropped and the Close waits behind them.
        if discardingQueued && self.tls == nil { self.outbound.removeAllButPartlyWrittenChunk() }
        self.perform(action)
    }

    /// Does the I/O an action of the session state machine calls for.
    ///
    /// - Parameter action: the action; nil (outside the session) does nothing.
    func perform(_ action: WebSocketSessionStateMachine.Action?) {
        switch action {
        case nil, .doNothing?:
            break
        case .sendPong(let payload)?:
            self.enqueue(WebSocketFrameEncoder.encode(opcode: .pong, payload: payload))
        case .sendPing?:
            self.enqueue(
                WebSocketFrameEncoder.encode(opcode: .ping, payload: UnsafeRawBufferPointer(start: nil, count: 0)))
        case .sendClose(let code, let reason)?:
            self.enqueue(WebSocketFrameEncoder.encodeClose(code: code, reason: reason))
        case .closeSocket(let timeout)?:
            if timeout == .pong { self.server.count(.keepAliveTimeout) }
            self.closeSocket()
        }
    }
}
