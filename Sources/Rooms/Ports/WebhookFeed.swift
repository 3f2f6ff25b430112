/// Where webhook deliveries read the committed room log and keep each endpoint's cursor: the embedded store of a
/// single process, or the shared log of a cluster, where one node at a time delivers for an endpoint while it holds
/// the endpoint's lease and the others take over when that lease lapses.
///
/// A port confined to one event loop, in the manner of `SharedRoomLog`: every call is made on the loop, and every
/// completion runs on it, never inside the call. Each room's entries come in `seq` order, without gaps (unless the
/// log was trimmed past the cursor first), starting after the endpoint's cursor.
public protocol WebhookFeed: AnyObject {
    /// Opens what the feed reads from (and keeps connecting), and starts renewing the leases it takes.
    func start()

    /// Stops reading and renewing; leases held lapse by themselves.
    func stop()

    /// How long an endpoint that found nothing new waits before reading again, in milliseconds.
    var idleWaitMilliseconds: Int64 { get }

    /// How long an endpoint waits after the feed failed, and between claims of an endpoint another process holds,
    /// in milliseconds.
    var retryMilliseconds: Int64 { get }

    /// Asks to deliver for an endpoint: true when this process holds its lease (it took it, or held it already).
    ///
    /// - Parameters:
    ///   - endpoint: the endpoint's name.
    ///   - completion: whether this process may deliver for the endpoint now.
    func claim(_ endpoint: String, completion: @escaping (Bool) -> Void)

    /// Whether this process still holds the endpoint's lease, as far as it knows now.
    ///
    /// - Parameter endpoint: the endpoint's name.
    func holds(_ endpoint: String) -> Bool

    /// The next entries after the endpoint's cursor: each room's in `seq` order.
    ///
    /// - Parameters:
    ///   - endpoint: the endpoint's name.
    ///   - limit: the most entries to return.
    ///   - completion: the entries (none when the endpoint is up to date), or why they cannot be read.
    func read(
        _ endpoint: String, limit: Int, completion: @escaping (Result<[WebhookFeedItem], WebhookFeedError>) -> Void)

    /// Moves the endpoint's cursor past `consumed` (a prefix of what `read` returned), recording `delivered` (the
    /// entries that were sent, a subset of `consumed`) as dead letters when `deadLetterError` is set.
    ///
    /// - Parameters:
    ///   - endpoint: the endpoint's name.
    ///   - consumed: the entries read and done with, in the order `read` gave them.
    ///   - delivered: the entries acknowledged (or given up on) by the receiver.
    ///   - deadLetterError: why `delivered` were given up on; nil when they were acknowledged.
    ///   - time: now, in milliseconds since the epoch.
    ///   - completion: true when the cursor moved, false when this process no longer holds the lease (nothing
    ///     moved; the holder delivers from the cursor), or why the cursor cannot be written.
    func advance(
        _ endpoint: String, consumed: [WebhookFeedItem], delivered: [WebhookFeedItem], deadLetterError: String?,
        time: Int64, completion: @escaping (Result<Bool, WebhookFeedError>) -> Void)
}
