/// How webhooks are delivered: batches, timeouts, retries and the dead-letter rule.
public struct WebhookConfiguration: Hashable, Sendable {
    /// The endpoints.
    public var endpoints: [WebhookEndpoint]
    /// Most events in one delivery.
    public var maximumBatch: Int
    /// Time for connecting, sending and receiving the answer of one delivery, in milliseconds; a receiver that
    /// stalls longer counts as a failure (and the delivery is retried).
    public var timeoutMilliseconds: Int64
    /// The first retry waits up to this long, doubling per failure, in milliseconds (full jitter: a random wait
    /// between zero and the bound).
    public var retryBaseMilliseconds: Int64
    /// The longest wait between two tries, in milliseconds.
    public var retryMaximumMilliseconds: Int64
    /// A delivery still failing this long after its first failure is given up: its events are recorded as dead
    /// letters (in the store, and in the log) and the endpoint moves on, in milliseconds.
    public var deadLetterAfterMilliseconds: Int64

    /// - Parameters:
    ///   - endpoints: the endpoints.
    ///   - maximumBatch: default 100 events.
    ///   - timeoutMilliseconds: default 10 s.
    ///   - retryBaseMilliseconds: default 500 ms.
    ///   - retryMaximumMilliseconds: default 60 s.
    ///   - deadLetterAfterMilliseconds: default one hour.
    public init(
        endpoints: [WebhookEndpoint],
        maximumBatch: Int = 100,
        timeoutMilliseconds: Int64 = 10_000,
        retryBaseMilliseconds: Int64 = 500,
        retryMaximumMilliseconds: Int64 = 60_000,
        deadLetterAfterMilliseconds: Int64 = 3_600_000
    ) {
        self.endpoints = endpoints
        self.maximumBatch = maximumBatch
        self.timeoutMilliseconds = timeoutMilliseconds
        self.retryBaseMilliseconds = retryBaseMilliseconds
        self.retryMaximumMilliseconds = retryMaximumMilliseconds
        self.deadLetterAfterMilliseconds = deadLetterAfterMilliseconds
    }
}
