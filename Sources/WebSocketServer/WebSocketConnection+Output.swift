import EventIO
import WebSocketCore
import WebSocketDeflate

extension WebSocketConnection {
    // MARK: Sending (the endpoint's API)

    /// Sends a message, compressing it when permessage-deflate was agreed and the message is large enough.
    ///
    /// - Parameters:
    ///   - opcode: `.text` (the payload must be UTF-8) or `.binary`.
    ///   - payload: the message.
    public func send(opcode: WebSocketOpcode, payload: UnsafeRawBufferPointer) {
        guard self.phase.isSessionOpen else { return }
        let compresses = self.compressionParameters?.parameters.shouldCompress(messageLength: payload.count) == true
        if self.tls == nil && !compresses {
            // The common case: the frame is written straight into the write queue's own buffer, no allocation.
            let header = WebSocketFrameHeader(opcode: opcode, payloadLength: payload.count)
            let headerSize = header.encodedSize
            self.outbound.appendBytes(count: headerSize + payload.count) { buffer in
                WebSocketFrameEncoder.writeHeader(header, into: buffer, endingAt: headerSize)
                if let source = payload.baseAddress {
                    (buffer.baseAddress! + headerSize).copyMemory(from: source, byteCount: payload.count)
                }
            }
            self.statistics.messagesSent.add(1, ordering: .relaxed)
            self.scheduleFlush()
            self.checkQueueLimits()
            return
        }
        var frame = WebSocketOutboundFrame(payloadCapacity: payload.count)
        if compresses, let compression = self.compressionParameters?.parameters, let session = self.phase.session {
            let deflater = session.deflater ?? compression.makeDeflater()
            session.deflater = deflater
            frame.withStorage { deflater.deflate(payload, into: &$0) }
            frame.finish(opcode: opcode, rsv1: true)
        } else {
            frame.appendPayload(payload)
            frame.finish(opcode: opcode)
        }
        self.statistics.messagesSent.add(1, ordering: .relaxed)
        self.enqueue(frame)
    }

    /// Sends a text message.
    public func send(text: String) {
        var text = text
        text.withUTF8 { self.send(opcode: .text, payload: UnsafeRawBufferPointer($0)) }
    }

    /// Queues an already encoded frame; the same frame can go to many connections without a copy. The caller makes
    /// sure the frame fits the connection: an uncompressed frame is valid on every connection; a compressed one
    /// (RSV1) only on a connection whose `compression` was agreed, compressed without context within its agreed
    /// window (`SharedMessageCompressor` makes such frames). After a compressed frame the connection's own
    /// compressor starts its next message from an empty window, since the peer's window now holds this message.
    ///
    /// - Parameter frame: a finished frame.
    public func send(frame: WebSocketOutboundFrame) {
        guard self.phase.isSessionOpen else { return }
        if frame.isCompressed {
            precondition(self.agreedCompression, "a compressed frame for a connection without permessage-deflate")
            self.phase.session?.deflater?.resetWindow()
        }
        self.statistics.messagesSent.add(1, ordering: .relaxed)
        self.enqueue(frame)
    }

    /// Starts the close handshake.
    ///
    /// - Parameters:
    ///   - code: the close code.
    ///   - reason: a short reason (cut to fit a control frame).
    public func close(code: WebSocketCloseCode = .normalClosure, reason: String = "") {
        self.startClose(code: code, reason: reason)
    }

    /// Bytes waiting in the write queue.
    public var queuedByteCount: Int { self.outbound.byteCount }

    // MARK: Output

    func enqueue(_ frame: WebSocketOutboundFrame) {
        if self.tls != nil {
            // TLS encrypts now; the ciphertext is what gets queued.
            frame.storage.withUnsafeBytes { self.writeRaw(UnsafeRawBufferPointer(rebasing: $0[frame.startIndex...])) }
        } else {
            // The frame's storage is shared, not copied: the same bytes may be queued to many connections.
            self.outbound.append(frame.storage, range: frame.startIndex..<frame.storage.count)
            self.scheduleFlush()
        }
        self.checkQueueLimits()
    }

    func writeRaw(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { self.writeRaw($0) }
    }

