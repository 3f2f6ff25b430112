import EventIO
import WebSocketCore
import WebSocketDeflate

#if canImport(Glibc)
import Glibc
#endif

/// What a scenario does with a connection's events. Every call happens on the connection's loop.
protocol BenchConnectionDelegate: AnyObject {
    /// The upgrade completed (101 with the right `Sec-WebSocket-Accept`).
    func connectionDidOpen(_ connection: BenchConnection)
    /// A whole unfragmented text or binary message arrived; `payload` (inflated when it came compressed) is valid
    /// only during the call.
    func connection(
        _ connection: BenchConnection, didReceive opcode: WebSocketOpcode, payload: UnsafeMutableRawBufferPointer)
    /// The connection is gone: `error` is nil after a clean close handshake.
    func connection(_ connection: BenchConnection, didCloseWith error: String?)
}

/// One client WebSocket connection on a non-blocking socket, driven by an event loop.
///
/// It connects (binding a source address first when given), runs TLS when asked, sends the HTTP upgrade and checks
/// the 101 answer and `Sec-WebSocket-Accept`, then masks outgoing frames in place in its write buffer and decodes
/// server frames in place in the loop's read buffer. Its buffers keep their capacity, so steady traffic allocates
/// nothing per message.
///
/// With compression on it offers permessage-deflate (RFC 7692) and checks the server's answer. When the server
/// agrees, compressed server messages are inflated into the loop's shared `BenchCompressionBuffers`, and outgoing
/// text and binary messages of at least `minimumCompressedMessageSize` bytes are compressed (through the same
/// buffers) and sent with RSV1. A server that declines leaves the connection uncompressed.
final class BenchConnection: EventLoopHandler, EventLoopFlushable {
    enum State {
        case connecting
        case tlsHandshake
        case upgrading
        case open
        case closing
        case closed
    }

    /// Where the connection stands.
    private(set) var state = State.connecting
    /// The connection's number within its scenario.
    let index: Int
    /// When `start` was called (monotonic ns).
    private(set) var startedAt: UInt64 = 0
    /// When the upgrade completed (monotonic ns).
    private(set) var openedAt: UInt64 = 0
    weak var delegate: (any BenchConnectionDelegate)?
    /// What the server agreed to for permessage-deflate; nil until the upgrade, and when it declined or none was
    /// offered.
    private(set) var compression: PerMessageDeflateClientParameters?

    /// The largest frame payload accepted from the server, and the largest compressed message after inflation.
    static let maximumMessageSize = 64 << 20
    /// Outgoing text and binary messages shorter than this go out uncompressed, as with the server's default
    /// `compression.min_message_bytes`: the few bytes deflate could save do not pay for the work.
    static let minimumCompressedMessageSize = 64
    /// The zlib level of the compressor: the fastest, like the server's default, so the load generator spends its
    /// CPU on load.
    static let compressionLevel = 1
    /// The zlib memory level of the compressor, the server's default: a 32 KiB hash table per compressing
    /// connection.
    static let compressionMemoryLevel = 6

    private let loop: EventLoop
    private let target: BenchTarget
    private let requestPath: String
    private var fd: Int32 = -1
    private var tls: TLSConnection?
    private let tlsContext: TLSContext?
    /// Bytes waiting for the socket (plaintext; over TLS, bytes not yet accepted by the engine).
    private var output: [UInt8] = []
    private var outputStart = 0
    /// Ciphertext waiting for the socket.
    private var ciphertext: [UInt8] = []
    private var ciphertextStart = 0
    /// Received bytes of an incomplete HTTP head or frame.
    private var input: [UInt8] = []
    private var flushScheduled = false
    private var watchingWritable = false
    private var expectedAccept = ""
    private var maskState: UInt64
    private let decoder = WebSocketFrameDecoder(
        maximumFrameSize: BenchConnection.maximumMessageSize,
        expectsMaskedFrames: false
    )
    private var closeTimer: TimerID?
    private let offersCompression: Bool
    private let counters: BenchCounters
    private let compressionBuffers: BenchCompressionBuffers
    /// Created at the upgrade when compression was agreed; zlib memory is allocated on the first message.
    private var inflater: PerMessageInflater?
    private var deflater: PerMessageDeflater?

