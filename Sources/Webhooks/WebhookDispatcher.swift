import EventIO
import Storage
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Delivers the committed room log to the configured endpoints: each endpoint on a thread of its own, reading the
/// store in commit order after its cursor, posting its events in batches (per room in `seq` order, since commit
/// order keeps each room's order), signed, retried with exponential backoff and full jitter until the dead-letter
/// time, and moving its cursor in the store after each acknowledged or given-up batch.
///
/// At least once: a delivery acknowledged but not yet recorded when the process ends is sent again after the
/// restart. Receivers deduplicate by `(room, seq)`. Memory stays bounded whatever the receivers do: the store is
/// the queue, and each endpoint holds at most one batch.
public final class WebhookDispatcher: Sendable {
    /// The settings.
    public let configuration: WebhookConfiguration
    /// Per endpoint, in the configuration's order.
    public let statistics: [WebhookStatistics]
    private let path: String
    private let committedPosition: @Sendable () -> Int64
    private let isRunning = Atomic<Bool>(false)
    private let threads = Mutex<[EventLoopThread]>([])
    private let tlsContext: TLSContext?
    private let log: @Sendable (String, [(String, String)]) -> Void

    /// - Parameters:
    ///   - configuration: the endpoints and delivery rules.
    ///   - storePath: the store's database file (opened again by each endpoint's thread).
    ///   - committedPosition: the position of the newest committed entry (`SQLiteRoomStore.committedPosition`).
    ///   - log: where dead letters and the first failure of a delivery are reported (message, fields).
    /// - Throws: `WebhookConfigurationError` when the TLS client context cannot be made.
    public init(
        configuration: WebhookConfiguration,
        storePath: String,
        committedPosition: @escaping @Sendable () -> Int64,
        log: @escaping @Sendable (String, [(String, String)]) -> Void = { _, _ in }
    ) throws(WebhookConfigurationError) {
        self.configuration = configuration
        self.path = storePath
        self.committedPosition = committedPosition
        self.log = log
        self.statistics = configuration.endpoints.map { WebhookStatistics(endpoint: $0.name) }
        if configuration.endpoints.contains(where: \.url.isSecure) {
            do {
                self.tlsContext = try TLSContext.makeClient(verifyPeer: true, trustedCertificatePath: nil)
            } catch {
                throw WebhookConfigurationError("cannot set up TLS for https:// endpoints: \(error)")
            }
        } else {
            self.tlsContext = nil
        }
    }

    /// Starts one delivering thread per endpoint.
    public func start() {
        guard !self.isRunning.exchange(true, ordering: .acquiringAndReleasing) else { return }
        for (index, endpoint) in self.configuration.endpoints.enumerated() {
            let worker = WebhookWorker(
                endpoint: endpoint, configuration: self.configuration, statistics: self.statistics[index],
                poster: WebhookPoster(
                    url: endpoint.url, timeoutMilliseconds: self.configuration.timeoutMilliseconds,
                    tlsContext: endpoint.url.isSecure ? self.tlsContext : nil),
                storePath: self.path, committedPosition: self.committedPosition,
                isRunning: { [self] in
                    self.isRunning.load(ordering: .relaxed)
                }, log: self.log)
            let thread = EventLoopThread(name: "rollcall-hook") { worker.run() }
            self.threads.withLock { $0.append(thread) }
        }
    }

    /// Stops the threads after their current delivery try (at most the delivery timeout).
    public func stop() {
        self.isRunning.store(false, ordering: .relaxed)
        let threads = self.threads.withLock { threads in
            defer { threads = [] }
            return threads
        }
        for thread in threads { thread.join() }
    }

    /// The names of the endpoints, for the store's retention.
    public var endpointNames: [String] { self.configuration.endpoints.map(\.name) }
}
