import EventIO
import HTTPClient
import HTTPCore
import Rooms

#if canImport(Glibc)
import Glibc
#endif

/// One endpoint's deliveries, a state machine on the delivery loop: claim the endpoint (a lease in a cluster), read
/// the entries after its cursor, post the next batch the endpoint wants until it is acknowledged or its dead-letter
/// time passes, move the cursor, and again. Every wait is a timer: the idle wait, the backoff, the retry after a
/// feed failure. News of committed entries (`wake()`) ends the idle wait at once, or, when it comes during a read,
/// makes the worker read again before it goes idle.
final class WebhookWorker {
    private let endpoint: WebhookEndpoint
    private let configuration: WebhookConfiguration
    private let statistics: WebhookStatistics
    private let feed: any WebhookFeed
    private let client: WebhookClient?
    private let loop: EventLoop
    private let log: (String, [(String, String)]) -> Void
    private var random = SystemRandomNumberGenerator()
    private var isRunning = false
    private var timer: TimerID?
    private var holdsLease = false
    private var pending: Delivery?
    /// Whether the worker waits for new entries (up to date, its timer the feed's idle wait).
    private var isIdle = false
    /// Whether news of new entries came since the current read began.
    private var hasNews = false

    /// A batch in flight: what was read and done with, what is sent, and how its tries went.
    private struct Delivery {
        var consumed: [WebhookFeedItem]
        var batch: [WebhookFeedItem]
        var body: [UInt8]
        var attempt = 0
        var firstFailure: Int64?
    }

    /// - Parameters:
    ///   - endpoint: the endpoint.
    ///   - configuration: batches, retries, dead letters.
    ///   - statistics: the endpoint's counters.
    ///   - feed: where entries and the cursor are.
    ///   - client: the endpoint's HTTP client; nil only for tests of the backoff.
    ///   - loop: the delivery loop.
    ///   - log: where failures and dead letters are reported.
    init(
        endpoint: WebhookEndpoint, configuration: WebhookConfiguration, statistics: WebhookStatistics,
        feed: any WebhookFeed, client: WebhookClient?, loop: EventLoop,
        log: @escaping (String, [(String, String)]) -> Void
    ) {
        self.endpoint = endpoint
        self.configuration = configuration
        self.statistics = statistics
        self.feed = feed
        self.client = client
        self.loop = loop
        self.log = log
    }

    /// Starts delivering. Call on the loop.
    func start() {
        guard !self.isRunning else { return }
        self.isRunning = true
        self.next()
    }

    /// Stops after the current step: the request in flight is dropped (it is sent again from the cursor later).
    func stop() {
        self.isRunning = false
        if let timer = self.timer { self.loop.cancelTimer(timer) }
        self.timer = nil
        self.client?.close()
        self.pending = nil
    }

    /// News that entries were committed: an idle worker reads at once; a busy one reads again before it goes idle.
    /// Call on the loop.
    func wake() {
        guard self.isRunning else { return }
        guard self.isIdle else {
            self.hasNews = true
            return
        }
        self.isIdle = false
        if let timer = self.timer { self.loop.cancelTimer(timer) }
        self.timer = nil
        self.next()
    }

    /// The next step: claim the endpoint if need be, then read.
    private func next() {
        guard self.isRunning else { return }
        guard self.holdsLease, self.feed.holds(self.endpoint.name) else {
            self.holdsLease = false
            self.feed.claim(self.endpoint.name) { [weak self] held in
                guard let self, self.isRunning else { return }
                self.holdsLease = held
                if held { self.read() } else { self.wait(self.feed.retryMilliseconds) }
            }
            return
        }
        self.read()
    }

    private func read() {
        let maximum = self.configuration.maximumBatch
        self.hasNews = false
        self.feed.read(self.endpoint.name, limit: maximum * 4) { [weak self] result in
            guard let self, self.isRunning else { return }
            switch result {
            case .failure(let error):
                self.feedFailed(error)
            case .success(let items):
                guard !items.isEmpty else {
                    self.statistics.lagMilliseconds.store(0, ordering: .relaxed)
                    // News during the read may be of entries the read did not see yet.
                    guard !self.hasNews else {
                        self.next()
                        return
                    }
                    self.isIdle = true
                    self.schedule(self.feed.idleWaitMilliseconds) { [weak self] in
                        self?.isIdle = false
                        self?.next()
                    }
                    return
                }
                self.prepare(items)
            }
        }
    }

    /// Takes the next batch the endpoint wants from what was read; skips what it does not want.
    private func prepare(_ items: [WebhookFeedItem]) {
        let maximum = self.configuration.maximumBatch
        var batch: [WebhookFeedItem] = []
        var consumed = items.count
        for (index, item) in items.enumerated() where self.endpoint.accepts(room: item.room, eventName: item.eventName)
        {
            if batch.count == maximum {
                consumed = index
                break
            }
            batch.append(item)
        }
        let done = Array(items[..<consumed])
        guard !batch.isEmpty else {
            self.advance(consumed: done, delivered: [], deadLetterError: nil)
            return
        }
        var body: [UInt8] = Array(#"{"endpoint":"#.utf8)
        body += Array("\"\(self.endpoint.name)\",\"events\":[".utf8)
        for (index, item) in batch.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            body += item.message
        }
        body += Array("]}".utf8)
        self.pending = Delivery(consumed: done, batch: batch, body: body)
        self.post()
    }

