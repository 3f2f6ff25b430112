import EventIO

/// One TCP connection to Redis on a non-blocking socket, driven by its client's event loop.
///
/// Commands are encoded into one output buffer and written at the end of the loop iteration, so everything sent
/// during an iteration leaves in one write when the socket takes it. Replies are parsed incrementally, straight out
/// of the loop's receive buffer when no partial reply is held; only the bytes of an incomplete reply are kept, and
/// each received byte is copied at most once more, so any pipeline costs linear time. After `close()` nothing is
/// reported any more.
final class RedisConnection: EventLoopHandler, EventLoopFlushable {
    /// Told of the connection's events; every call happens on the loop.
    weak var client: RedisClient?
    /// Whether the TCP connect completed.
    private(set) var isOpen = false

    private let loop: EventLoop
    private var fd: Int32 = -1
    /// The server, for messages.
    private var address: SocketAddress?
    private var parser: RESPParser
    private var output: [UInt8] = []
    private var outputStart = 0
    private var input: [UInt8] = []
    private var flushScheduled = false
    private var watchingWritable = true

    /// - Parameters:
    ///   - loop: the loop the connection runs on.
    ///   - maximumBulkLength: the longest bulk string accepted in a reply.
    init(loop: EventLoop, maximumBulkLength: Int) {
        self.loop = loop
        self.parser = RESPParser(maximumBulkLength: maximumBulkLength, maximumArrayLength: 16 * 1024 * 1024)
    }

    /// Whether the socket is still open (false after `close()` or a failure).
    var isActive: Bool { self.fd >= 0 }

    /// Encoded bytes not yet written to the socket.
    var queuedOutputBytes: Int { self.output.count - self.outputStart }

    /// Starts the non-blocking connect; `connectionDidOpen` or `connection(_:didFailWith:)` follows.
    ///
    /// - Parameter address: the server.
    func start(to address: SocketAddress) throws(IOError) {
        self.address = address
        self.fd = try Socket.connect(to: address)
        Socket.setNoDelay(self.fd)
        do {
            try self.loop.register(self.fd, for: [.writable, .readable], handler: self)
        } catch {
            Socket.close(self.fd)
            self.fd = -1
            throw error
        }
    }

    /// Appends a command to the output buffer; it is written at the end of the loop iteration.
    ///
    /// - Parameter encode: appends the encoded command to the buffer it is given.
    func enqueue(_ encode: (inout [UInt8]) -> Void) {
        encode(&self.output)
        guard !self.flushScheduled, !self.watchingWritable else { return }
        self.flushScheduled = true
        self.loop.scheduleFlush(self)
    }

    /// Closes the socket without reporting anything.
    func close() {
        guard self.fd >= 0 else { return }
        self.loop.deregister(self.fd)
        Socket.close(self.fd)
        self.fd = -1
        self.isOpen = false
        self.output = []
        self.outputStart = 0
        self.input = []
    }

    // MARK: Writing

    func flush() {
        self.flushScheduled = false
        guard self.fd >= 0, self.isOpen else { return }
        self.writePending()
    }

    private func writePending() {
        while self.outputStart < self.output.count {
            let start = self.outputStart
            let result: IOResult<Int>
            do {
                result = try self.output.withUnsafeBytes { bytes throws(IOError) in
                    try Socket.send(self.fd, UnsafeRawBufferPointer(rebasing: bytes[start...]))
                }
            } catch {
                self.fail(.connectionLost)
                return
            }
            guard case .processed(let written) = result else {
                self.compactOutput()
                self.watchWritable(true)
                return
            }
            self.outputStart += written
        }
        // Everything went out: keep a modest buffer for the next batch, give back a large one.
        self.output.removeAll(keepingCapacity: self.output.capacity <= 1 << 20)
        self.outputStart = 0
        self.watchWritable(false)
    }

