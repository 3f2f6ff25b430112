import EventIO

/// One TCP connection to Redis, a `StreamConnection` on its client's event loop.
///
/// Commands are encoded into the stream's write queue and written at the end of the loop iteration, so everything
/// sent during an iteration leaves in one write when the socket takes it. Replies are parsed incrementally, straight
/// out of the loop's receive buffer; the stream keeps only the bytes of an incomplete reply (up to
/// `maximumReplyBytes`), so any pipeline costs linear time. After `close()` nothing is reported any more.
final class RedisConnection: StreamConnectionDelegate {
    /// Told of the connection's events; every call happens on the loop.
    weak var client: RedisClient?

    private let stream: StreamConnection
    /// The server, for messages.
    private var address: SocketAddress?
    private var parser: RESPParser

    /// - Parameters:
    ///   - loop: the loop the connection runs on.
    ///   - configuration: the longest bulk string and the largest reply accepted.
    init(loop: EventLoop, configuration: RedisClientConfiguration) {
        self.parser = RESPParser(
            maximumBulkLength: configuration.maximumReplyBulkBytes, maximumArrayLength: 16 * 1024 * 1024)
        // The client bounds what waits for the socket itself (`outputBufferFull`), command by command.
        self.stream = StreamConnection(
            loop: loop,
            options: StreamConnectionOptions(
                maximumBufferedBytes: configuration.maximumReplyBytes, maximumQueuedBytes: .max))
        self.stream.delegate = self
    }

    /// Whether the TCP connect completed (and the connection has not ended).
    var isOpen: Bool { self.stream.phase == .open }

    /// Encoded bytes not yet written to the socket.
    var queuedOutputBytes: Int { self.stream.queuedByteCount }

    /// Starts the non-blocking connect; `connectionDidOpen` or `connection(_:didFailWith:)` follows.
    ///
    /// - Parameter address: the server.
    func start(to address: SocketAddress) throws(IOError) {
        self.address = address
        try self.stream.connect(to: address)
    }

    /// Appends a command to the write queue; it is written at the end of the loop iteration.
    ///
    /// - Parameter encode: appends the encoded command to the buffer it is given.
    func enqueue(_ encode: (inout [UInt8]) -> Void) {
        self.stream.write(encoding: encode)
    }

    /// Closes the socket without reporting anything.
    func close() {
        self.stream.close()
    }

    // MARK: The stream's events

    func streamConnectionDidOpen(_ connection: StreamConnection) {
        self.client?.connectionDidOpen(self)
    }

    /// Parses and delivers every complete reply in `bytes`; the partial reply after them stays with the stream.
    /// Delivery may close the connection: parsing stops as soon as it does.
    func streamConnection(_ connection: StreamConnection, didReceive bytes: UnsafeMutableRawBufferPointer) -> Int {
        var offset = 0
        while self.stream.phase == .open {
            switch self.parser.parse(UnsafeRawBufferPointer(rebasing: bytes[offset...])) {
            case .incomplete:
                return offset
            case .value(let value, let consumed):
                offset += consumed
                self.client?.connection(self, didReceive: value)
            case .failure(let error):
                self.fail(.protocolError(error.description))
                return bytes.count
            }
        }
        return bytes.count
    }

    func streamConnection(_ connection: StreamConnection, didEndWith ending: StreamConnectionEnding) {
        switch ending {
        case .failed(let error):
            if case .connect = error.kind {
                self.client?.connection(
                    self, didFailWith: .connectFailed("\(self.address.map { "\($0)" } ?? "?"): \(error.cause)"))
            } else if case .inputLimit = error.kind {
                self.client?.connection(self, didFailWith: .protocolError(error.cause))
            } else {
                self.client?.connection(self, didFailWith: .connectionLost)
            }
        case .closedByPeer:
            self.client?.connection(self, didFailWith: .connectionLost)
        }
    }

    /// Closes the socket and tells the client why.
    private func fail(_ error: RedisError) {
        self.stream.close()
        self.client?.connection(self, didFailWith: error)
    }
}
