import Rooms

/// The webhook feed of a single process: the embedded store's committed log in commit order, and each endpoint's
/// cursor in the store (`SQLiteWebhookLog`). The process holds every endpoint's lease; nothing to claim.
///
/// Confined to the thread of the loop that `execute` runs work on; the store's file is opened there on first use,
/// through a connection of its own, and opened again after a failure.
public final class SQLiteWebhookFeed: WebhookFeed {
    private let path: String
    private let committedPosition: () -> Int64
    private let execute: (@escaping () -> Void) -> Void
    private var log: SQLiteWebhookLog?
    private var positions: [String: Int64] = [:]

    /// How long an endpoint that is up to date waits before looking again, in milliseconds: a slow poll behind the
    /// news of each commit (`WebhookDispatcher.tellOfNewEntries()`), which wakes it at once.
    public let idleWaitMilliseconds: Int64
    /// How long an endpoint waits after the store failed, in milliseconds.
    public let retryMilliseconds: Int64 = 1_000

    /// - Parameters:
    ///   - path: the store's database file (the gateway's store creates it).
    ///   - committedPosition: the position of the newest committed entry (`SQLiteRoomStore.committedPosition`).
    ///   - idleWaitMilliseconds: how long an up-to-date endpoint waits before looking again when nobody tells it of
    ///     new entries; default a second.
    ///   - execute: runs work on the loop soon (`EventLoop.execute`), for the completions.
    public init(
        path: String, committedPosition: @escaping () -> Int64, idleWaitMilliseconds: Int64 = 1_000,
        execute: @escaping (@escaping () -> Void) -> Void
    ) {
        self.path = path
        self.committedPosition = committedPosition
        self.idleWaitMilliseconds = idleWaitMilliseconds
        self.execute = execute
    }

    /// Nothing to open: the store's file is opened on first use.
    public func start() {}

    /// Closes the store's connection.
    public func stop() {
        self.log = nil
        self.positions = [:]
    }

    /// Always granted: one process delivers for every endpoint.
    ///
    /// - Parameters:
    ///   - endpoint: the endpoint's name.
    ///   - completion: told true.
    public func claim(_ endpoint: String, completion: @escaping (Bool) -> Void) {
        self.execute { completion(true) }
    }

    /// Always true.
    ///
    /// - Parameter endpoint: the endpoint's name.
    public func holds(_ endpoint: String) -> Bool { true }

    /// The committed entries after the endpoint's position, in commit order (`WebhookFeed.read`).
    ///
    /// - Parameters:
    ///   - endpoint: the endpoint's name.
    ///   - limit: the most entries.
    ///   - completion: the entries, or the store's failure.
    public func read(
        _ endpoint: String, limit: Int, completion: @escaping (Result<[WebhookFeedItem], WebhookFeedError>) -> Void
    ) {
        let result: Result<[WebhookFeedItem], WebhookFeedError>
        do {
            let log = try self.opened()
            let position: Int64
            if let known = self.positions[endpoint] {
                position = known
            } else {
                position = try log.position(of: endpoint)
                self.positions[endpoint] = position
            }
            if self.committedPosition() <= position {
                result = .success([])
            } else {
                result = .success(
                    try log.items(after: position, limit: limit).map { item in
                        WebhookFeedItem(
                            marker: String(item.position), room: item.room, sequence: item.sequence, time: item.time,
                            eventName: item.eventName, message: item.message)
                    })
            }
        } catch {
            self.log = nil
            self.positions = [:]
            result = .failure(WebhookFeedError(error.description))
        }
        self.execute { completion(result) }
    }

    /// Moves the endpoint's position past `consumed` and records its per-room cursors and dead letters in one
    /// transaction (`WebhookFeed.advance`).
    ///
    /// - Parameters:
    ///   - endpoint: the endpoint's name.
    ///   - consumed: the entries done with.
    ///   - delivered: the entries sent.
    ///   - deadLetterError: why they were given up on, if they were.
    ///   - time: now, in milliseconds.
    ///   - completion: true, or the store's failure.
    public func advance(
        _ endpoint: String, consumed: [WebhookFeedItem], delivered: [WebhookFeedItem], deadLetterError: String?,
        time: Int64, completion: @escaping (Result<Bool, WebhookFeedError>) -> Void
    ) {
        let result: Result<Bool, WebhookFeedError>
        if let last = consumed.last, let position = Int64(last.marker) {
            do {
                let items = delivered.map { item in
                    SQLiteWebhookLog.Item(
                        position: Int64(item.marker) ?? 0, room: item.room, sequence: item.sequence, time: item.time,
                        eventName: item.eventName, message: [])
                }
                try self.opened().advance(
                    endpoint, to: position, items: items, deadLetterError: deadLetterError, time: time)
                self.positions[endpoint] = position
                result = .success(true)
            } catch {
                self.log = nil
                self.positions = [:]
                result = .failure(WebhookFeedError(error.description))
            }
        } else {
            result = .success(true)
        }
        self.execute { completion(result) }
    }

    private func opened() throws(RoomStoreFailure) -> SQLiteWebhookLog {
        if let log = self.log { return log }
        let log = try SQLiteWebhookLog(path: self.path)
        self.log = log
        return log
    }
}

@available(*, unavailable) extension SQLiteWebhookFeed: Sendable {}
