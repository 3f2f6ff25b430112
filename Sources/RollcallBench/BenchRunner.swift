import EventIO
import RollcallClient
import Synchronization
import TokenAuth

#if canImport(Glibc)
import Glibc
#endif

/// Runs a scenario on client event loops and reports what it measured.
///
/// Every phase is bounded: setup (connecting, joining) waits at most 10 s, the load lasts `duration` seconds,
/// draining waits at most the reply timeout, and closing at most 2 s, so a run always ends by itself.
public enum BenchRunner {
    /// The longest the setup phase waits for connections to open and join.
    static let setupLimit: Double = 10

    /// Runs `options`.
    ///
    /// - Parameters:
    ///   - options: the scenario and its parameters.
    ///   - progress: called about once a second with a status line (from the calling thread).
    /// - Returns: the report.
    /// - Throws: `BenchError` for invalid options or an environment that cannot run them.
    public static func run(
        _ options: BenchOptions, progress: ((String) -> Void)? = nil
    ) throws(BenchError) -> BenchReport {
        try options.validate()
        let totalConnections: Int
        switch options.scenario {
        case .fanout: totalConnections = options.rooms * (options.subscribers + 1)
        case .roster: totalConnections = options.participants + options.subscribers
        case .pubsub: totalConnections = options.subscribers + 1
        default: totalConnections = options.connections
        }
        let fileLimit = System.raiseOpenFileLimit()
        guard fileLimit >= totalConnections + 64 else {
            throw BenchError("the open-files limit (\(fileLimit)) is too low for \(totalConnections) connections")
        }
        var tlsContext: TLSContext?
        if options.target.isSecure {
            do {
                tlsContext = try TLSContext.makeClient(verifyPeer: false, trustedCertificatePath: nil)
            } catch {
                throw BenchError("cannot create the TLS client context: \(error)")
            }
        }
        var serverRSSBefore: Int?
        if let pid = options.serverPID {
            guard let rss = Self.residentSetSize(of: pid) else { throw BenchError("cannot read /proc/\(pid)/status") }
            serverRSSBefore = rss
        }

        // One loop, counters and driver per thread.
        var loops: [EventLoop] = []
        var drivers: [BenchDriver] = []
        var counters: [BenchCounters] = []
        let roomSpecs = options.scenario == .fanout ? try Self.roomSpecs(options) : []
        let rosterSpec = options.scenario == .roster ? try Self.rosterSpec(options) : nil
        var firstIndex = 0
        for index in 0..<options.threads {
            let loop: EventLoop
            do {
                loop = try EventLoop(index: index)
            } catch {
                throw BenchError("cannot create an event loop: \(error)")
            }
            let loopCounters = BenchCounters()
            let spread = options.scenario == .pubsub ? options.subscribers : options.connections
            let share = spread / options.threads + (index < spread % options.threads ? 1 : 0)
            let driver: BenchDriver
            switch options.scenario {
            case .echo:
                driver = EchoDriver(
                    loop: loop, options: options, counters: loopCounters, tlsContext: tlsContext,
                    connections: share, firstIndex: firstIndex)
            case .idle:
                driver = IdleDriver(
                    loop: loop, options: options, counters: loopCounters, tlsContext: tlsContext,
                    connections: share, firstIndex: firstIndex)
            case .connect:
                driver = ConnectDriver(
                    loop: loop, options: options, counters: loopCounters, tlsContext: tlsContext,
                    connections: share, firstIndex: firstIndex)
            case .fanout:
                let mine = roomSpecs.enumerated().filter { $0.offset % options.threads == index }.map(\.element)
                driver = FanoutDriver(
                    loop: loop, options: options, counters: loopCounters, tlsContext: tlsContext,
                    rooms: mine)
            case .pubsub:
                // The publisher takes the index after the last subscriber's.
                driver = PubSubDriver(
                    loop: loop, options: options, counters: loopCounters, tlsContext: tlsContext,
                    subscribers: share, firstIndex: firstIndex + (index == 0 ? 0 : 1), publishes: index == 0)
            case .roster:
                driver = RosterDriver(
                    loop: loop, options: options, counters: loopCounters, tlsContext: tlsContext,
                    spec: rosterSpec!, loopIndex: index, loopCount: options.threads)
            }
            firstIndex += share + (options.scenario == .pubsub && index == 0 ? 1 : 0)
            loops.append(loop)
            drivers.append(driver)
            counters.append(loopCounters)
        }
        let threads = loops.map { loop in EventLoopThread(name: "bench-\(loop.index)") { loop.run() } }
        func onEachLoop(_ body: @escaping (BenchDriver) -> Void) {
            for (loop, driver) in zip(loops, drivers) { loop.execute { body(driver) } }
        }
        /// Stops the load on every loop and waits (bounded) until each loop has done so, so nothing is sent after
        /// the counters are read for the drain.
        let stoppedLoops = Atomic<Int>(0)
        func stopLoadEverywhere() {
            stoppedLoops.store(0, ordering: .relaxed)
            onEachLoop { driver in
                driver.stopLoad()
                stoppedLoops.add(1, ordering: .releasing)
            }
            let deadline = EventLoop.monotonicNow() + 5_000_000_000
            while stoppedLoops.load(ordering: .acquiring) < loops.count && EventLoop.monotonicNow() < deadline {
                var pause = timespec(tv_sec: 0, tv_nsec: 1_000_000)
                nanosleep(&pause, nil)
            }
        }
        func total() -> BenchCounterValues { counters.reduce(BenchCounterValues()) { $0 + $1.snapshot() } }

        var reporter = ProgressReporter(scenario: options.scenario, sink: progress)
        func wait(seconds: Double, until done: () -> Bool = { false }) {
            let deadline = EventLoop.monotonicNow() + UInt64(max(seconds, 0) * 1e9)
            while EventLoop.monotonicNow() < deadline && !done() {
                var pause = timespec(tv_sec: 0, tv_nsec: 20_000_000)
                nanosleep(&pause, nil)
                reporter.tick(total())
            }
        }

        onEachLoop { $0.start() }
        var serverRSSAfter: Int?
        var loadStart = EventLoop.monotonicNow()
        var loadEnd = loadStart
        switch options.scenario {
        case .echo:
            wait(seconds: Self.setupLimit) {
                let values = total()
                return values.opened + values.connectFailures >= totalConnections
            }
            loadStart = EventLoop.monotonicNow()
            onEachLoop { $0.startLoad() }
            wait(seconds: options.duration)
            loadEnd = EventLoop.monotonicNow()
            stopLoadEverywhere()
            wait(seconds: options.replyTimeout + 0.5) { total().outstanding == 0 }
        case .fanout:
            wait(seconds: Self.setupLimit) {
                let values = total()
                return values.ready + values.connectFailures + values.errors >= totalConnections
            }
            loadStart = EventLoop.monotonicNow()
            onEachLoop { $0.startLoad() }
            wait(seconds: options.duration)
            loadEnd = EventLoop.monotonicNow()
            stopLoadEverywhere()
            wait(seconds: options.replyTimeout) {
                let values = total()
                return values.received + values.mismatched >= values.expected
            }
        case .pubsub:
            wait(seconds: Self.setupLimit) {
                let values = total()
                return values.opened + values.connectFailures >= totalConnections
            }
            // Subscriptions take effect; then every subscriber still open expects every message.
            wait(seconds: options.settle)
            let subscribers = total().ready
            let started = Atomic<Int>(0)
            onEachLoop { driver in
                (driver as! PubSubDriver).subscribersAtStart = subscribers
                started.add(1, ordering: .releasing)
            }
            wait(seconds: 5) { started.load(ordering: .acquiring) == loops.count }
            loadStart = EventLoop.monotonicNow()
            onEachLoop { $0.startLoad() }
            wait(seconds: options.duration)
            loadEnd = EventLoop.monotonicNow()
            stopLoadEverywhere()
            wait(seconds: options.replyTimeout) {
                let values = total()
                return values.received + values.mismatched >= values.expected
            }
        case .roster:
            wait(seconds: Self.setupLimit) {
                let values = total()
                return values.ready + values.connectFailures + values.errors >= totalConnections
            }
            loadStart = EventLoop.monotonicNow()
            onEachLoop { $0.startLoad() }
            wait(seconds: options.duration)
            loadEnd = EventLoop.monotonicNow()
            stopLoadEverywhere()
            // Every change acknowledged, then every observer at the last acknowledged sequence number (bounded).
            wait(seconds: options.replyTimeout) {
                let values = total()
                return values.acknowledged >= values.sent
            }
            let target = UInt64(total().highestSequence)
            onEachLoop { ($0 as! RosterDriver).awaitSequence(target) }
            wait(seconds: options.replyTimeout) { total().caughtUp >= options.subscribers }
        case .connect:
            onEachLoop { $0.startLoad() }
            wait(seconds: options.duration)
            loadEnd = EventLoop.monotonicNow()
            stopLoadEverywhere()
        case .idle:
            onEachLoop { $0.startLoad() }
            wait(seconds: options.duration) {
                let values = total()
                return values.opened + values.connectFailures >= totalConnections
            }
            let remaining = options.duration - Double(EventLoop.monotonicNow() - loadStart) / 1e9
            // Let the server settle before reading its memory, within the run's duration.
            wait(seconds: min(1, remaining))
            if let pid = options.serverPID { serverRSSAfter = Self.residentSetSize(of: pid) }
            wait(seconds: options.duration - Double(EventLoop.monotonicNow() - loadStart) / 1e9)
            loadEnd = EventLoop.monotonicNow()
        }
        onEachLoop { $0.closeAll() }
        wait(seconds: 2) { total().open == 0 }
        for (loop, driver) in zip(loops, drivers) {
            loop.execute {
                driver.closeAll()
                driver.stop()
                loop.stop()
            }
        }
        for thread in threads { thread.join() }

        var latency = LatencyHistogram()
        var deliveries = DeliveryTiming()
        var errors: [String] = []
        for driver in drivers {
            latency.merge(driver.histogram)
            deliveries.merge(driver.deliveries)
            errors += driver.errorSamples
        }
        let convergence = options.scenario == .roster ? Self.convergence(drivers.map { $0 as! RosterDriver }) : nil
        return BenchReport(
            scenario: options.scenario,
            target: options.target.description,
            elapsedSeconds: Double(loadEnd - loadStart) / 1e9,
            counters: total(),
            latency: latency,
            errorSamples: Array(errors.prefix(5)),
            serverRSSBefore: serverRSSBefore,
            serverRSSAfter: serverRSSAfter,
            convergence: convergence,
            compressionOffered: options.compression,
            deliveries: deliveries
        )
    }

