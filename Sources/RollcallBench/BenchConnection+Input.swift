import EventIO
import HTTPCore
import WebSocketCore
import WebSocketDeflate

extension BenchConnection {
    // MARK: The stream's events

    /// Connected (over `wss://`, the TLS handshake done): the upgrade request goes out.
    func streamConnectionDidOpen(_ connection: StreamConnection) {
        self.sendUpgradeRequest()
    }

    /// Received bytes: the HTTP answer first, then frames, decoded in place; returns the bytes used (the stream
    /// keeps the rest of a partial head or frame for the next read).
    func streamConnection(_ connection: StreamConnection, didReceive bytes: UnsafeMutableRawBufferPointer) -> Int {
        if self.state == .upgrading {
            return self.processUpgrade(bytes)
        }
        guard self.state == .open || self.state == .closing else { return bytes.count }
        return self.decodeFrames(bytes)
    }

    func streamConnection(_ connection: StreamConnection, didEndWith ending: StreamConnectionEnding) {
        switch ending {
        case .closedByPeer:
            if self.state == .closing {
                self.finish(error: nil)
            } else {
                self.fail("the server closed the connection")
            }
        case .failed(let error):
            self.fail(error.description)
        }
    }

    func sendUpgradeRequest() {
        var keyBytes: [UInt8] = []
        for _ in 0..<4 {
            let word = self.nextMaskingKey().bytes
            keyBytes += [word.0, word.1, word.2, word.3]
        }
        let handshake = WebSocketClientHandshake(keyBytes: keyBytes)
        self.expectedAccept = handshake.expectedAccept
        let extensions = self.offersCompression ? PerMessageDeflateClientParameters.offerHeaderValue : nil
        // No extra header fields, so building the request cannot fail.
        let request =
            (try? handshake.request(target: self.requestPath, host: self.target.hostHeader, extensions: extensions))
            ?? []
        self.state = .upgrading
        self.stream.write(request)
    }

    /// Reads the upgrade answer: nothing is used until its head is complete (the parser reads it from its start);
    /// then the head is checked, and the frames behind it are decoded.
    func processUpgrade(_ bytes: UnsafeMutableRawBufferPointer) -> Int {
        let head: HTTPResponseHead
        switch self.responseParser.parse(UnsafeRawBufferPointer(bytes)) {
        case .incomplete:
            return 0
        case .failure(let error):
            self.fail("upgrade response: \(error)")
            return bytes.count
        case .complete(let complete):
            head = complete
        }
        do throws(BenchError) {
            self.compression = try Self.checkUpgradeResponse(
                head,
                expectedAccept: self.expectedAccept,
                offeredCompression: self.offersCompression
            )
        } catch {
            self.fail(error.description)
            return bytes.count
        }
        self.session = WebSocketSessionStateMachine(role: .client, timeouts: Self.timeouts, now: Self.milliseconds())
        if let compression = self.compression {
            self.inflater = compression.makeInflater()
            self.deflater = compression.makeDeflater(
                compressionLevel: Self.compressionLevel,
                memoryLevel: Self.compressionMemoryLevel
            )
            self.counters.add(.compressionAgreed)
        }
        self.state = .open
        self.openedAt = EventLoop.monotonicNow()
        self.delegate?.connectionDidOpen(self)
        guard self.state == .open || self.state == .closing else { return bytes.count }
        let frames = UnsafeMutableRawBufferPointer(rebasing: bytes[head.size...])
        return head.size + self.decodeFrames(frames)
    }

    /// Decodes and handles whole frames from the start of `buffer`; returns how many bytes they took.
    func decodeFrames(_ buffer: UnsafeMutableRawBufferPointer) -> Int {
        var offset = 0
        while offset < buffer.count, self.state == .open || self.state == .closing {
            switch self.decoder.decodeFrame(in: buffer, at: offset) {
            case .needMoreData:
                return offset
            case .violation(let violation):
                self.fail("protocol violation from the server: \(violation)")
                return offset
            case .frame(let header, let payloadStart, let payloadEnd):
                offset = payloadEnd
                let payload = UnsafeMutableRawBufferPointer(rebasing: buffer[payloadStart..<payloadEnd])
                self.handleFrame(header, payload)
            }
        }
        return offset
    }

