import EventIO

/// `idle`: opens connections, upgrades them and leaves them idle (answering pings) until closed.
final class IdleDriver: BenchDriver {
    private var connections: [BenchConnection] = []
    private let connectionCount: Int
    private let firstIndex: Int

    init(
        loop: EventLoop, options: BenchOptions, counters: BenchCounters, tlsContext: TLSContext?, connections: Int,
        firstIndex: Int
    ) {
        self.connectionCount = connections
        self.firstIndex = firstIndex
        super.init(loop: loop, options: options, counters: counters, tlsContext: tlsContext)
    }

    override func start() {
        super.start()
        self.connections.reserveCapacity(self.connectionCount)
        for local in 0..<self.connectionCount {
            let connection = self.makeConnection(index: self.firstIndex + local)
            self.connections.append(connection)
            self.open(connection)
        }
    }

    override func closeAll() {
        super.closeAll()
        for connection in self.connections { connection.close() }
    }
}

/// `connect`: `connections` slots, each opening a connection, completing the upgrade, closing it (Close frame,
/// then the server's end of stream) and starting the next, while the load phase lasts. Latency is the time from
/// `connect` to the 101 answer.
final class ConnectDriver: BenchDriver {
    private let slotCount: Int
    private let firstIndex: Int
    private var live: [BenchConnection?]
    private var started = 0

    init(
        loop: EventLoop, options: BenchOptions, counters: BenchCounters, tlsContext: TLSContext?, connections: Int,
        firstIndex: Int
    ) {
        self.slotCount = connections
        self.firstIndex = firstIndex
        self.live = Array(repeating: nil, count: connections)
        super.init(loop: loop, options: options, counters: counters, tlsContext: tlsContext)
    }

    override func startLoad() {
        super.startLoad()
        for slot in 0..<self.slotCount { self.launch(slot) }
    }

    private func launch(_ slot: Int) {
        guard self.isLoading else {
            self.live[slot] = nil
            return
        }
        // The index keeps the slot (for reuse) and varies the source address from one connection to the next.
        let connection = self.makeConnection(index: self.firstIndex + slot + self.slotCount * (self.started % 4096))
        self.started += 1
        self.live[slot] = connection
        self.open(connection)
    }

    private func slot(of connection: BenchConnection) -> Int { (connection.index - self.firstIndex) % self.slotCount }

    override func didOpen(_ connection: BenchConnection) {
        self.histogram.record(connection.openedAt &- connection.startedAt)
        self.counters.add(.received)
        connection.close()
    }

    override func didClose(_ connection: BenchConnection, error: String?) {
        self.launch(self.slot(of: connection))
    }

    override func didFailToOpen(_ connection: BenchConnection) {
        // A short pause: a server that refuses connections must not turn this into a busy loop.
        let slot = self.slot(of: connection)
        self.live[slot] = nil
        self.loop.scheduleTimer(afterNanoseconds: 10_000_000) { [weak self] in self?.launch(slot) }
    }

    override func closeAll() {
        super.closeAll()
        for connection in self.live { connection?.close() }
    }
}