    /// The roster room's tokens: participants get the room as `participant`, observers as `viewer`.
    static func rosterSpec(_ options: BenchOptions) throws(BenchError) -> RosterDriver.Spec {
        let signer = try Self.signer(options)
        let now = Int64(time(nil))
        let expiry = now + Int64(BenchOptions.maximumDuration) + 3600
        let room = "bench-roster"
        var spec = RosterDriver.Spec(room: room, participantTokens: [], observerTokens: [], participantIDs: [])
        do {
            for index in 0..<options.participants {
                let uid = "bench-participant-\(index)"
                spec.participantIDs.append(uid)
                spec.participantTokens.append(
                    try signer.sign(
                        TokenClaims(subject: uid, expiresAt: expiry, rooms: [room: .participant], issuedAt: now))
                )
            }
            for index in 0..<options.subscribers {
                spec.observerTokens.append(
                    try signer.sign(
                        TokenClaims(
                            subject: "bench-observer-\(index)", expiresAt: expiry, rooms: [room: .viewer], issuedAt: now
                        )
                    )
                )
            }
        } catch {
            throw BenchError("cannot sign tokens: \(error)")
        }
        return spec
    }

    static func signer(_ options: BenchOptions) throws(BenchError) -> TokenSigner {
        let key: TokenKey
        do {
            if let colon = options.key.firstIndex(of: ":") {
                key = try TokenKey(
                    keyID: String(options.key[..<colon]),
                    secret: String(options.key[options.key.index(after: colon)...]))
            } else {
                key = try TokenKey(secret: options.key)
            }
        } catch {
            throw BenchError("--key: \(error)")
        }
        return TokenSigner(key: key)
    }