    func handleFrame(_ header: WebSocketFrameHeader, _ payload: UnsafeMutableRawBufferPointer) {
        guard !header.rsv2, !header.rsv3 else {
            self.fail("protocol violation from the server: RSV2 or RSV3 set, which no agreed extension defines")
            return
        }
        if header.rsv1 {
            guard self.inflater != nil else {
                self.fail("protocol violation from the server: RSV1 set without agreed permessage-deflate")
                return
            }
            guard header.opcode == .text || header.opcode == .binary else {
                self.fail("protocol violation from the server: RSV1 set on a \(header.opcode) frame")
                return
            }
        }
        switch header.opcode {
        case .text, .binary:
            guard header.fin else {
                self.fail("fragmented messages are not supported by the bench client")
                return
            }
            guard self.state == .open else { return }
            if header.rsv1 {
                self.receiveCompressed(header.opcode, payload)
            } else {
                self.delegate?.connection(self, didReceive: header.opcode, payload: payload)
            }
        case .ping:
            self.perform(self.session.receivedPing(UnsafeRawBufferPointer(payload)))
        case .pong:
            _ = self.session.receivedPong(UnsafeRawBufferPointer(payload))
        case .connectionClose:
            let code = payload.count >= 2 ? UInt16(payload[0]) << 8 | UInt16(payload[1]) : nil
            let wasClosing = self.state == .closing
            // Our close answered: the server closes the TCP connection first (so the TIME_WAIT state stays on its
            // side); the end of the stream, or the close timer, finishes the connection. The server's own close is
            // answered (its code echoed) and, being an error for a load run, ends the connection at once.
            self.perform(
                self.session.receivedClose(code: code.map(WebSocketCloseCode.init(rawValue:)), now: Self.milliseconds())
            )
            if !wasClosing {
                self.noteServerClose(code)
                self.state = .closing
                self.stream.flush()
                self.finish(error: "the server closed with \(code.map(String.init) ?? "1005")")
            }
        default:
            self.fail("unexpected \(header.opcode) frame")
        }
    }

    /// Inflates a compressed message into the loop's buffer and hands it to the delegate.
    func receiveCompressed(_ opcode: WebSocketOpcode, _ payload: UnsafeMutableRawBufferPointer) {
        guard let inflater = self.inflater else { return }
        var inflated = self.compressionBuffers.inflated
        self.compressionBuffers.inflated = []
        inflated.removeAll(keepingCapacity: true)
        do throws(InflateFailure) {
            try inflater.inflate(
                UnsafeRawBufferPointer(payload),
                isFinal: true,
                into: &inflated,
                limit: Self.maximumMessageSize
            )
        } catch {
            self.compressionBuffers.inflated = inflated
            self.fail("protocol violation from the server: compressed message: \(error)")
            return
        }
        self.counters.add(.compressedReceived)
        self.counters.add(.compressedReceivedWireBytes, payload.count)
        self.counters.add(.compressedReceivedInflatedBytes, inflated.count)
        if inflated.isEmpty {
            // An empty array has no storage to point at; the delegate gets an empty buffer that does.
            let empty = UnsafeMutableRawBufferPointer(rebasing: payload[0..<0])
            self.delegate?.connection(self, didReceive: opcode, payload: empty)
        } else {
            inflated.withUnsafeMutableBytes { self.delegate?.connection(self, didReceive: opcode, payload: $0) }
        }
        self.compressionBuffers.inflated = inflated
    }

    // MARK: HTTP

    /// Checks the upgrade answer (`WebSocketClientHandshake`: 101, `Upgrade`, `Connection`, `Sec-WebSocket-Accept`)
    /// and the server's answer to the permessage-deflate offer (RFC 7692 §7.1, through
    /// `PerMessageDeflateClientParameters`).
    ///
    /// - Parameters:
    ///   - head: the response head.
    ///   - expectedAccept: the `Sec-WebSocket-Accept` value the key calls for.
    ///   - offeredCompression: whether the request offered permessage-deflate.
    /// - Returns: what the server agreed to for compression, or nil when it declined or none was offered.
    /// - Throws: `BenchError` naming the problem when the upgrade is not good.
    static func checkUpgradeResponse(
        _ head: HTTPResponseHead,
        expectedAccept: String,
        offeredCompression: Bool
    ) throws(BenchError) -> PerMessageDeflateClientParameters? {
        do throws(WebSocketClientHandshakeError) {
            return try WebSocketClientHandshake.validate(
                head, expectedAccept: expectedAccept, offeredCompression: offeredCompression
            ).compression
        } catch {
            throw BenchError("upgrade refused: \(error)")
        }
    }

    /// Checks an upgrade answer given as bytes, the blank line included or not (see the other overload).
    static func checkUpgradeResponse(
        _ head: ArraySlice<UInt8>,
        expectedAccept: String,
        offeredCompression: Bool
    ) throws(BenchError) -> PerMessageDeflateClientParameters? {
        var bytes = Array(head)
        while bytes.count < 4 || Array(bytes.suffix(4)) != [13, 10, 13, 10] { bytes += [13, 10] }
        var parser = HTTPResponseParser()
        switch bytes.withUnsafeBytes({ parser.parse($0) }) {
        case .complete(let parsed):
            return try Self.checkUpgradeResponse(
                parsed, expectedAccept: expectedAccept, offeredCompression: offeredCompression)
        case .failure(let error):
            throw BenchError("upgrade response: \(error)")
        case .incomplete:
            throw BenchError("upgrade response: incomplete head")
        }
    }
}