    private func post() {
        guard self.isRunning, let delivery = self.pending, let client = self.client else { return }
        guard self.feed.holds(self.endpoint.name) else {
            // Another node took the endpoint over: it delivers from the cursor.
            self.pending = nil
            self.holdsLease = false
            self.next()
            return
        }
        let now = Self.now()
        let first = delivery.batch[0]
        self.statistics.lagMilliseconds.store(Int(max(0, now - first.time)), ordering: .relaxed)
        let headers: [(name: String, value: String)] = [
            (
                WebhookSignature.headerName,
                WebhookSignature.header(body: delivery.body, secret: self.endpoint.secret, timestamp: now / 1000)
            ),
            ("Rollcall-Endpoint", self.endpoint.name),
            (
                "Rollcall-Delivery",
                Self.deliveryID(endpoint: self.endpoint.name, first: first, last: delivery.consumed.last ?? first)
            ),
        ]
        client.post(self.request(body: delivery.body, headers: headers)) { [weak self] result in
            guard let self, self.isRunning, self.pending != nil else { return }
            switch result {
            case .success(let status) where (200..<300).contains(status):
                self.pending = nil
                self.advance(consumed: delivery.consumed, delivered: delivery.batch, deadLetterError: nil)
            case .success(let status):
                self.failed("status \(status)")
            case .failure(let error):
                self.failed(error.description)
            }
        }
    }

    /// A try failed: back off and try again, or give the batch up once its dead-letter time has passed.
    private func failed(_ outcome: String) {
        guard var delivery = self.pending else { return }
        let failedAt = Self.now()
        if delivery.firstFailure == nil {
            delivery.firstFailure = failedAt
            self.log("webhook delivery failed", [("endpoint", self.endpoint.name), ("error", outcome)])
        }
        if failedAt - (delivery.firstFailure ?? failedAt) >= self.configuration.deadLetterAfterMilliseconds {
            self.pending = nil
            let first = delivery.batch[0]
            self.advance(consumed: delivery.consumed, delivered: delivery.batch, deadLetterError: outcome) {
                [weak self] in
                guard let self else { return }
                self.statistics.failed.add(delivery.batch.count, ordering: .relaxed)
                self.log(
                    "webhook dead letters",
                    [
                        ("endpoint", self.endpoint.name), ("events", String(delivery.batch.count)), ("error", outcome),
                        ("first", "\(first.room)#\(first.sequence)"),
                    ])
            }
            return
        }
        self.statistics.retried.add(1, ordering: .relaxed)
        let wait = self.backoff(attempt: delivery.attempt)
        delivery.attempt += 1
        self.pending = delivery
        self.schedule(wait) { [weak self] in self?.post() }
    }

    /// Moves the cursor, then goes on; a lost lease drops the batch (the holder delivers it), a feed failure
    /// waits and reads again from the cursor.
    private func advance(
        consumed: [WebhookFeedItem], delivered: [WebhookFeedItem], deadLetterError: String?,
        moved: (() -> Void)? = nil
    ) {
        self.feed.advance(
            self.endpoint.name, consumed: consumed, delivered: delivered, deadLetterError: deadLetterError,
            time: Self.now()
        ) { [weak self] result in
            guard let self, self.isRunning else { return }
            switch result {
            case .success(true):
                if deadLetterError == nil { self.statistics.delivered.add(delivered.count, ordering: .relaxed) }
                moved?()
                self.next()
            case .success(false):
                self.log("webhook endpoint taken over by another node", [("endpoint", self.endpoint.name)])
                self.holdsLease = false
                self.next()
            case .failure(let error):
                self.feedFailed(error)
            }
        }
    }

    private func feedFailed(_ error: WebhookFeedError) {
        self.log("webhook store error", [("endpoint", self.endpoint.name), ("error", error.description)])
        self.pending = nil
        self.wait(self.feed.retryMilliseconds)
    }

    private func wait(_ milliseconds: Int64) {
        self.schedule(milliseconds) { [weak self] in self?.next() }
    }

    private func schedule(_ milliseconds: Int64, _ work: @escaping () -> Void) {
        guard self.isRunning else { return }
        self.timer = self.loop.scheduleTimer(afterNanoseconds: UInt64(max(0, milliseconds)) * 1_000_000) {
            [weak self] in
            self?.timer = nil
            work()
        }
    }

    /// The request: a `POST` to the endpoint's path, kept alive, with the delivery's headers and body.
    private func request(body: [UInt8], headers: [(name: String, value: String)]) -> HTTPClientRequest {
        HTTPClientRequest(
            method: "POST", target: self.endpoint.url.path,
            headers: [("User-Agent", "rollcall-webhooks"), ("Content-Type", "application/json")] + headers, body: body)
    }

    /// The `Rollcall-Delivery` header, the same for every try of one delivery: `ENDPOINT/FIRST/LAST`, the endpoint's
    /// name, the position of the first event sent and of the last entry read (past the last one sent when filters
    /// skipped entries), each percent-encoded (RFC 3986: every byte but `A-Z a-z 0-9 - . _ ~`), so the value is
    /// ASCII and splits at its two `/` whatever the name and the room ids hold. A position is the entry's number in
    /// the embedded store's log, or `ROOM:SEQ` in a cluster (split at its last `:`).
    ///
    /// - Parameters:
    ///   - endpoint: the endpoint's name.
    ///   - first: the first event sent.
    ///   - last: the last entry read.
    static func deliveryID(endpoint: String, first: WebhookFeedItem, last: WebhookFeedItem) -> String {
        [endpoint, first.marker, last.marker].map(PercentEncoding.encode).joined(separator: "/")
    }

    /// Full jitter: a random wait between zero and `base · 2^attempt`, capped.
    func backoff(attempt: Int) -> Int64 {
        let bound = min(
            self.configuration.retryMaximumMilliseconds,
            self.configuration.retryBaseMilliseconds << Int64(min(attempt, 30)))
        return bound <= 0 ? 0 : Int64.random(in: 0...bound, using: &self.random)
    }

    static func now() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    }
}

@available(*, unavailable) extension WebhookWorker: Sendable {}
