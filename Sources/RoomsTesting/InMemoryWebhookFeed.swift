import Rooms

/// One node's webhook feed over `InMemoryWebhookRecords`, for tests of delivery and of the takeover between nodes:
/// it claims an endpoint's lease as the Redis feed does (granted when free or lapsed), renews it with each read and
/// each move of the cursor, and refuses to move the cursor once the lease is another node's.
///
/// Confined to the loop that `execute` runs work on; completions run there, never inside the call.
public final class InMemoryWebhookFeed: WebhookFeed {
    private let records: InMemoryWebhookRecords
    private let node: String
    private let leaseMilliseconds: Int64
    private let execute: (@escaping () -> Void) -> Void
    /// How long an up-to-date endpoint waits before reading again, in milliseconds.
    public let idleWaitMilliseconds: Int64
    /// How long an endpoint waits between claims, in milliseconds.
    public let retryMilliseconds: Int64

    /// - Parameters:
    ///   - records: the shared records.
    ///   - node: this node's id.
    ///   - leaseMilliseconds: how long a claim or a renewal holds the lease, on the records' clock.
    ///   - idleWaitMilliseconds: the wait of an up-to-date endpoint; default 2 ms.
    ///   - retryMilliseconds: the wait between claims; default 10 ms.
    ///   - execute: runs work on the loop soon (`EventLoop.execute`).
    public init(
        records: InMemoryWebhookRecords, node: String, leaseMilliseconds: Int64 = 1_000,
        idleWaitMilliseconds: Int64 = 2, retryMilliseconds: Int64 = 10,
        execute: @escaping (@escaping () -> Void) -> Void
    ) {
        self.records = records
        self.node = node
        self.leaseMilliseconds = leaseMilliseconds
        self.idleWaitMilliseconds = idleWaitMilliseconds
        self.retryMilliseconds = retryMilliseconds
        self.execute = execute
    }

    /// Nothing to start: the records are in memory.
    public func start() {}

    /// Nothing to stop: a node that stops lets its leases lapse.
    public func stop() {}

    /// Takes or renews the endpoint's lease (`WebhookFeed.claim`).
    ///
    /// - Parameters:
    ///   - endpoint: the endpoint's name.
    ///   - completion: whether this node holds it.
    public func claim(_ endpoint: String, completion: @escaping (Bool) -> Void) {
        let held = self.records.claim(endpoint, node: self.node, leaseMilliseconds: self.leaseMilliseconds)
        self.execute { completion(held) }
    }

    /// Whether this node holds the endpoint's lease (`WebhookFeed.holds`).
    ///
    /// - Parameter endpoint: the endpoint's name.
    public func holds(_ endpoint: String) -> Bool { self.records.holds(endpoint, node: self.node) }

    /// The entries after the cursor, renewing the lease (`WebhookFeed.read`).
    ///
    /// - Parameters:
    ///   - endpoint: the endpoint's name.
    ///   - limit: the most entries.
    ///   - completion: the entries.
    public func read(
        _ endpoint: String, limit: Int, completion: @escaping (Result<[WebhookFeedItem], WebhookFeedError>) -> Void
    ) {
        _ = self.records.claim(endpoint, node: self.node, leaseMilliseconds: self.leaseMilliseconds)
        let items = self.records.read(endpoint, limit: limit)
        self.execute { completion(.success(items)) }
    }

    /// Moves the cursor while this node holds the lease (`WebhookFeed.advance`).
    ///
    /// - Parameters:
    ///   - endpoint: the endpoint's name.
    ///   - consumed: the entries done with.
    ///   - delivered: the entries sent.
    ///   - deadLetterError: set when they were given up on.
    ///   - time: now.
    ///   - completion: whether the cursor moved.
    public func advance(
        _ endpoint: String, consumed: [WebhookFeedItem], delivered: [WebhookFeedItem], deadLetterError: String?,
        time: Int64, completion: @escaping (Result<Bool, WebhookFeedError>) -> Void
    ) {
        let moved = self.records.advance(
            endpoint, node: self.node, consumed: consumed, delivered: delivered, deadLetter: deadLetterError != nil)
        if moved { _ = self.records.claim(endpoint, node: self.node, leaseMilliseconds: self.leaseMilliseconds) }
        self.execute { completion(.success(moved)) }
    }
}

@available(*, unavailable) extension InMemoryWebhookFeed: Sendable {}
