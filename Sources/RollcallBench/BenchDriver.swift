import EventIO
import WebSocketCore

/// What one client loop runs for a scenario. Every method is called on the loop's thread.
class BenchDriver: BenchConnectionDelegate {
    let loop: EventLoop
    let options: BenchOptions
    let counters: BenchCounters
    let tlsContext: TLSContext?
    /// Latency samples (echo round trips, fanout deliveries, connect handshakes), in nanoseconds.
    var histogram = LatencyHistogram()
    /// When deliveries arrived, and how late those after the load were (fanout, pubsub).
    var deliveries = DeliveryTiming()
    /// When this loop stopped the load (monotonic nanoseconds); deliveries after it are late.
    private(set) var loadEndedAt = UInt64.max
    /// The first few error messages, for the report.
    private(set) var errorSamples: [String] = []
    /// The buffers this loop's connections share for compressed messages.
    let compressionBuffers = BenchCompressionBuffers()
    /// Whether the load phase is on (sending messages, opening connections).
    var isLoading = false
    /// Connections started and not yet open, with the time they started.
    private var pending: [ObjectIdentifier: BenchConnection] = [:]
    /// Connections waiting for a slot to start connecting.
    private var queued: [(BenchConnection, SocketAddress?)] = []
    private var queueHead = 0
    private var tickTimer: TimerID?
    private var isStopped = false
    /// Set by `closeAll`: connections still handshaking are abandoned, not failed.
    private var isClosingAll = false

    /// At most this many connections connect and upgrade at once per loop, so the listen backlog never overflows.
    static let maximumPendingConnections = 256
    /// The periodic check interval (timeouts, publishing).
    var tickInterval: UInt64 { 100_000_000 }

    init(loop: EventLoop, options: BenchOptions, counters: BenchCounters, tlsContext: TLSContext?) {
        self.loop = loop
        self.options = options
        self.counters = counters
        self.tlsContext = tlsContext
    }

    /// Starts the scenario's connections.
    func start() {
        self.scheduleTick()
    }

    /// Starts the measured load (after setup).
    func startLoad() {
        self.isLoading = true
    }

    /// Stops producing load; in-flight work drains.
    func stopLoad() {
        self.isLoading = false
        self.loadEndedAt = EventLoop.monotonicNow()
    }

    /// Records a fan-out delivery: its latency, and when it arrived.
    ///
    /// - Parameters:
    ///   - latency: receive time minus send time, in nanoseconds.
    ///   - now: the receive time, in monotonic nanoseconds.
    @inline(__always)
    func recordDelivery(latency: UInt64, at now: UInt64) {
        self.histogram.record(latency)
        self.deliveries.record(at: now, latency: latency, afterLoad: now > self.loadEndedAt)
    }

    /// Closes every connection.
    func closeAll() {
        self.isClosingAll = true
        self.queued.removeAll()
        self.queueHead = 0
    }

    /// Stops the periodic tick (before the loop ends).
    func stop() {
        self.isStopped = true
        if let timer = self.tickTimer { self.loop.cancelTimer(timer) }
    }

    /// Called every `tickInterval`.
    func tick(now: UInt64) {}

    private func scheduleTick() {
        guard !self.isStopped else { return }
        self.tickTimer = self.loop.scheduleTimer(afterNanoseconds: self.tickInterval) { [weak self] in
            guard let self else { return }
            self.tick(now: EventLoop.monotonicNow())
            self.checkHandshakeTimeouts()
            self.scheduleTick()
        }
    }

    // MARK: Opening connections

    /// Makes a connection to `path` (the target's path when nil) with this driver as its delegate.
    func makeConnection(index: Int, path: String? = nil, target: BenchTarget? = nil) -> BenchConnection {
        let connection = BenchConnection(
            index: index,
            loop: self.loop,
            target: target ?? self.options.target,
            path: path,
            tlsContext: self.tlsContext,
            offersCompression: self.options.compression,
            counters: self.counters,
            compressionBuffers: self.compressionBuffers
        )
        connection.delegate = self
        return connection
    }

    /// Starts `connection` now or when a pending slot frees up.
    func open(_ connection: BenchConnection) {
        let sources = self.options.sourceAddresses
        let source = sources.isEmpty ? nil : sources[connection.index % sources.count]
        if self.pending.count < Self.maximumPendingConnections {
            self.pending[ObjectIdentifier(connection)] = connection
            connection.start(from: source)
        } else {
            self.queued.append((connection, source))
        }
    }

    private func startQueued() {
        while self.pending.count < Self.maximumPendingConnections, self.queueHead < self.queued.count {
            let (connection, source) = self.queued[self.queueHead]
            self.queueHead += 1
            self.pending[ObjectIdentifier(connection)] = connection
            connection.start(from: source)
        }
        if self.queueHead == self.queued.count {
            self.queued.removeAll(keepingCapacity: true)
            self.queueHead = 0
        }
    }

    private func checkHandshakeTimeouts() {
        let limit = UInt64(max(self.options.replyTimeout, 5) * 1e9)
        let now = EventLoop.monotonicNow()
        for connection in self.pending.values where now &- connection.startedAt > limit {
            connection.abort("handshake timed out")
        }
    }

    /// Records an error message (the first few are kept).
    func noteError(_ message: String) {
        if self.errorSamples.count < 5 { self.errorSamples.append(message) }
    }

    // MARK: BenchConnectionDelegate

    func connectionDidOpen(_ connection: BenchConnection) {
        self.pending[ObjectIdentifier(connection)] = nil
        self.counters.add(.opened)
        self.counters.add(.open)
        self.didOpen(connection)
        self.startQueued()
    }

    func connection(
        _ connection: BenchConnection, didReceive opcode: WebSocketOpcode, payload: UnsafeMutableRawBufferPointer
    ) {}

    func connection(_ connection: BenchConnection, didCloseWith error: String?) {
        if self.pending.removeValue(forKey: ObjectIdentifier(connection)) != nil {
            guard !self.isClosingAll else { return }
            self.counters.add(.connectFailures)
            self.noteError(error ?? "closed before the upgrade completed")
            self.didFailToOpen(connection)
        } else {
            self.counters.add(.open, -1)
            if let error {
                self.counters.add(.errors)
                self.noteError(error)
            }
            self.didClose(connection, error: error)
        }
        self.startQueued()
    }

    /// Scenario hooks.
    func didOpen(_ connection: BenchConnection) {}
    func didFailToOpen(_ connection: BenchConnection) {}
    func didClose(_ connection: BenchConnection, error: String?) {}
}