    /// Writes the first bytes of the connection's output (the upgrade's answer) at once when the socket takes them
    /// whole, so a connection that goes idle after its handshake never allocates a write queue; what the socket
    /// does not take is queued as usual.
    func writeFirst(_ bytes: [UInt8]) {
        guard self.tls == nil, self.outbound.isEmpty else {
            self.writeRaw(bytes)
            return
        }
        let written: Int
        do {
            guard
                case .processed(let count) = try bytes.withUnsafeBytes({ buffer throws(IOError) in
                    try Socket.send(self.fd, buffer)
                })
            else {
                self.writeRaw(bytes)
                return
            }
            written = count
        } catch {
            self.abort(detail: "write failed: \(error)")
            return
        }
        self.statistics.bytesSent.add(written, ordering: .relaxed)
        if written < bytes.count { self.writeRaw(Array(bytes[written...])) }
    }

    private func writeRaw(_ bytes: UnsafeRawBufferPointer) {
        if let tls = self.tls {
            var offset = 0
            while offset < bytes.count {
                do {
                    let written = try tls.writePlaintext(UnsafeRawBufferPointer(rebasing: bytes[offset...]))
                    offset += written
                    self.takeCiphertext(tls)
                    if written == 0 { break }
                } catch {
                    self.abort(detail: "TLS write: \(error)")
                    return
                }
            }
        } else {
            // An exact-size array, not the queue's reusable buffer: most connections write a handshake response
            // and then stay idle, and a freed buffer per idle connection would still cost resident memory.
            self.outbound.append(Array(bytes))
        }
        self.scheduleFlush()
    }

    /// Queues what the TLS engine has encrypted.
    func takeCiphertext(_ tls: TLSConnection) {
        guard tls.hasPendingCiphertext else { return }
        var ciphertext: [UInt8] = []
        _ = tls.takeCiphertext(into: &ciphertext)
        self.outbound.append(ciphertext)
        self.scheduleFlush()
    }

    private func checkQueueLimits() {
        let queued = self.outbound.byteCount
        if queued > self.server.writeQueueLimit && self.phase.isSessionOpen {
            self.server.count(.slowConsumerClosed)
            self.startClose(code: .policyViolation, reason: "write queue limit reached", discardingQueued: true)
        } else if self.isWritable && queued > self.server.writeQueueHighWatermark {
            self.isWritable = false
            self.phase.session?.endpoint.connection(self, writabilityDidChange: false)
        }
    }

    func scheduleFlush() {
        guard !self.isFlushScheduled && !self.phase.isClosed else { return }
        self.isFlushScheduled = true
        self.loop.scheduleFlush(self)
    }

    func flushNow() {
        self.isFlushScheduled = false
        self.wroteSinceSweep = true
        guard !self.phase.isClosed else { return }
        let outcome: OutboundQueue.WriteOutcome
        let queuedBefore = self.outbound.byteCount
        do {
            outcome = try self.outbound.write(to: self.fd)
        } catch {
            self.abort(detail: "write failed: \(error)")
            return
        }
        self.statistics.bytesSent.add(queuedBefore - self.outbound.byteCount, ordering: .relaxed)
        switch outcome {
        case .pending:
            if !self.isWatchingWritability {
                self.isWatchingWritability = true
                self.loop.modify(self.fd, for: [.readable, .writable, .readHangup])
            }
        case .drained:
            if self.isWatchingWritability {
                self.isWatchingWritability = false
                self.loop.modify(self.fd, for: [.readable, .readHangup])
            }
            // An open session goes on; any other phase may end here.
            if !self.phase.isSessionOpen && !self.finishOutput() { return }
        }
        if !self.isWritable && self.outbound.byteCount <= self.server.writeQueueLowWatermark {
            self.isWritable = true
            self.phase.session?.endpoint.connection(self, writabilityDidChange: true)
        }
    }

    /// What follows once the output is written, by phase; false when the socket was closed.
    private func finishOutput() -> Bool {
        switch self.phase.session?.machine.state {
        case .closing?:
            self.closeSocket()
            return false
        case .closeSent?:
            // Our Close is out: send FIN and wait for the peer's Close (or EOF, or the timeout).
            Socket.shutdownWrite(self.fd)
            return true
        case .some:
            return true
        case nil:
            break
        }
        guard case .respondingHTTP(let responding) = self.phase else { return true }
        guard responding.lingers else {
            self.closeSocket()
            return false
        }
        // The client may still be sending a body: close our side and read until it closes (or the close timeout),
        // so the kernel does not answer its bytes with a reset that destroys our response.
        responding.lingers = false
        Socket.shutdownWrite(self.fd)
        return true
    }
}
