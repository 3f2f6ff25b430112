import EventIO
import WebSocketCore
import WebSocketDeflate

#if canImport(Glibc)
import Glibc
#endif

/// One client socket, from the first byte of its handshake to the end of its close handshake.
///
/// A connection lives on one event loop and is touched only from that loop's thread. Bytes are read into the
/// loop's shared buffer; only the bytes of an unfinished frame are copied into the connection, so an idle
/// connection holds no receive buffer. Output goes through a bounded write queue flushed once per loop iteration.
public final class WebSocketConnection {
    /// Where a connection is in its life. Data that only one phase needs lives in optionals beside it.
    enum Phase: Equatable {
        /// The TLS handshake is running (wss only).
        case tlsHandshake
        /// Reading the HTTP request head.
        case readingRequest
        /// Reading the body of a plain HTTP request (up to its `Content-Length`).
        case readingBody
        /// A plain HTTP request went to its route; waiting for the route's response.
        case awaitingResponse
        /// An HTTP response was queued; the socket closes once it is written.
        case respondingHTTP
        /// The WebSocket is open.
        case open
        /// We sent a Close frame and wait for the peer's (or for the timeout).
        case closeSent
        /// The close handshake is complete or the connection failed; the socket closes once output is written.
        case closing
        /// The socket is closed.
        case closed
    }

    /// The loop this connection lives on.
    public let loop: EventLoop
    /// The client's address.
    public let remoteAddress: SocketAddress?
    /// Whether the connection came in over TLS.
    public let isSecure: Bool
    /// The path the client upgraded on.
    public private(set) var path: String = ""
    /// The query string of the upgrade request.
    public private(set) var query: String?
    /// The negotiated subprotocol.
    public private(set) var subprotocol: String?
    /// The request head of the upgrade (headers such as `Authorization` for the layers above).
    public private(set) var requestHead: HTTPRequestHead?
    /// Free for the endpoint's own per-connection state.
    public var userData: AnyObject?
    /// Whether the write queue is under its high watermark.
    public private(set) var isWritable = true
    /// The permessage-deflate parameters agreed in the upgrade; nil when the connection runs uncompressed. Set before
    /// the endpoint hears of the connection and never changed after.
    public var compression: PerMessageDeflateParameters? { self.deflate }

    let fd: Int32
    /// The loop's server state. Not reference counted: the server loop owns its connections and closes every one
    /// of them before it goes away, and a closed connection never touches it again (every use is guarded by the
    /// phase). A checked `unowned` reference cost a strong retain and release on each message.
    unowned(unsafe) let server: ServerLoop
    /// The loop's counters, kept here so the per-message path does not go through `server`.
    private let statistics: LoopStatistics
    var registryIndex = -1
    private(set) var phase: Phase {
        didSet {
            if self.holdsHandshakeSlot && self.phase != .tlsHandshake && self.phase != .readingRequest {
                self.holdsHandshakeSlot = false
                self.server.admission.handshakeEnded()
            }
        }
    }
    /// Whether this connection still counts against the pending-handshake and per-address limits.
    private var holdsHandshakeSlot = true
    private var holdsAddressSlot = true
    /// Messages and control frames from the peer, against `maximumMessagesPerSecond`.
    private var rateLimiter: MessageRateLimiter
    private var tls: TLSConnection?
    private var requestParser: HTTPRequestParser?
    private var processor: WebSocketInboundProcessor?
    private var deflate: PerMessageDeflateParameters? {
        didSet { self.agreedCompression = self.deflate != nil }
    }
    /// Whether `deflate` is set, for the per-message path: testing the optional copies the parameters.
    private var agreedCompression = false
    private var deflater: PerMessageDeflater?
    private var endpoint: (any WebSocketEndpoint)?
    /// Bytes of an unfinished request head or frame.
    private var pending: [UInt8] = []
    /// The size of the frame whose header arrived without all of its payload.
    private var expectedFrameSize: Int?
    private var outbound = OutboundQueue()
    private var isFlushScheduled = false
    /// Whether anything was written since the last sweep; a connection that wrote nothing gives back the write
    /// queue's reusable buffers, so idle connections hold none.
    private var wroteSinceSweep = false
    private var isWatchingWritability = false
    private var closeReason: WebSocketCloseReason?
    /// A plain HTTP request whose body is being read, its route, and the body so far.
    private var httpRequest: (head: HTTPRequestHead, route: HTTPRoute, body: [UInt8], length: Int)?
    /// When the last HTTP request was handed to its route, for the response timeout.
    private var requestDispatchedAt: UInt64 = 0
    /// Whether the client may still be sending a body we did not read: after the response, the socket is shut
    /// for writing and drained until the client closes, so the response is not lost to a reset.
    private var lingerAfterResponse = false