    /// - Parameters:
    ///   - index: the connection's number within its scenario.
    ///   - loop: the loop that drives it.
    ///   - target: the server.
    ///   - path: the request target; nil: the target's path.
    ///   - tlsContext: the TLS client context for `wss://`, or nil.
    ///   - offersCompression: whether to offer permessage-deflate.
    ///   - counters: the loop's counters, for the compression counts.
    ///   - compressionBuffers: the loop's buffers for compressed messages.
    init(
        index: Int,
        loop: EventLoop,
        target: BenchTarget,
        path: String? = nil,
        tlsContext: TLSContext?,
        offersCompression: Bool,
        counters: BenchCounters,
        compressionBuffers: BenchCompressionBuffers
    ) {
        self.index = index
        self.loop = loop
        self.target = target
        self.requestPath = path ?? target.path
        self.tlsContext = tlsContext
        self.offersCompression = offersCompression
        self.counters = counters
        self.compressionBuffers = compressionBuffers
        self.maskState = 0x9E37_79B9_7F4A_7C15 &* UInt64(index &+ 1) ^ loop.now
    }

    /// Starts connecting.
    func start(from source: SocketAddress?) {
        self.startedAt = EventLoop.monotonicNow()
        do {
            self.fd = try Socket.connect(to: self.target.address, from: source)
            Socket.setNoDelay(self.fd)
            try self.loop.register(self.fd, for: [.writable, .readable], handler: self)
        } catch {
            if self.fd >= 0 {
                Socket.close(self.fd)
                self.fd = -1
            }
            self.fail("connect: \(error)")
        }
    }

    // MARK: Sending

    /// Sends one frame whose payload `fill` writes (it gets the unmasked payload, all `payloadCount` bytes of it).
    /// The payload is masked in place in the write buffer.
    ///
    /// When compression was agreed, a text or binary message of at least `minimumCompressedMessageSize` bytes is
    /// written into the loop's compression buffer instead, compressed, and sent with RSV1.
    func sendFrame(
        _ opcode: WebSocketOpcode,
        payloadCount: Int,
        _ fill: (UnsafeMutableRawBufferPointer) -> Void
    ) {
        guard self.state == .open || (self.state == .closing && opcode == .connectionClose) else { return }
        if let deflater = self.deflater, !opcode.isControl, payloadCount >= Self.minimumCompressedMessageSize {
            self.sendCompressed(opcode, payloadCount: payloadCount, deflater: deflater, fill)
            return
        }
        let key = self.nextMaskingKey()
        let header = WebSocketFrameHeader(opcode: opcode, maskingKey: key, payloadLength: payloadCount)
        self.appendFrame(header, key: key, fill)
        self.scheduleFlush()
    }

    /// Compresses the message `fill` writes and sends it as one frame with RSV1.
    private func sendCompressed(
        _ opcode: WebSocketOpcode,
        payloadCount: Int,
        deflater: PerMessageDeflater,
        _ fill: (UnsafeMutableRawBufferPointer) -> Void
    ) {
        var message = self.compressionBuffers.message
        var compressed = self.compressionBuffers.compressed
        self.compressionBuffers.message = []
        self.compressionBuffers.compressed = []
        message.removeAll(keepingCapacity: true)
        message.append(contentsOf: repeatElement(0, count: payloadCount))
        compressed.removeAll(keepingCapacity: true)
        message.withUnsafeMutableBytes { bytes in
            fill(bytes)
            deflater.deflate(UnsafeRawBufferPointer(bytes), into: &compressed)
        }
        let key = self.nextMaskingKey()
        let header = WebSocketFrameHeader(rsv1: true, opcode: opcode, maskingKey: key, payloadLength: compressed.count)
        compressed.withUnsafeBytes { bytes in
            self.appendFrame(header, key: key) { $0.copyMemory(from: bytes) }
        }
        self.counters.add(.compressedSent)
        self.counters.add(.compressedSentOriginalBytes, payloadCount)
        self.counters.add(.compressedSentWireBytes, compressed.count)
        self.compressionBuffers.message = message
        self.compressionBuffers.compressed = compressed
        self.scheduleFlush()
    }

    /// Appends one frame to the write buffer, masked with `key` (the header's key); `fill` writes the unmasked
    /// payload in place.
    @inline(__always)
    private func appendFrame(
        _ header: WebSocketFrameHeader,
        key: WebSocketMaskingKey,
        _ fill: (UnsafeMutableRawBufferPointer) -> Void
    ) {
        let payloadCount = header.payloadLength
        let headerSize = header.encodedSize
        let start = self.output.count
        self.output.append(contentsOf: repeatElement(0, count: headerSize + payloadCount))
        self.output.withUnsafeMutableBytes { buffer in
            WebSocketFrameEncoder.writeHeader(header, into: buffer, endingAt: start + headerSize)
            let payload = UnsafeMutableRawBufferPointer(
                rebasing: buffer[(start + headerSize)..<(start + headerSize + payloadCount)])
            fill(payload)
            key.apply(to: payload)
        }
    }

