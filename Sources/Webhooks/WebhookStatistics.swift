import Synchronization

/// What the webhook deliveries have done, per endpoint, readable from any thread (for `/metrics`).
public final class WebhookStatistics: Sendable {
    /// The endpoint's name.
    public let endpoint: String
    /// Events delivered (acknowledged with a 2xx answer; a retried delivery counts once).
    public let delivered = Atomic<Int>(0)
    /// Deliveries tried again after a failure.
    public let retried = Atomic<Int>(0)
    /// Events given up on (dead letters).
    public let failed = Atomic<Int>(0)
    /// How far behind the log the endpoint is: now minus the time of the oldest event it has not had, in
    /// milliseconds; 0 when it has everything.
    public let lagMilliseconds = Atomic<Int>(0)
    /// Connections opened to the receiver (one carries many deliveries while the receiver keeps it open).
    public let connectionsOpened = Atomic<Int>(0)

    init(endpoint: String) {
        self.endpoint = endpoint
    }
}
