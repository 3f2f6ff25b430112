import EventIO
import Storage

#if canImport(Glibc)
import Glibc
#endif

/// One endpoint's delivering loop, on a thread of its own: wait for committed entries past the cursor, take the
/// next batch the endpoint wants, post it until it is acknowledged or its dead-letter time passes, move the cursor.
final class WebhookWorker {
    private let endpoint: WebhookEndpoint
    private let configuration: WebhookConfiguration
    private let statistics: WebhookStatistics
    private let poster: WebhookPoster
    private let storePath: String
    private let committedPosition: () -> Int64
    private let isRunning: () -> Bool
    private let log: (String, [(String, String)]) -> Void
    private var random = SystemRandomNumberGenerator()
    /// How long the loop sleeps when there is nothing new, in microseconds.
    private static let idleSleepMicroseconds: useconds_t = 5_000

    init(
        endpoint: WebhookEndpoint, configuration: WebhookConfiguration, statistics: WebhookStatistics,
        poster: WebhookPoster, storePath: String, committedPosition: @escaping () -> Int64,
        isRunning: @escaping () -> Bool, log: @escaping (String, [(String, String)]) -> Void
    ) {
        self.endpoint = endpoint
        self.configuration = configuration
        self.statistics = statistics
        self.poster = poster
        self.storePath = storePath
        self.committedPosition = committedPosition
        self.isRunning = isRunning
        self.log = log
    }

    func run() {
        var store: SQLiteWebhookLog?
        var position: Int64 = 0
        while self.isRunning() {
            do {
                if store == nil {
                    let opened = try SQLiteWebhookLog(path: self.storePath)
                    position = try opened.position(of: self.endpoint.name)
                    store = opened
                }
                guard let log = store else { continue }
                guard self.committedPosition() > position else {
                    self.statistics.lagMilliseconds.store(0, ordering: .relaxed)
                    usleep(Self.idleSleepMicroseconds)
                    continue
                }
                position = try self.deliverNext(from: log, after: position)
            } catch {
                self.log("webhook store error", [("endpoint", self.endpoint.name), ("error", "\(error)")])
                store = nil
                self.sleep(milliseconds: 1000)
            }
        }
    }

    /// Delivers the next batch after `position` (or skips entries the endpoint does not want) and returns the new
    /// position.
    private func deliverNext(from log: SQLiteWebhookLog, after position: Int64) throws(RoomStoreFailure) -> Int64 {
        let maximum = self.configuration.maximumBatch
        let items = try log.items(after: position, limit: maximum * 4)
        guard let lastRead = items.last else { return position }
        var batch: [SQLiteWebhookLog.Item] = []
        var end = lastRead.position
        for item in items where self.endpoint.accepts(room: item.room, eventName: item.eventName) {
            if batch.count == maximum {
                end = batch[batch.count - 1].position
                break
            }
            batch.append(item)
        }
        guard let first = batch.first else {
            try log.advance(self.endpoint.name, to: end, items: [], time: Self.now())
            return end
        }
        if batch.count == maximum { end = batch[batch.count - 1].position }
        var body: [UInt8] = Array(#"{"endpoint":"#.utf8)
        body += Array("\"\(self.endpoint.name)\",\"events\":[".utf8)
        for (index, item) in batch.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            body += item.message
        }
        body += Array("]}".utf8)
        var attempt = 0
        var firstFailure: Int64?
        while self.isRunning() {
            let now = Self.now()
            self.statistics.lagMilliseconds.store(Int(max(0, now - first.time)), ordering: .relaxed)
            let headers = [
                (
                    WebhookSignature.headerName,
                    WebhookSignature.header(body: body, secret: self.endpoint.secret, timestamp: now / 1000)
                ),
                ("Rollcall-Endpoint", self.endpoint.name),
                ("Rollcall-Delivery", "\(self.endpoint.name)-\(first.position)-\(end)"),
            ]
            let outcome: String
            do {
                let status = try self.poster.post(body: body, headers: headers)
                if (200..<300).contains(status) {
                    try log.advance(self.endpoint.name, to: end, items: batch, time: Self.now())
                    self.statistics.delivered.add(batch.count, ordering: .relaxed)
                    return end
                }
                outcome = "status \(status)"
            } catch let error as RoomStoreFailure {
                throw error
            } catch {
                outcome = "\(error)"
            }
            let failedAt = Self.now()
            if firstFailure == nil {
                firstFailure = failedAt
                self.log("webhook delivery failed", [("endpoint", self.endpoint.name), ("error", outcome)])
            }
            if failedAt - (firstFailure ?? failedAt) >= self.configuration.deadLetterAfterMilliseconds {
                try log.advance(self.endpoint.name, to: end, items: batch, deadLetterError: outcome, time: failedAt)
                self.statistics.failed.add(batch.count, ordering: .relaxed)
                self.log(
                    "webhook dead letters",
                    [
                        ("endpoint", self.endpoint.name), ("events", String(batch.count)), ("error", outcome),
                        ("first", "\(first.room)#\(first.sequence)"),
                    ])
                return end
            }
            self.statistics.retried.add(1, ordering: .relaxed)
            self.sleep(milliseconds: self.backoff(attempt: attempt))
            attempt += 1
        }
        return position
    }

    /// Full jitter: a random wait between zero and `base · 2^attempt`, capped.
    func backoff(attempt: Int) -> Int64 {
        let bound = min(
            self.configuration.retryMaximumMilliseconds,
            self.configuration.retryBaseMilliseconds << Int64(min(attempt, 30)))
        return bound <= 0 ? 0 : Int64.random(in: 0...bound, using: &self.random)
    }

    /// Sleeps in short slices, so that `stop()` is not kept waiting by a long backoff.
    private func sleep(milliseconds: Int64) {
        var left = milliseconds
        while left > 0 && self.isRunning() {
            let slice = min(left, 50)
            usleep(useconds_t(slice * 1000))
            left -= slice
        }
    }

    static func now() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    }
}

@available(*, unavailable) extension WebhookWorker: Sendable {}
