import EventIO
import HTTPCore
import WebSocketCore
import WebSocketDeflate

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

/// One client WebSocket connection on a `StreamConnection`, driven by an event loop.
///
/// It connects (binding a source address first when given), runs TLS when asked, sends the HTTP upgrade and checks
/// the 101 answer and `Sec-WebSocket-Accept`, then masks outgoing frames in place in the stream's write queue and
/// decodes server frames in place in the loop's read buffer. Its buffers keep their capacity, so steady traffic
/// allocates nothing per message.
///
/// With compression on it offers permessage-deflate (RFC 7692) and checks the server's answer. When the server
/// agrees, compressed server messages are inflated into the loop's shared `BenchCompressionBuffers`, and outgoing
/// text and binary messages of at least `minimumCompressedMessageSize` bytes are compressed (through the same
/// buffers) and sent with RSV1. A server that declines leaves the connection uncompressed.
final class BenchConnection: StreamConnectionDelegate {
    enum State {
        /// The TCP connect and, for `wss://`, the TLS handshake.
        case connecting
        case upgrading
        case open
        case closing
        case closed
    }

    /// Where the connection stands.
    var state = State.connecting
    /// The connection's number within its scenario.
    let index: Int
    /// When `start` was called (monotonic ns).
    private(set) var startedAt: UInt64 = 0
    /// When the upgrade completed (monotonic ns).
    var openedAt: UInt64 = 0
    weak var delegate: (any BenchConnectionDelegate)?
    /// What the server agreed to for permessage-deflate; nil until the upgrade, and when it declined or none was
    /// offered.
    var compression: PerMessageDeflateClientParameters?
    /// The code of the Close frame the server sent first, if it did.
    private(set) var serverCloseCode: UInt16?

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
    /// No keep-alive pings; a second for the close handshake and for the server to close the connection after it.
    static let timeouts = WebSocketSessionStateMachine.Timeouts(pingInterval: 0, closeTimeout: 1000)

    let loop: EventLoop
    let target: BenchTarget
    let requestPath: String
    /// The socket, TLS and the write queue.
    let stream: StreamConnection
    let tlsContext: TLSContext?
    /// The upgrade request's key and the answer it calls for; set when the request goes out.
    var expectedAccept = ""
    /// Reads the upgrade response as it arrives.
    var responseParser = HTTPResponseParser()
    /// The session's rules once the upgrade completes: pongs and the close handshake (no pings of its own).
    var session = WebSocketSessionStateMachine(role: .client, timeouts: BenchConnection.timeouts, now: 0)
    private var maskState: UInt64
    let decoder = WebSocketFrameDecoder(
        maximumFrameSize: BenchConnection.maximumMessageSize,
        expectsMaskedFrames: false
    )
    private var closeTimer: TimerID?
    let offersCompression: Bool
    let counters: BenchCounters
    let compressionBuffers: BenchCompressionBuffers
    /// Created at the upgrade when compression was agreed; zlib memory is allocated on the first message.
    var inflater: PerMessageInflater?
    var deflater: PerMessageDeflater?