    /// Sends a frame with `payload` copied in.
    func send(_ opcode: WebSocketOpcode, payload: UnsafeRawBufferPointer) {
        self.sendFrame(opcode, payloadCount: payload.count) { destination in
            if payload.count > 0 { destination.copyMemory(from: payload) }
        }
    }

    /// Starts the close handshake (code 1000); the socket is closed when the server answers, or after a second.
    func close() {
        switch self.state {
        case .open:
            self.sendClose(code: 1000)
            self.state = .closing
            self.closeTimer = self.loop.scheduleTimer(afterNanoseconds: 1_000_000_000) { [weak self] in
                guard let self, self.state == .closing else { return }
                self.finish(error: nil)
            }
        case .connecting, .tlsHandshake, .upgrading:
            self.finish(error: "closed before the upgrade completed")
        case .closing, .closed:
            break
        }
    }

    /// Closes the socket at once, reporting `reason` as an error (nil: not an error).
    func abort(_ reason: String?) {
        guard self.state != .closed else { return }
        self.finish(error: reason)
    }

    private func sendClose(code: UInt16) {
        var payload = (UInt8(code >> 8), UInt8(code & 0xFF))
        withUnsafeBytes(of: &payload) { bytes in
            self.sendFrame(.connectionClose, payloadCount: 2) { $0.copyMemory(from: bytes) }
        }
    }

    @inline(__always)
    private func nextMaskingKey() -> WebSocketMaskingKey {
        // xorshift64*: masking keys need only be unpredictable to intermediaries, not cryptographically strong here.
        self.maskState ^= self.maskState >> 12
        self.maskState ^= self.maskState << 25
        self.maskState ^= self.maskState >> 27
        return WebSocketMaskingKey(word: UInt32(truncatingIfNeeded: (self.maskState &* 0x2545_F491_4F6C_DD1D) >> 32))
    }

    private func scheduleFlush() {
        guard !self.flushScheduled, !self.watchingWritable else { return }
        self.flushScheduled = true
        self.loop.scheduleFlush(self)
    }

    func flush() {
        self.flushScheduled = false
        guard self.fd >= 0 else { return }
        self.writePending()
    }

    private func writePending() {
        do {
            if let tls = self.tls {
                if tls.isHandshakeComplete && self.outputStart < self.output.count {
                    let accepted = try self.output.withUnsafeBytes { bytes throws(TLSError) in
                        try tls.writePlaintext(UnsafeRawBufferPointer(rebasing: bytes[self.outputStart...]))
                    }
                    self.outputStart += accepted
                    self.compactOutput()
                }
                if tls.hasPendingCiphertext { tls.takeCiphertext(into: &self.ciphertext) }
                let drained = try Self.write(self.fd, &self.ciphertext, &self.ciphertextStart, counters: self.counters)
                self.watchWritable(!drained || (tls.isHandshakeComplete && self.outputStart < self.output.count))
            } else {
                let drained = try Self.write(self.fd, &self.output, &self.outputStart, counters: self.counters)
                self.watchWritable(!drained)
            }
        } catch {
            self.fail("write: \(error)")
        }
    }

    private func compactOutput() {
        if self.outputStart == self.output.count {
            self.output.removeAll(keepingCapacity: true)
            self.outputStart = 0
        }
    }

    /// Writes `buffer[start...]`, counting the bytes written; returns whether everything was written.
    private static func write(
        _ fd: Int32,
        _ buffer: inout [UInt8],
        _ start: inout Int,
        counters: BenchCounters
    ) throws -> Bool {
        while start < buffer.count {
            let result = try buffer.withUnsafeBytes { bytes throws(IOError) in
                try Socket.write(fd, UnsafeRawBufferPointer(rebasing: bytes[start...]))
            }
            guard case .processed(let written) = result else { return false }
            start += written
            counters.add(.bytesSent, written)
        }
        buffer.removeAll(keepingCapacity: true)
        start = 0
        return true
    }

    private func watchWritable(_ watch: Bool) {
        guard watch != self.watchingWritable, self.fd >= 0 else { return }
        self.watchingWritable = watch
        self.loop.modify(self.fd, for: watch ? [.readable, .writable] : [.readable])
    }

    // MARK: Events

