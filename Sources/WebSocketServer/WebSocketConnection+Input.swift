import EventIO
import WebSocketCore

extension WebSocketConnection {
    // MARK: Events from the loop

    /// Called by the event loop when the socket is ready; not for endpoints.
    public func handleEvents(_ events: EventSet) {
        if events.contains(.readable) || events.contains(.hangup) || events.contains(.error)
            || events.contains(.readHangup)
        {
            self.handleReadable()
        }
        if events.contains(.writable) && !self.phase.isClosed {
            self.flush()
        }
    }

    private func handleReadable() {
        // Bounded reads per event, so one busy client cannot starve the others on this loop.
        var reads = 0
        while !self.phase.isClosed && reads < 4 {
            reads += 1
            let buffer = self.loop.receiveBuffer
            let result: IOResult<Int>
            do {
                result = try Socket.read(self.fd, into: buffer)
            } catch {
                self.abort(detail: "read failed: \(error)")
                return
            }
            guard case .processed(let count) = result else { return }
            if count == 0 {
                self.handlePeerClosed()
                return
            }
            self.phase.session?.machine.receivedData(now: Session.milliseconds(self.loop.now))
            self.statistics.bytesReceived.add(count, ordering: .relaxed)
            if let tls = self.tls {
                tls.receiveCiphertext(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
                self.drainTLS(tls)
            } else {
                self.receive(UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count]))
            }
            if count < buffer.count { return }
        }
    }

    private func drainTLS(_ tls: TLSConnection) {
        do {
            if case .tlsHandshake(let handshake) = self.phase {
                guard try tls.advanceHandshake() == .complete else {
                    self.takeCiphertext(tls)
                    return
                }
                self.enter(.readingRequest(handshake))
            }
            let plaintext = self.loop.scratchBuffer
            while !self.phase.isClosed {
                switch try tls.readPlaintext(into: plaintext) {
                case .bytes(let count):
                    self.receive(UnsafeMutableRawBufferPointer(rebasing: plaintext[0..<count]))
                case .wouldBlock:
                    self.takeCiphertext(tls)
                    return
                case .closed:
                    self.takeCiphertext(tls)
                    self.handlePeerClosed()
                    return
                }
            }
        } catch {
            self.server.count(.tlsHandshakeFailure)
            self.abort(detail: "TLS: \(error)")
        }
    }

    /// Handles plaintext bytes from the socket or from TLS.
    private func receive(_ bytes: UnsafeMutableRawBufferPointer) {
        self.expectedFrameSize = 0
        if self.pending.isEmpty {
            let consumed = self.process(bytes)
            if consumed < bytes.count && !self.phase.isClosed {
                self.keepPending(UnsafeRawBufferPointer(rebasing: bytes[consumed...]))
            }
        } else {
            // Move the partial bytes out while they are processed, so nothing else touches them meanwhile.
            var buffer = self.pending
            self.pending = []
            buffer.append(contentsOf: UnsafeRawBufferPointer(bytes))
            let consumed = buffer.withUnsafeMutableBytes { self.process($0) }
            if !self.phase.isClosed && consumed < buffer.count {
                if consumed == 0 {
                    self.pending = buffer
                } else {
                    buffer.withUnsafeBytes { self.keepPending(UnsafeRawBufferPointer(rebasing: $0[consumed...])) }
                }
            }
        }
    }

    /// Keeps the bytes of an unfinished frame or request, with room for the whole frame once its size is known.
    private func keepPending(_ bytes: UnsafeRawBufferPointer) {
        var kept: [UInt8] = []
        kept.reserveCapacity(max(bytes.count, Int(self.expectedFrameSize)))
        kept.append(contentsOf: bytes)
        self.pending = kept
    }

    /// Processes bytes according to the phase; returns how many were used.
    private func process(_ bytes: UnsafeMutableRawBufferPointer) -> Int {
        // The session first, without a switch over the whole phase, which copies it.
        if self.phase.session != nil { return self.processFrames(bytes) }
        switch self.phase {
        case .tlsHandshake, .respondingHTTP, .awaitingResponse, .closed:
            return bytes.count
        case .readingRequest:
            return self.processRequest(bytes)
        case .readingBody:
            return self.processBody(bytes)
        case .session:
            return self.processFrames(bytes)
        }
    }

    /// The peer closed its side (end of stream, or TLS close_notify).
    func handlePeerClosed() {
        if let session = self.phase.session, session.machine.isOpen {
            session.closeReason = WebSocketCloseReason(
                code: .abnormalClosure,
                initiatedByServer: false,
                detail: "connection dropped without a close handshake"
            )
        }
        self.closeSocket()
    }
}