    /// - Parameters:
    ///   - index: the connection's number within its scenario.
    ///   - loop: the loop that drives it.
    ///   - target: the server.
    ///   - path: the request target; nil: the target's path.
    ///   - tlsContext: the TLS client context for `wss://`, or nil.
    ///   - offersCompression: whether to offer permessage-deflate.
    ///   - counters: the loop's counters, for the compression counts and the bytes on the wire.
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
        // Four reads per wakeup keep one busy connection from starving the others; a whole message of the largest
        // size may wait for its last bytes; a server that stops reading ends the connection, not the generator's
        // memory.
        self.stream = StreamConnection(
            loop: loop,
            options: StreamConnectionOptions(
                readsPerWakeup: 4, maximumBufferedBytes: Self.maximumMessageSize + 64 * 1024,
                maximumQueuedBytes: 4 * Self.maximumMessageSize, statistics: counters.wire))
        self.stream.delegate = self
    }

    /// Starts connecting.
    func start(from source: SocketAddress?) {
        self.startedAt = EventLoop.monotonicNow()
        do {
            let tls = try self.tlsContext.map { context throws(TLSError) in
                try TLSConnection(context: context, serverName: self.target.address.host)
            }
            try self.stream.connect(to: self.target.address, from: source, tls: tls)
        } catch {
            self.fail("connect: \(error)")
        }
    }

    // MARK: Sending

    /// Sends one frame whose payload `fill` writes (it gets the unmasked payload, all `payloadCount` bytes of it).
    /// The payload is masked in place in the write queue.
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
    }

    /// Appends one frame to the write queue, masked with `key` (the header's key); `fill` writes the unmasked
    /// payload in place.
    @inline(__always)
    private func appendFrame(
        _ header: WebSocketFrameHeader,
        key: WebSocketMaskingKey,
        _ fill: (UnsafeMutableRawBufferPointer) -> Void
    ) {
        let payloadCount = header.payloadLength
        let headerSize = header.encodedSize
        self.stream.write(count: headerSize + payloadCount) { buffer in
            WebSocketFrameEncoder.writeHeader(header, into: buffer, endingAt: headerSize)
            let payload = UnsafeMutableRawBufferPointer(rebasing: buffer[headerSize..<(headerSize + payloadCount)])
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
            self.perform(self.session.close(code: .normalClosure, reason: "", now: Self.milliseconds()))
            self.state = .closing
            self.scheduleCloseTimer()
        case .connecting, .upgrading:
            self.finish(error: "closed before the upgrade completed")
        case .closing, .closed:
            break
        }
    }

    /// Closes the socket at once, reporting `reason` as an error (nil: not an error).
    ///
    /// - Parameters:
    ///   - reason: what to report, or nil.
    ///   - reset: whether to end the TCP connection with a reset, as a client that lost its network would.
    func abort(_ reason: String?, reset: Bool = false) {
        guard self.state != .closed else { return }
        self.finish(error: reason, reset: reset)
    }

    /// Sends the frame an action of the session state machine calls for.
    func perform(_ action: WebSocketSessionStateMachine.Action) {
        switch action {
        case .sendPong(let payload):
            self.send(.pong, payload: payload)
        case .sendClose(let code, let reason):
            let frame = WebSocketFrameEncoder.encodeClose(code: code, reason: reason, maskingKey: self.nextMaskingKey())
            self.stream.write(frame.bytes)
        case .closeSocket:
            self.finish(error: nil)
        case .sendPing, .doNothing:
            break
        }
    }

    /// Runs the close timeout of the state machine on the loop's timer.
    func scheduleCloseTimer() {
        guard let deadline = self.session.nextDeadline else { return }
        let delay = deadline > Self.milliseconds() ? deadline - Self.milliseconds() : 0
        self.closeTimer = self.loop.scheduleTimer(afterNanoseconds: delay * 1_000_000) { [weak self] in
            guard let self, self.state == .closing else { return }
            self.closeTimer = nil
            self.perform(self.session.timerFired(now: Self.milliseconds()))
            if self.state == .closing { self.scheduleCloseTimer() }
        }
    }

    /// The state machine's clock: monotonic milliseconds.
    static func milliseconds() -> UInt64 { EventLoop.monotonicNow() / 1_000_000 }

    @inline(__always)
    func nextMaskingKey() -> WebSocketMaskingKey {
        // xorshift64*: masking keys need only be unpredictable to intermediaries, not cryptographically strong here.
        self.maskState ^= self.maskState >> 12
        self.maskState ^= self.maskState << 25
        self.maskState ^= self.maskState >> 27
        return WebSocketMaskingKey(word: UInt32(truncatingIfNeeded: (self.maskState &* 0x2545_F491_4F6C_DD1D) >> 32))
    }

    func fail(_ message: String) {
        self.finish(error: message)
    }

    /// Notes the code of a Close frame the server sent first.
    func noteServerClose(_ code: UInt16?) {
        self.serverCloseCode = code ?? 1005
    }

    func finish(error: String?, reset: Bool = false) {
        guard self.state != .closed else { return }
        self.state = .closed
        if let timer = self.closeTimer { self.loop.cancelTimer(timer) }
        self.stream.close(reset: reset)
        self.inflater = nil
        self.deflater = nil
        self.delegate?.connection(self, didCloseWith: error)
    }
}