    func handleEvents(_ events: EventSet) {
        if self.state == .connecting {
            guard !events.isDisjoint(with: [.writable, .error, .hangup]) else { return }
            let error = Socket.pendingError(self.fd)
            guard error == 0 else {
                self.fail("connect: \(IOError(errnoCode: error, function: "connect"))")
                return
            }
            self.watchingWritable = true
            if let context = self.tlsContext {
                do {
                    self.tls = try TLSConnection(context: context, serverName: self.target.address.host)
                    self.state = .tlsHandshake
                    _ = try self.tls!.advanceHandshake()
                } catch {
                    self.fail("TLS: \(error)")
                    return
                }
                self.writePending()
            } else {
                self.sendUpgradeRequest()
            }
            return
        }
        if events.contains(.writable) {
            self.writePending()
            if self.state == .closed { return }
        }
        if !events.isDisjoint(with: [.readable, .readHangup, .hangup, .error]) {
            self.readAvailable()
        }
    }

    private func sendUpgradeRequest() {
        var keyBytes: [UInt8] = []
        for _ in 0..<4 {
            let word = self.nextMaskingKey().bytes
            keyBytes += [word.0, word.1, word.2, word.3]
        }
        let key = Base64.encode(keyBytes)
        self.expectedAccept = WebSocketHandshake.acceptValue(forKey: key)
        var request =
            "GET \(self.requestPath) HTTP/1.1\r\nHost: \(self.target.hostHeader)\r\nUpgrade: websocket\r\n"
            + "Connection: Upgrade\r\nSec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n"
        if self.offersCompression {
            request += "Sec-WebSocket-Extensions: \(PerMessageDeflateClientParameters.offerHeaderValue)\r\n"
        }
        request += "\r\n"
        self.output.append(contentsOf: request.utf8)
        self.state = .upgrading
        self.writePending()
    }