    // Timekeeping for the loop's periodic sweep, in the loop's monotonic nanoseconds.
    private let createdAt: UInt64
    private var lastReceivedAt: UInt64
    private var lastMessageAt: UInt64
    private var pingSentAt: UInt64?
    private var closeStartedAt: UInt64 = 0

    // The write queue's bounds, read on every enqueue and flush: copied out of the server's configuration once,
    // since reading them through it copies (retains and releases) the whole configuration each time.
    private let writeQueueLimit: Int
    private let writeQueueHighWatermark: Int
    private let writeQueueLowWatermark: Int

    init(fd: Int32, remoteAddress: SocketAddress?, tls: TLSConnection?, server: ServerLoop) {
        self.fd = fd
        self.remoteAddress = remoteAddress
        self.tls = tls
        self.isSecure = tls != nil
        self.server = server
        self.statistics = server.loopStatistics
        self.loop = server.loop
        self.phase = tls == nil ? .readingRequest : .tlsHandshake
        let configuration = server.configuration
        self.requestParser = HTTPRequestParser(limits: configuration.httpLimits)
        self.writeQueueLimit = configuration.writeQueueLimit
        self.writeQueueHighWatermark = configuration.writeQueueHighWatermark
        self.writeQueueLowWatermark = configuration.writeQueueLowWatermark
        self.createdAt = server.loop.now
        self.lastReceivedAt = server.loop.now
        self.lastMessageAt = server.loop.now
        self.rateLimiter = MessageRateLimiter(
            ratePerSecond: server.configuration.maximumMessagesPerSecond,
            burst: server.configuration.messageBurst,
            now: server.loop.now
        )
    }

    /// Gives back the admission slots this connection holds (once; the loop calls it when the connection ends).
    func releaseAdmission() {
        if self.holdsHandshakeSlot {
            self.holdsHandshakeSlot = false
            self.server.admission.handshakeEnded()
        }
        if self.holdsAddressSlot {
            self.holdsAddressSlot = false
            self.server.admission.connectionClosed(self.remoteAddress)
        }
    }

    // MARK: Sending (the endpoint's API)