    /// Room ids and tokens for fanout: the publisher's token has the room in `groups`, observers get it as viewers.
    static func roomSpecs(_ options: BenchOptions) throws(BenchError) -> [FanoutDriver.RoomSpec] {
        let signer = try Self.signer(options)
        let now = Int64(time(nil))
        let expiry = now + Int64(BenchOptions.maximumDuration) + 3600
        var specs: [FanoutDriver.RoomSpec] = []
        do {
            for room in 0..<options.rooms {
                let id = "bench-room-\(room)"
                let publisher = try signer.sign(
                    TokenClaims(subject: "bench-publisher-\(room)", expiresAt: expiry, groups: [id], issuedAt: now)
                )
                var observers: [String] = []
                for observer in 0..<options.subscribers {
                    observers.append(
                        try signer.sign(
                            TokenClaims(
                                subject: "bench-observer-\(room)-\(observer)", expiresAt: expiry,
                                rooms: [id: .viewer], issuedAt: now)
                        )
                    )
                }
                specs.append(FanoutDriver.RoomSpec(id: id, publisherToken: publisher, observerTokens: observers))
            }
        } catch {
            throw BenchError("cannot sign tokens: \(error)")
        }
        return specs
    }

    /// VmRSS of a process in bytes, from /proc/PID/status.
    public static func residentSetSize(of pid: Int32) -> Int? {
        let fd = open("/proc/\(pid)/status", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bytes.count < 65536 {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            bytes += chunk[0..<count]
        }
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") where line.hasPrefix("VmRSS:") {
            let digits = line.dropFirst(6).filter { $0.isNumber }
            return Int(String(digits)).map { $0 * 1024 }
        }
        return nil
    }
}