    /// Drops the written prefix once it is at least half the buffer: each byte is moved at most once on average.
    private func compactOutput() {
        guard self.outputStart >= 64 * 1024, self.outputStart * 2 >= self.output.count else { return }
        self.output.removeSubrange(0..<self.outputStart)
        self.outputStart = 0
    }

    private func watchWritable(_ watch: Bool) {
        guard watch != self.watchingWritable, self.fd >= 0 else { return }
        self.watchingWritable = watch
        self.loop.modify(self.fd, for: watch ? [.readable, .writable] : [.readable])
    }

    // MARK: Events

    func handleEvents(_ events: EventSet) {
        guard self.fd >= 0 else { return }
        if !self.isOpen {
            guard !events.isDisjoint(with: [.writable, .error, .hangup]) else { return }
            let error = Socket.pendingError(self.fd)
            guard error == 0 else {
                let cause = IOError(errnoCode: error, function: "connect")
                self.fail(.connectFailed("\(self.address.map { "\($0)" } ?? "?"): \(cause)"))
                return
            }
            self.isOpen = true
            self.client?.connectionDidOpen(self)
            guard self.fd >= 0 else { return }
            self.writePending()
            return
        }
        if events.contains(.writable) {
            self.writePending()
            guard self.fd >= 0 else { return }
        }
        if !events.isDisjoint(with: [.readable, .readHangup, .hangup, .error]) {
            self.readAvailable()
        }
    }

    private func readAvailable() {
        let buffer = self.loop.receiveBuffer
        // A bounded number of reads per wakeup keeps one busy connection from starving the others on the loop.
        for _ in 0..<8 {
            guard self.fd >= 0 else { return }
            let result: IOResult<Int>
            do {
                result = try Socket.read(self.fd, into: buffer)
            } catch {
                self.fail(.connectionLost)
                return
            }
            guard case .processed(let count) = result else { return }
            guard count > 0 else {
                self.fail(.connectionLost)
                return
            }
            self.process(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            if count < buffer.count { return }
        }
    }

    /// Parses and delivers every complete reply in `bytes` (behind any partial reply already held), then keeps the
    /// rest. Delivery may close the connection: parsing stops as soon as it does.
    private func process(_ bytes: UnsafeRawBufferPointer) {
        if self.input.isEmpty {
            var offset = 0
            while self.fd >= 0 {
                let rest = UnsafeRawBufferPointer(rebasing: bytes[offset...])
                guard let consumed = self.parseAndDeliver(rest) else {
                    if self.fd >= 0 { self.input.append(contentsOf: rest) }
                    return
                }
                offset += consumed
            }
            return
        }
        self.input.append(contentsOf: bytes)
        var start = 0
        while self.fd >= 0 {
            let next = start
            let result = self.input.withUnsafeBytes { input in
                self.parser.parse(UnsafeRawBufferPointer(rebasing: input[next...]))
            }
            guard let consumed = self.deliver(result) else { break }
            start += consumed
        }
        guard self.fd >= 0 else { return }
        if start == self.input.count {
            self.input.removeAll(keepingCapacity: self.input.capacity <= 1 << 20)
        } else if start > 0 {
            // The rest is the start of one partial reply: from now on it stays at the front until it completes.
            self.input.removeSubrange(0..<start)
        }
    }

    private func parseAndDeliver(_ bytes: UnsafeRawBufferPointer) -> Int? {
        self.deliver(self.parser.parse(bytes))
    }

    /// Hands a parsed reply to the client; returns the bytes it took, or nil when parsing stops here.
    private func deliver(_ result: RESPParser.Result) -> Int? {
        switch result {
        case .incomplete:
            return nil
        case .value(let value, let consumed):
            self.client?.connection(self, didReceive: value)
            return consumed
        case .failure(let error):
            self.fail(.protocolError(error.description))
            return nil
        }
    }

    /// Closes the socket and tells the client why.
    private func fail(_ error: RedisError) {
        self.close()
        self.client?.connection(self, didFailWith: error)
    }
}
