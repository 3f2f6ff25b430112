import EventIO
import HTTPClient
import Rooms
import Storage
import Synchronization

/// Delivers the committed room log to the configured endpoints, every endpoint on one event loop of the
/// dispatcher's own thread (no thread per endpoint): each reads its feed in order after its cursor, posts its
/// events in batches (per room in `seq` order), signed, retried with exponential backoff and full jitter until the
/// dead-letter time, and moves its cursor after each acknowledged or given-up batch. Each endpoint keeps one
/// HTTP/1.1 connection open between deliveries while its receiver allows it (`WebhookClient`).
///
/// At least once: a delivery acknowledged but not yet recorded when the process ends (or, in a cluster, when the
/// delivering node dies) is sent again by whoever delivers next. Receivers deduplicate by `(room, seq)`. Memory
/// stays bounded whatever the receivers do: the feed is the queue, and each endpoint holds at most one batch.
public final class WebhookDispatcher: @unchecked Sendable {
    /// The settings.
    public let configuration: WebhookConfiguration
    /// Per endpoint, in the configuration's order.
    public let statistics: [WebhookStatistics]
    private let makeFeed: (EventLoop) -> any WebhookFeed
    private let tlsContext: TLSContext?
    private let log: @Sendable (String, [(String, String)]) -> Void
    private let state = Mutex<Running?>(nil)
    /// Set while news of committed entries is on its way to the delivery loop, so that many commits send it once.
    private let newsOnItsWay = Atomic<Bool>(false)

    /// What runs while the dispatcher is started: its loop and thread, and what lives on the loop.
    private struct Running: @unchecked Sendable {
        var loop: EventLoop
        var thread: EventLoopThread
        var parts: Parts
    }

    /// Everything confined to the delivery loop.
    private final class Parts {
        var feed: (any WebhookFeed)?
        var workers: [WebhookWorker] = []
        var resolver: HostResolver?
    }

    /// - Parameters:
    ///   - configuration: the endpoints and delivery rules.
    ///   - feed: makes the feed on the delivery loop (the embedded store's, or a cluster's shared log's).
    ///   - log: where dead letters and the first failure of a delivery are reported (message, fields).
    /// - Throws: `WebhookConfigurationError` when the TLS client context cannot be made (for example, the
    ///   trusted certificates file cannot be read).
    public init(
        configuration: WebhookConfiguration,
        feed: @escaping (EventLoop) -> any WebhookFeed,
        log: @escaping @Sendable (String, [(String, String)]) -> Void = { _, _ in }
    ) throws(WebhookConfigurationError) {
        self.configuration = configuration
        self.makeFeed = feed
        self.log = log
        self.statistics = configuration.endpoints.map { WebhookStatistics(endpoint: $0.name) }
        if configuration.endpoints.contains(where: \.url.origin.isSecure) {
            do {
                self.tlsContext = try TLSContext.makeClient(
                    verifyPeer: true, trustedCertificatePath: configuration.trustedCertificatesPath)
            } catch {
                throw WebhookConfigurationError("cannot set up TLS for https:// endpoints: \(error)")
            }
        } else {
            self.tlsContext = nil
        }
    }

    /// A single process's deliveries, read from the embedded store's log.
    ///
    /// - Parameters:
    ///   - configuration: the endpoints and delivery rules.
    ///   - storePath: the store's database file (opened again on the delivery loop).
    ///   - committedPosition: the position of the newest committed entry (`SQLiteRoomStore.committedPosition`).
    ///   - log: where dead letters and the first failure of a delivery are reported (message, fields).
    /// - Throws: `WebhookConfigurationError` when the TLS client context cannot be made.
    public convenience init(
        configuration: WebhookConfiguration,
        storePath: String,
        committedPosition: @escaping @Sendable () -> Int64,
        log: @escaping @Sendable (String, [(String, String)]) -> Void = { _, _ in }
    ) throws(WebhookConfigurationError) {
        try self.init(
            configuration: configuration,
            feed: { loop in
                SQLiteWebhookFeed(path: storePath, committedPosition: committedPosition) { work in loop.execute(work) }
            }, log: log)
    }

    /// Starts the delivery loop's thread and every endpoint on it.
    ///
    /// - Throws: `WebhookConfigurationError` when the loop cannot be made.
    public func start() throws(WebhookConfigurationError) {
        let loop: EventLoop
        do {
            loop = try EventLoop(index: -1, receiveBufferSize: 64 * 1024)
        } catch {
            throw WebhookConfigurationError("cannot start the webhook loop: \(error)")
        }
        let parts = Parts()
        let started = self.state.withLock { state -> Bool in
            guard state == nil else { return false }
            state = Running(loop: loop, thread: EventLoopThread(name: "rollcall-hooks") { loop.run() }, parts: parts)
            return true
        }
        guard started else { return }
        self.newsOnItsWay.store(false, ordering: .releasing)
        let configuration = self.configuration
        let statistics = self.statistics
        let tlsContext = self.tlsContext
        let makeFeed = self.makeFeed
        let log = self.log
        loop.execute {
            let feed = makeFeed(loop)
            let resolver = HostResolver(loop: loop)
            parts.feed = feed
            parts.resolver = resolver
            feed.start()
            for (index, endpoint) in configuration.endpoints.enumerated() {
                let client = WebhookClient(
                    url: endpoint.url, loop: loop, tlsContext: endpoint.url.origin.isSecure ? tlsContext : nil,
                    resolver: resolver, configuration: configuration, statistics: statistics[index])
                let worker = WebhookWorker(
                    endpoint: endpoint, configuration: configuration, statistics: statistics[index], feed: feed,
                    client: client, loop: loop, log: log)
                parts.workers.append(worker)
                worker.start()
            }
        }
    }

    /// Stops every endpoint (a request in flight is dropped, and sent again from the cursor later) and the loop's
    /// thread.
    public func stop() {
        guard
            let running = self.state.withLock({ state -> Running? in
                defer { state = nil }
                return state
            })
        else { return }
        let parts = running.parts
        running.loop.execute {
            for worker in parts.workers { worker.stop() }
            parts.feed?.stop()
            parts.resolver?.stop()
            parts.workers = []
            parts.feed = nil
            parts.resolver = nil
        }
        running.loop.stop()
        running.thread.join()
    }

    /// Tells the endpoints that entries were committed: those that are up to date read at once instead of at their
    /// next look (the feed's idle wait, a slow poll behind this). Call it from any thread after a commit; news that
    /// comes while earlier news is on its way to the delivery loop goes with it.
    public func tellOfNewEntries() {
        guard !self.newsOnItsWay.exchange(true, ordering: .acquiringAndReleasing) else { return }
        guard let running = self.state.withLock({ $0 }) else {
            self.newsOnItsWay.store(false, ordering: .releasing)
            return
        }
        let parts = running.parts
        running.loop.execute {
            // Cleared before the workers look: a commit after this sends news again.
            self.newsOnItsWay.store(false, ordering: .releasing)
            for worker in parts.workers { worker.wake() }
        }
    }

    /// The names of the endpoints, for the store's retention.
    public var endpointNames: [String] { self.configuration.endpoints.map(\.name) }
}
