import EventIO
import HTTPCore
import WebSocketCore
import WebSocketDeflate

extension WebSocketConnection {
    // MARK: The opening handshake

    /// Feeds the request head so far to the parser; a complete head is an upgrade or a plain HTTP request.
    func processRequest(_ bytes: UnsafeMutableRawBufferPointer) -> Int {
        guard case .readingRequest(let handshake) = self.phase else { return bytes.count }
        let result = handshake.parser.parse(UnsafeRawBufferPointer(bytes))
        switch result {
        case .incomplete:
            return 0
        case .failure(let status):
            self.server.count(.handshakeRejected(status.code))
            self.respond(HTTPResponse.error(status))
            return bytes.count
        case .complete(let head):
            let headSize = head.size
            self.handleRequest(head, startedAt: handshake.startedAt)
            switch self.phase {
            case .readingBody:
                return headSize + self.processBody(UnsafeMutableRawBufferPointer(rebasing: bytes[headSize...]))
            case .session:
                // Frames that came in the same segment as the request.
                return headSize + self.processFrames(UnsafeMutableRawBufferPointer(rebasing: bytes[headSize...]))
            default:
                return bytes.count
            }
        }
    }

    private func handleRequest(_ head: HTTPRequestHead, startedAt: UInt64) {
        let path = head.path
        guard WebSocketHandshake.isUpgradeRequest(head) else {
            self.startHTTPRequest(head, startedAt: startedAt)
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
        var compression: PerMessageDeflateParameters?
        if !request.extensions.isEmpty {
            compression = PerMessageDeflateNegotiator.negotiate(
                headerValue: request.extensions,
                configuration: configuration.compression
            )
            self.compressionParameters = compression.map(CompressionParameters.init)
            self.agreedCompression = compression != nil
        }
        self.path = path
        let response = WebSocketHandshake.switchingProtocolsResponse(
            key: request.key,
            subprotocol: self.subprotocol,
            extensions: compression?.responseHeaderValue
        )
        self.writeFirst(response)
        // A failed write has closed the connection already.
        guard !self.phase.isClosed else { return }
        let now = self.loop.now
        let session = Session(
            machine: WebSocketSessionStateMachine(
                role: .server,
                timeouts: WebSocketSessionStateMachine.Timeouts(
                    pingInterval: UInt64(configuration.pingIntervalMilliseconds),
                    pongTimeout: UInt64(configuration.pongTimeoutMilliseconds),
                    idleTimeout: UInt64(configuration.idleTimeoutMilliseconds),
                    closeTimeout: UInt64(configuration.closeTimeoutMilliseconds)
                ),
                now: Session.milliseconds(now)
            ),
            processor: WebSocketInboundProcessor(
                limits: configuration.messageLimits,
                inflater: compression?.makeInflater()
            ),
            endpoint: endpoint,
            rateLimiter: MessageRateLimiter(rate: self.server.messageRate, now: now)
        )
        self.enter(.session(session))
        self.server.count(.upgraded)
        self.server.open(self, head: head, on: endpoint)
    }
}
