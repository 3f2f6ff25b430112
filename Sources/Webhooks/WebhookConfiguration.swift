/// How webhooks are delivered: batches, timeouts, retries, the dead-letter rule, and the HTTP client's bounds.
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
    /// A PEM file of the certificates that `https://` receivers' certificates must chain to, instead of the
    /// system's trust store; nil for the system's.
    public var trustedCertificatesPath: String?
    /// Time for the TCP connect (and the TLS handshake) of a new connection, in milliseconds; the delivery timeout
    /// bounds it too.
    public var connectTimeoutMilliseconds: Int64
    /// A connection kept for the next delivery is closed after this long unused, in milliseconds.
    public var idleConnectionMilliseconds: Int64
    /// The largest answer head (status line and headers) read, in bytes.
    public var maximumResponseHeadBytes: Int
    /// The largest answer body read (and discarded) to keep the connection; a larger one closes it, in bytes.
    public var maximumResponseBodyBytes: Int

    /// - Parameters:
    ///   - endpoints: the endpoints.
    ///   - maximumBatch: default 100 events.
    ///   - timeoutMilliseconds: default 10 s.
    ///   - retryBaseMilliseconds: default 500 ms.
    ///   - retryMaximumMilliseconds: default 60 s.
    ///   - deadLetterAfterMilliseconds: default one hour.
    ///   - trustedCertificatesPath: default nil (the system's trust store).
    ///   - connectTimeoutMilliseconds: default 5 s.
    ///   - idleConnectionMilliseconds: default 15 s.
    ///   - maximumResponseHeadBytes: default 16 KiB.
    ///   - maximumResponseBodyBytes: default 64 KiB.
    public init(
        endpoints: [WebhookEndpoint],
        maximumBatch: Int = 100,
        timeoutMilliseconds: Int64 = 10_000,
        retryBaseMilliseconds: Int64 = 500,
        retryMaximumMilliseconds: Int64 = 60_000,
        deadLetterAfterMilliseconds: Int64 = 3_600_000,
        trustedCertificatesPath: String? = nil,
        connectTimeoutMilliseconds: Int64 = 5_000,
        idleConnectionMilliseconds: Int64 = 15_000,
        maximumResponseHeadBytes: Int = 16 * 1024,
        maximumResponseBodyBytes: Int = 64 * 1024
    ) {
        self.endpoints = endpoints
        self.maximumBatch = maximumBatch
        self.timeoutMilliseconds = timeoutMilliseconds
        self.retryBaseMilliseconds = retryBaseMilliseconds
        self.retryMaximumMilliseconds = retryMaximumMilliseconds
        self.deadLetterAfterMilliseconds = deadLetterAfterMilliseconds
        self.trustedCertificatesPath = trustedCertificatesPath
        self.connectTimeoutMilliseconds = connectTimeoutMilliseconds
        self.idleConnectionMilliseconds = idleConnectionMilliseconds
        self.maximumResponseHeadBytes = maximumResponseHeadBytes
        self.maximumResponseBodyBytes = maximumResponseBodyBytes
    }
}