    private func readAvailable() {
        let buffer = self.loop.receiveBuffer
        // A bounded number of reads per wakeup keeps one busy connection from starving the others.
        for _ in 0..<4 {
            guard self.fd >= 0 else { return }
            let result: IOResult<Int>
            do {
                result = try Socket.read(self.fd, into: buffer)
            } catch {
                self.fail("read: \(error)")
                return
            }
            guard case .processed(let count) = result else { return }
            self.counters.add(.bytesReceived, count)
            if count == 0 {
                if self.state == .closing {
                    self.finish(error: nil)
                } else {
                    self.fail("the server closed the connection")
                }
                return
            }
            let bytes = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count])
            if let tls = self.tls {
                tls.receiveCiphertext(UnsafeRawBufferPointer(bytes))
                self.readPlaintext(tls)
            } else {
                self.process(bytes)
            }
            if count < buffer.count { return }
        }
    }

    private func readPlaintext(_ tls: TLSConnection) {
        do {
            if !tls.isHandshakeComplete {
                let progress = try tls.advanceHandshake()
                if progress == .complete && self.state == .tlsHandshake {
                    self.sendUpgradeRequest()
                } else {
                    self.writePending()
                }
                if progress != .complete { return }
            }
            let scratch = self.loop.scratchBuffer
            while self.state != .closed {
                switch try tls.readPlaintext(into: scratch) {
                case .bytes(let count):
                    self.process(UnsafeMutableRawBufferPointer(rebasing: scratch[0..<count]))
                case .wouldBlock:
                    if tls.hasPendingCiphertext { self.writePending() }
                    return
                case .closed:
                    if self.state == .closing { self.finish(error: nil) } else { self.fail("TLS closed by the server") }
                    return
                }
            }
        } catch {
            self.fail("TLS: \(error)")
        }
    }

    /// Handles received plaintext: the HTTP answer first, then frames.
    private func process(_ bytes: UnsafeMutableRawBufferPointer) {
        if self.state == .upgrading {
            self.input.append(contentsOf: bytes)
            guard let headEnd = Self.headEnd(self.input) else {
                if self.input.count > 16 * 1024 { self.fail("upgrade response head too large") }
                return
            }
            do throws(BenchError) {
                self.compression = try Self.checkUpgradeResponse(
                    self.input[0..<headEnd],
                    expectedAccept: self.expectedAccept,
                    offeredCompression: self.offersCompression
                )
            } catch {
                self.fail(error.description)
                return
            }
            if let compression = self.compression {
                self.inflater = compression.makeInflater()
                self.deflater = compression.makeDeflater(
                    compressionLevel: Self.compressionLevel,
                    memoryLevel: Self.compressionMemoryLevel
                )
                self.counters.add(.compressionAgreed)
            }
            self.input.removeSubrange(0..<headEnd)
            self.state = .open
            self.openedAt = EventLoop.monotonicNow()
            self.delegate?.connectionDidOpen(self)
            guard self.state == .open || self.state == .closing, !self.input.isEmpty else { return }
            self.decodeBuffered()
            return
        }
        guard self.state == .open || self.state == .closing else { return }
        if self.input.isEmpty {
            let consumed = self.decodeFrames(bytes)
            if consumed < bytes.count && self.state != .closed {
                self.input.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[consumed...]))
            }
        } else {
            self.input.append(contentsOf: bytes)
            self.decodeBuffered()
        }
    }

    private func decodeBuffered() {
        var buffered = self.input
        self.input = []
        let consumed = buffered.withUnsafeMutableBytes { self.decodeFrames($0) }
        guard self.state != .closed else { return }
        buffered.removeSubrange(0..<consumed)
        self.input = buffered
    }

    /// Decodes and handles whole frames from the start of `buffer`; returns how many bytes they took.
    private func decodeFrames(_ buffer: UnsafeMutableRawBufferPointer) -> Int {
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

    private func handleFrame(_ header: WebSocketFrameHeader, _ payload: UnsafeMutableRawBufferPointer) {
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
            self.send(.pong, payload: UnsafeRawBufferPointer(payload))
        case .pong:
            break
        case .connectionClose:
            if self.state == .closing {
                // Our close was answered. The server closes the TCP connection first (so the TIME_WAIT state stays
                // on its side); the end of the stream, or the close timer, finishes the connection.
                break
            } else {
                let code = payload.count >= 2 ? Int(payload[0]) << 8 | Int(payload[1]) : 1005
                self.sendClose(code: 1000)
                self.state = .closing
                self.flush()
                self.finish(error: "the server closed with \(code)")
            }
        default:
            self.fail("unexpected \(header.opcode) frame")
        }
    }

    /// Inflates a compressed message into the loop's buffer and hands it to the delegate.
    private func receiveCompressed(_ opcode: WebSocketOpcode, _ payload: UnsafeMutableRawBufferPointer) {
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

    private func fail(_ message: String) {
        self.finish(error: message)
    }

    private func finish(error: String?) {
        guard self.state != .closed else { return }
        self.state = .closed
        if let timer = self.closeTimer { self.loop.cancelTimer(timer) }
        if self.fd >= 0 {
            self.loop.deregister(self.fd)
            Socket.close(self.fd)
            self.fd = -1
        }
        self.output = []
        self.ciphertext = []
        self.tls = nil
        self.inflater = nil
        self.deflater = nil
        self.delegate?.connection(self, didCloseWith: error)
    }

    // MARK: HTTP

    private static func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4)
        where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index + 4
        }
        return nil
    }

    /// Checks the status line, `Sec-WebSocket-Accept` and the server's answer to the permessage-deflate offer
    /// (RFC 7692 §7.1, through `PerMessageDeflateClientParameters`).
    ///
    /// - Parameters:
    ///   - head: the response head, blank line included or not.
    ///   - expectedAccept: the `Sec-WebSocket-Accept` value the key calls for.
    ///   - offeredCompression: whether the request offered permessage-deflate.
    /// - Returns: what the server agreed to for compression, or nil when it declined or none was offered.
    /// - Throws: `BenchError` naming the problem when the upgrade is not good.
    static func checkUpgradeResponse(
        _ head: ArraySlice<UInt8>,
        expectedAccept: String,
        offeredCompression: Bool
    ) throws(BenchError) -> PerMessageDeflateClientParameters? {
        let text = String(decoding: head, as: UTF8.self)
        let lines = text.split(separator: "\r\n", omittingEmptySubsequences: true)
        guard let statusLine = lines.first else { throw BenchError("empty upgrade response") }
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), parts[1] == "101" else {
            throw BenchError("upgrade refused: \(statusLine)")
        }
        var accept: String?
        var extensions: [String] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else {
                throw BenchError("malformed header line in the upgrade response")
            }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingSpaces()
            switch name {
            case "sec-websocket-accept": accept = value
            case "sec-websocket-extensions": extensions.append(value)
            default: break
            }
        }
        guard let accept else { throw BenchError("upgrade response without Sec-WebSocket-Accept") }
        guard accept == expectedAccept else { throw BenchError("wrong Sec-WebSocket-Accept: \(accept)") }
        do throws(PerMessageDeflateResponseError) {
            return try PerMessageDeflateClientParameters.validate(
                responseHeaderValue: extensions.joined(separator: ", "),
                offered: offeredCompression
            )
        } catch {
            throw BenchError(error.description)
        }
    }
}

extension Substring {
    fileprivate func trimmingSpaces() -> String {
        var slice = self[...]
        while slice.first == " " || slice.first == "\t" { slice = slice.dropFirst() }
        while slice.last == " " || slice.last == "\t" { slice = slice.dropLast() }
        return String(slice)
    }
}