    /// Sends a message, compressing it when permessage-deflate was agreed and the message is large enough.
    ///
    /// - Parameters:
    ///   - opcode: `.text` (the payload must be UTF-8) or `.binary`.
    ///   - payload: the message.
    public func send(opcode: WebSocketOpcode, payload: UnsafeRawBufferPointer) {
        guard self.phase == .open else { return }
        if self.tls == nil && self.deflate?.shouldCompress(messageLength: payload.count) != true {
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
        if let deflate = self.deflate, deflate.shouldCompress(messageLength: payload.count) {
            let deflater = self.deflater ?? deflate.makeDeflater()
            self.deflater = deflater
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
        guard self.phase == .open else { return }
        if frame.isCompressed {
            precondition(self.agreedCompression, "a compressed frame for a connection without permessage-deflate")
            self.deflater?.resetWindow()
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
        guard self.phase == .open else { return }
        self.sendClose(code: code, reason: reason)
    }

    /// Bytes waiting in the write queue.
    public var queuedByteCount: Int { self.outbound.byteCount }

    // MARK: Events from the loop

    /// Called by the event loop when the socket is ready; not for endpoints.
    public func handleEvents(_ events: EventSet) {
        if events.contains(.readable) || events.contains(.hangup) || events.contains(.error)
            || events.contains(.readHangup)
        {
            self.handleReadable()
        }
        if events.contains(.writable) && self.phase != .closed {
            self.flush()
        }
    }

    private func handleReadable() {
        // Bounded reads per event, so one busy client cannot starve the others on this loop.
        var reads = 0
        while self.phase != .closed && reads < 4 {
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
            self.lastReceivedAt = self.loop.now
            self.pingSentAt = nil
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
            if self.phase == .tlsHandshake {
                guard try tls.advanceHandshake() == .complete else {
                    self.takeCiphertext(tls)
                    return
                }
                self.phase = .readingRequest
            }
            let plaintext = self.loop.scratchBuffer
            while self.phase != .closed {
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

    private func takeCiphertext(_ tls: TLSConnection) {
        guard tls.hasPendingCiphertext else { return }
        var ciphertext: [UInt8] = []
        _ = tls.takeCiphertext(into: &ciphertext)
        self.outbound.append(ciphertext)
        self.scheduleFlush()
    }

    /// Handles plaintext bytes from the socket or from TLS.
    private func receive(_ bytes: UnsafeMutableRawBufferPointer) {
        self.expectedFrameSize = nil
        if self.pending.isEmpty {
            let consumed = self.process(bytes)
            if consumed < bytes.count && self.phase != .closed {
                self.keepPending(UnsafeRawBufferPointer(rebasing: bytes[consumed...]))
            }
        } else {
            // Move the partial bytes out while they are processed, so nothing else touches them meanwhile.
            var buffer = self.pending
            self.pending = []
            buffer.append(contentsOf: UnsafeRawBufferPointer(bytes))
            let consumed = buffer.withUnsafeMutableBytes { self.process($0) }
            if self.phase != .closed && consumed < buffer.count {
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
        kept.reserveCapacity(max(bytes.count, self.expectedFrameSize ?? 0))
        kept.append(contentsOf: bytes)
        self.pending = kept
    }

    /// Processes bytes according to the phase; returns how many were used.
    private func process(_ bytes: UnsafeMutableRawBufferPointer) -> Int {
        switch self.phase {
        case .tlsHandshake, .respondingHTTP, .awaitingResponse, .closing, .closed:
            return bytes.count
        case .readingRequest:
            return self.processRequest(bytes)
        case .readingBody:
            return self.processBody(bytes)
        case .open, .closeSent:
            return self.processFrames(bytes)
        }
    }

    private func processRequest(_ bytes: UnsafeMutableRawBufferPointer) -> Int {
        guard var parser = self.requestParser else { return bytes.count }
        let result = parser.parse(UnsafeRawBufferPointer(bytes))
        self.requestParser = parser
        switch result {
        case .incomplete:
            return 0
        case .failure(let status):
            self.server.count(.handshakeRejected(status.code))
            self.respond(HTTPResponse.error(status))
            return bytes.count
        case .complete(let head):
            self.requestParser = nil
            let headSize = head.size
            self.handleRequest(head)
            if self.phase == .readingBody {
                return headSize + self.processBody(UnsafeMutableRawBufferPointer(rebasing: bytes[headSize...]))
            }
            guard self.phase == .open else { return bytes.count }
            // Frames that came in the same segment as the request.
            let rest = UnsafeMutableRawBufferPointer(rebasing: bytes[headSize...])
            return headSize + self.processFrames(rest)
        }
    }

    private func handleRequest(_ head: HTTPRequestHead) {
        let path = head.path
        guard WebSocketHandshake.isUpgradeRequest(head) else {
            self.startHTTPRequest(head)
            return
        }
        guard let endpoint = self.server.endpoint(forPath: path) else {
            self.server.count(.handshakeRejected(404))
            self.respond(HTTPResponse.error(.notFound, message: "no WebSocket endpoint at \(path)"))
            return
        }
        let request: WebSocketUpgradeRequest
        switch WebSocketHandshake.validate(head) {
        case .failure(let rejection):
            self.server.count(.handshakeRejected(rejection.status.code))
            self.respond(rejection.response)
            return
        case .success(let valid):
            request = valid
        }
        let configuration = self.server.configuration
        if !configuration.allowedOrigins.isEmpty, let origin = request.origin,
            !configuration.allowedOrigins.contains(origin)
        {
            self.server.count(.handshakeRejected(403))
            self.respond(HTTPResponse.error(.forbidden, message: "origin not allowed"))
            return
        }
        self.subprotocol = request.selectProtocol(from: configuration.subprotocols)
        if !request.extensions.isEmpty {
            self.deflate = PerMessageDeflateNegotiator.negotiate(
                headerValue: request.extensions,
                configuration: configuration.compression
            )
        }
        self.path = path
        self.query = request.query
        self.requestHead = head
        let response = WebSocketHandshake.switchingProtocolsResponse(
            key: request.key,
            subprotocol: self.subprotocol,
            extensions: self.deflate?.responseHeaderValue
        )
        self.writeRaw(response)
        self.processor = WebSocketInboundProcessor(
            limits: configuration.messageLimits,
            inflater: self.deflate?.makeInflater()
        )
        self.phase = .open
        self.lastMessageAt = self.loop.now
        self.endpoint = endpoint
        self.server.count(.upgraded)
        endpoint.connectionDidOpen(self)
    }

    // MARK: Plain HTTP requests

    /// Routes a request that is not an upgrade: answers at once when no route takes it, else reads its body.
    private func startHTTPRequest(_ head: HTTPRequestHead) {
        let route: HTTPRoute
        switch self.server.dispatchHTTP(head) {
        case .response(let response):
            self.lingerAfterResponse =
                head.value(of: "Content-Length") != nil
                || head.value(of: "Transfer-Encoding") != nil
            self.respond(response)
            return
        case .route(let found):
            route = found
        }
        let length: Int
        switch Self.bodyLength(of: head, limit: self.server.configuration.maximumHTTPBodySize) {
        case .failure(let status, let message):
            self.lingerAfterResponse = true
            self.respond(HTTPResponse.error(status, message: message))
            return
        case .length(let value):
            length = value
        }
        self.httpRequest = (head, route, [], length)
        if length == 0 {
            self.dispatchHTTPRequest()
        } else {
            self.phase = .readingBody
        }
    }

    enum BodyLength: Equatable {
        case length(Int)
        case failure(HTTPStatus, String)
    }

    /// The body length a request head announces, or why it is refused: any `Transfer-Encoding` (chunked bodies are
    /// not read: 411, asking for a `Content-Length`; other codings are not implemented: 501), a malformed or
    /// conflicting `Content-Length` (400), or one over `limit` (413).
    static func bodyLength(of head: HTTPRequestHead, limit: Int) -> BodyLength {
        if head.count(of: "Transfer-Encoding") > 0 {
            if head.containsToken("chunked", in: "Transfer-Encoding") {
                return .failure(.lengthRequired, "chunked request bodies are not accepted; send Content-Length")
            }
            return .failure(.notImplemented, "transfer codings are not implemented")
        }
        var length: Int?
        for value in head.values(of: "Content-Length") {
            for item in value.split(separator: ",", omittingEmptySubsequences: false) {
                let text = String(
                    item.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
                guard !text.isEmpty, text.utf8.count <= 18, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                    let number = Int(text)
                else {
                    return .failure(.badRequest, "malformed Content-Length")
                }
                if let length, length != number { return .failure(.badRequest, "conflicting Content-Length values") }
                length = number
            }
        }
        guard let length else { return .length(0) }
        guard length <= limit else {
            return .failure(.payloadTooLarge, "request body over \(limit) bytes")
        }
        return .length(length)
    }

    private func processBody(_ bytes: UnsafeMutableRawBufferPointer) -> Int {
        guard var request = self.httpRequest else { return bytes.count }
        let wanted = request.length - request.body.count
        request.body.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[0..<min(wanted, bytes.count)]))
        self.httpRequest = request
        if request.body.count == request.length { self.dispatchHTTPRequest() }
        // Anything after the body (a pipelined request) is not served: every response closes the connection.
        return bytes.count
    }

    /// Hands the complete request to its route with a responder that may answer from any thread.
    private func dispatchHTTPRequest() {
        guard let request = self.httpRequest else { return }
        self.httpRequest = nil
        self.phase = .awaitingResponse
        self.requestDispatchedAt = self.loop.now
        let loop = UncheckedBox(self.loop)
        let connection = UncheckedBox(self)
        let responder = HTTPResponder { response in
            let bytes = response
            if loop.value.inEventLoop {
                connection.value.deliverHTTPResponse(bytes)
            } else {
                loop.value.execute { connection.value.deliverHTTPResponse(bytes) }
            }
        }
        request.route.handle(
            HTTPRequest(head: request.head, body: request.body, remoteAddress: self.remoteAddress),
            responder
        )
    }

    private func deliverHTTPResponse(_ response: [UInt8]) {
        guard self.phase == .awaitingResponse else { return }
        self.respond(response)
    }

    private func processFrames(_ bytes: UnsafeMutableRawBufferPointer) -> Int {
        // Moved out (not copied, which would retain and release its references) while it runs: an endpoint
        // callback may close this connection, which must not touch the processor meanwhile.
        guard var processor = self.processor.take() else { return bytes.count }
        let progress = processor.process(bytes) { event in self.handle(event) }
        self.processor = processor
        if progress.isFinished { return bytes.count }
        self.expectedFrameSize = progress.nextFrameSize
        return progress.consumed
    }

    private func handle(_ event: WebSocketInboundProcessor.Event) {
        if self.phase == .open, self.rateLimiter.isEnabled, event.countsAgainstRate,
            !self.rateLimiter.admit(now: self.loop.now)
        {
            self.server.count(.rateLimited)
            self.sendClose(code: .policyViolation, reason: "rate limit")
            return
        }
        switch event {
        case .text(let bytes):
            guard self.phase == .open else { return }
            self.statistics.messagesReceived.add(1, ordering: .relaxed)
            self.lastMessageAt = self.loop.now
            self.endpoint?.connection(self, didReceive: .text(bytes))
        case .binary(let bytes):
            guard self.phase == .open else { return }
            self.statistics.messagesReceived.add(1, ordering: .relaxed)
            self.lastMessageAt = self.loop.now
            self.endpoint?.connection(self, didReceive: .binary(bytes))
        case .ping(let bytes):
            guard self.phase == .open else { return }
            self.enqueue(WebSocketFrameEncoder.encode(opcode: .pong, payload: bytes))
        case .pong:
            break
        case .close(let code, _):
            if self.phase == .open {
                // Echo the peer's code (RFC 6455 §5.5.1), then close the TCP connection: the server closes first.
                self.closeReason = WebSocketCloseReason(
                    code: code ?? .noStatusReceived,
                    initiatedByServer: false,
                    detail: "closed by peer"
                )
                self.enqueue(WebSocketFrameEncoder.encodeClose(code: code))
            }
            self.phase = .closing
            self.scheduleFlush()
        case .violation(let violation):
            self.server.count(.protocolViolation)
            if self.phase == .open {
                self.sendClose(code: violation.closeCode, reason: violation.description)
            }
            self.phase = .closing
            self.scheduleFlush()
        }
    }

    /// Queues our Close after what is already queued (the handshake response, messages sent before the close),
    /// which must reach the peer first. Only a slow consumer's backlog is dropped (`discardingQueued`).
    private func sendClose(code: WebSocketCloseCode, reason: String, discardingQueued: Bool = false) {
        self.closeReason = WebSocketCloseReason(code: code, initiatedByServer: true, detail: reason)
        if discardingQueued { self.outbound.removeAll() }
        self.enqueue(WebSocketFrameEncoder.encodeClose(code: code, reason: reason))
        self.phase = .closeSent
        self.closeStartedAt = self.loop.now
        self.scheduleFlush()
    }

    private func handlePeerClosed() {
        switch self.phase {
        case .open:
            self.closeReason = WebSocketCloseReason(
                code: .abnormalClosure,
                initiatedByServer: false,
                detail: "connection dropped without a close handshake"
            )
            self.closeSocket()
        default:
            self.closeSocket()
        }
    }

    // MARK: Output

    private func respond(_ response: [UInt8]) {
        self.writeRaw(response)
        self.phase = .respondingHTTP
    }

    private func enqueue(_ frame: WebSocketOutboundFrame) {
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

    private func writeRaw(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { self.writeRaw($0) }
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

    private func checkQueueLimits() {
        let queued = self.outbound.byteCount
        if queued > self.writeQueueLimit && self.phase == .open {
            self.server.count(.slowConsumerClosed)
            self.sendClose(code: .policyViolation, reason: "write queue limit reached", discardingQueued: true)
        } else if self.isWritable && queued > self.writeQueueHighWatermark {
            self.isWritable = false
            self.endpoint?.connection(self, writabilityDidChange: false)
        }
    }

    private func scheduleFlush() {
        guard !self.isFlushScheduled && self.phase != .closed else { return }
        self.isFlushScheduled = true
        self.loop.scheduleFlush(self)
    }

    fileprivate func flushNow() {
        self.isFlushScheduled = false
        self.wroteSinceSweep = true
        guard self.phase != .closed else { return }
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
            switch self.phase {
            case .respondingHTTP where self.lingerAfterResponse:
                // The client may still be sending a body: close our side and read until it closes (or the close
                // timeout), so the kernel does not answer its bytes with a reset that destroys our response.
                self.lingerAfterResponse = false
                Socket.shutdownWrite(self.fd)
            case .respondingHTTP, .closing:
                self.closeSocket()
                return
            case .closeSent:
                // Our Close is out: send FIN and wait for the peer's Close (or EOF, or the timeout).
                Socket.shutdownWrite(self.fd)
            default:
                break
            }
        }
        if !self.isWritable && self.outbound.byteCount <= self.writeQueueLowWatermark {
            self.isWritable = true
            self.endpoint?.connection(self, writabilityDidChange: true)
        }
    }

    // MARK: Timers (called by the loop's sweep)

    func checkTimers(now: UInt64) {
        if !self.wroteSinceSweep { self.outbound.releaseUnusedStorage() }
        self.wroteSinceSweep = false
        let configuration = self.server.configuration
        switch self.phase {
        case .tlsHandshake, .readingRequest:
            if now &- self.createdAt > UInt64(configuration.handshakeTimeoutMilliseconds) * 1_000_000 {
                self.server.count(.handshakeTimeout)
                self.closeSocket()
            }
        case .readingBody:
            // The body shares the handshake's time budget, counted from the connection's start.
            if now &- self.createdAt > UInt64(configuration.handshakeTimeoutMilliseconds) * 1_000_000 {
                self.httpRequest = nil
                self.lingerAfterResponse = true
                self.respond(HTTPResponse.error(.requestTimeout, message: "request body not received in time"))
            }
        case .awaitingResponse:
            if now &- self.requestDispatchedAt > UInt64(configuration.handshakeTimeoutMilliseconds) * 1_000_000 {
                self.respond(HTTPResponse.error(.serviceUnavailable, message: "no response in time"))
            }
        case .open:
            let sinceReceive = now &- self.lastReceivedAt
            if configuration.idleTimeoutMilliseconds > 0,
                now &- self.lastMessageAt > UInt64(configuration.idleTimeoutMilliseconds) * 1_000_000
            {
                self.sendClose(code: .goingAway, reason: "idle timeout")
            } else if let pingSentAt = self.pingSentAt {
                if now &- pingSentAt > UInt64(configuration.pongTimeoutMilliseconds) * 1_000_000 {
                    self.server.count(.keepAliveTimeout)
                    self.closeReason = WebSocketCloseReason(
                        code: .abnormalClosure,
                        initiatedByServer: true,
                        detail: "no answer to ping"
                    )
                    self.closeSocket()
                }
            } else if configuration.pingIntervalMilliseconds > 0,
                sinceReceive > UInt64(configuration.pingIntervalMilliseconds) * 1_000_000
            {
                self.pingSentAt = now
                self.enqueue(
                    WebSocketFrameEncoder.encode(opcode: .ping, payload: UnsafeRawBufferPointer(start: nil, count: 0)))
            }
        case .closeSent, .closing, .respondingHTTP:
            if self.closeStartedAt == 0 { self.closeStartedAt = now }
            if now &- self.closeStartedAt > UInt64(configuration.closeTimeoutMilliseconds) * 1_000_000 {
                self.closeSocket()
            }
        case .closed:
            break
        }
    }

    /// Starts the close handshake for a server shutdown (1001), or drops a connection still in its handshake.
    func shutDown() {
        switch self.phase {
        case .open:
            self.sendClose(code: .goingAway, reason: "server shutting down")
        case .tlsHandshake, .readingRequest, .readingBody:
            self.closeSocket()
        case .awaitingResponse:
            self.respond(HTTPResponse.error(.serviceUnavailable, message: "server shutting down"))
        default:
            break
        }
    }

    // MARK: Teardown

    /// Closes the socket at once (the shutdown grace period is over).
    func abandon() {
        self.closeSocket()
    }

    private func abort(detail: String) {
        if self.closeReason == nil {
            self.closeReason = WebSocketCloseReason(code: .abnormalClosure, initiatedByServer: false, detail: detail)
        }
        self.closeSocket()
    }

    private func closeSocket() {
        guard self.phase != .closed else { return }
        let wasOpen = self.endpoint != nil
        self.phase = .closed
        self.httpRequest = nil
        self.outbound.removeAll()
        self.pending = []
        self.processor = nil
        self.deflater = nil
        self.tls = nil
        self.loop.deregister(self.fd)
        Socket.close(self.fd)
        self.server.connectionDidClose(self)
        if wasOpen, let endpoint = self.endpoint {
            self.endpoint = nil
            let reason =
                self.closeReason
                ?? WebSocketCloseReason(code: .abnormalClosure, initiatedByServer: false, detail: "connection lost")
            endpoint.connectionDidClose(self, reason: reason)
        }
    }
}

extension WebSocketConnection: EventLoopHandler, EventLoopFlushable {
    /// Called by the event loop at the end of an iteration to write queued output; not for endpoints.
    public func flush() {
        self.flushNow()
    }
}

@available(*, unavailable)
extension WebSocketConnection: Sendable {}
