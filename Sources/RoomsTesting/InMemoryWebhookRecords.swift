import Rooms
import Synchronization

/// What a cluster keeps for webhooks, in memory, for tests: the rooms' committed entries, each endpoint's cursor
/// (`room → seq`), lease (holder and end) and dead letters, on a manual clock in milliseconds. Shared by the
/// `InMemoryWebhookFeed`s of several nodes, from any thread, so a test can stop the delivering node, move the clock
/// past its lease and watch another take over.
public final class InMemoryWebhookRecords: Sendable {
    private struct State {
        var now: Int64 = 1_000
        var entries: [String: [WebhookFeedItem]] = [:]
        var cursors: [String: [String: UInt64]] = [:]
        var leases: [String: (holder: String, until: Int64)] = [:]
        var deadLetters: [String: [WebhookFeedItem]] = [:]
        var advances: [String: Int] = [:]
    }

    private let state = Mutex(State())

    /// Empty records, the clock at 1 s.
    public init() {}

    /// The clock, in milliseconds.
    public var now: Int64 { self.state.withLock { $0.now } }

    /// Moves the clock on.
    ///
    /// - Parameter milliseconds: how far.
    public func advanceClock(by milliseconds: Int64) {
        self.state.withLock { $0.now += milliseconds }
    }

    /// Commits the next entry of a room (`seq` one past the room's last).
    ///
    /// - Parameters:
    ///   - room: the room.
    ///   - eventName: the event's wire name.
    ///   - message: the event message; by default `{"room":ROOM,"seq":SEQ}`.
    @discardableResult
    public func append(room: String, eventName: String = "meeting.message", message: [UInt8]? = nil) -> UInt64 {
        self.state.withLock { state in
            let sequence = UInt64(state.entries[room]?.count ?? 0) + 1
            let body = message ?? Array(#"{"room":"\#(room)","seq":\#(sequence)}"#.utf8)
            state.entries[room, default: []].append(
                WebhookFeedItem(
                    marker: "\(room):\(sequence)", room: room, sequence: sequence, time: state.now,
                    eventName: eventName, message: body))
            return sequence
        }
    }

    /// The endpoint's cursor: the last `seq` it was given per room.
    ///
    /// - Parameter endpoint: the endpoint's name.
    public func cursor(of endpoint: String) -> [String: UInt64] {
        self.state.withLock { $0.cursors[endpoint] ?? [:] }
    }

    /// The node holding the endpoint's lease now, if any.
    ///
    /// - Parameter endpoint: the endpoint's name.
    public func leaseHolder(of endpoint: String) -> String? {
        self.state.withLock { state in
            guard let lease = state.leases[endpoint], lease.until > state.now else { return nil }
            return lease.holder
        }
    }

    /// The entries the endpoint gave up on.
    ///
    /// - Parameter endpoint: the endpoint's name.
    public func deadLetters(of endpoint: String) -> [WebhookFeedItem] {
        self.state.withLock { $0.deadLetters[endpoint] ?? [] }
    }

    /// Takes or renews a lease: granted when it is free, lapsed, or already the node's.
    func claim(_ endpoint: String, node: String, leaseMilliseconds: Int64) -> Bool {
        self.state.withLock { state in
            if let lease = state.leases[endpoint], lease.holder != node, lease.until > state.now { return false }
            state.leases[endpoint] = (node, state.now + leaseMilliseconds)
            return true
        }
    }

    func holds(_ endpoint: String, node: String) -> Bool {
        self.state.withLock { state in
            guard let lease = state.leases[endpoint] else { return false }
            return lease.holder == node && lease.until > state.now
        }
    }

    /// Entries after the cursor, room by room in id order, each room's in `seq` order.
    func read(_ endpoint: String, limit: Int) -> [WebhookFeedItem] {
        self.state.withLock { state in
            var found: [WebhookFeedItem] = []
            let cursor = state.cursors[endpoint] ?? [:]
            for room in state.entries.keys.sorted() where found.count < limit {
                let after = cursor[room] ?? 0
                let entries = state.entries[room] ?? []
                found += entries.dropFirst(Int(after)).prefix(limit - found.count)
            }
            return found
        }
    }

    /// Moves the cursor past `consumed` while the node holds the lease; false when it does not.
    func advance(
        _ endpoint: String, node: String, consumed: [WebhookFeedItem], delivered: [WebhookFeedItem],
        deadLetter: Bool
    ) -> Bool {
        self.state.withLock { state in
            guard let lease = state.leases[endpoint], lease.holder == node, lease.until > state.now else {
                return false
            }
            for item in consumed {
                state.cursors[endpoint, default: [:]][item.room] = max(
                    state.cursors[endpoint]?[item.room] ?? 0, item.sequence)
            }
            if deadLetter { state.deadLetters[endpoint, default: []] += delivered }
            state.advances[endpoint, default: 0] += 1
            return true
        }
    }
}
