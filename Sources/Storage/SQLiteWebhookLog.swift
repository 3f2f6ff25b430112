import Rooms

/// The webhooks' view of the store, on a connection of its own (one per delivering thread): the committed log in
/// commit order, and each endpoint's cursor — its position in that order and the last sequence number it was
/// given per room — with the entries it gave up on.
public final class SQLiteWebhookLog {
    /// One committed entry as a webhook delivers it.
    public struct Item: Hashable, Sendable {
        /// Its position in commit order.
        public var position: Int64
        /// The room it belongs to.
        public var room: String
        /// Its sequence number in the room.
        public var sequence: UInt64
        /// When it was applied, in milliseconds since the epoch.
        public var time: Int64
        /// The event's wire name.
        public var eventName: String
        /// The event message as subscribers got it, JSON text.
        public var message: [UInt8]
    }

    private let database: SQLiteDatabase

    /// Opens a connection to the store's file (the gateway's store must have created it).
    ///
    /// - Parameter path: the database file.
    /// - Throws: `RoomStoreFailure` when the file cannot be opened.
    public init(path: String) throws(RoomStoreFailure) {
        do {
            self.database = try SQLiteDatabase(path: path)
        } catch {
            throw RoomStoreFailure("\(path): \(SQLiteSchema.explain(error))")
        }
    }

    /// The endpoint's position: every committed entry up to it was delivered or given up on (0 when new).
    ///
    /// - Parameter endpoint: the endpoint's name.
    public func position(of endpoint: String) throws(RoomStoreFailure) -> Int64 {
        do {
            return try self.database.integer(
                "SELECT position FROM webhook_positions WHERE endpoint = ?", [.text(endpoint)]) ?? 0
        } catch {
            throw RoomStoreFailure("webhook position of '\(endpoint)': \(error)")
        }
    }

    /// Committed entries after a position, in commit order.
    ///
    /// - Parameters:
    ///   - position: entries after this one.
    ///   - limit: the most entries to return.
    public func items(after position: Int64, limit: Int) throws(RoomStoreFailure) -> [Item] {
        do {
            let statement = try self.database.statement(
                "SELECT id, room, seq, time, event, COALESCE(webhook_message, message) FROM entries WHERE id > ? "
                    + "ORDER BY id LIMIT ?")
            try statement.bind([.integer(position), .integer(Int64(limit))])
            defer { statement.reset() }
            var items: [Item] = []
            while try statement.step() {
                items.append(
                    Item(
                        position: statement.integer(0), room: statement.text(1), sequence: UInt64(statement.integer(2)),
                        time: statement.integer(3), eventName: statement.text(4), message: statement.bytes(5)))
            }
            return items
        } catch {
            throw RoomStoreFailure("webhook read after \(position): \(error)")
        }
    }

    /// Moves an endpoint's cursor: its position, the rooms' sequence numbers it was given, and (when it gave up on
    /// them) the entries it dead-lettered, in one transaction.
    ///
    /// - Parameters:
    ///   - endpoint: the endpoint's name.
    ///   - position: its new position.
    ///   - items: the entries delivered or given up on.
    ///   - deadLetterError: why they were given up on; nil when they were delivered.
    ///   - time: now, in milliseconds.
    public func advance(
        _ endpoint: String, to position: Int64, items: [Item], deadLetterError: String? = nil, time: Int64
    ) throws(RoomStoreFailure) {
        do {
            try self.database.execute("BEGIN IMMEDIATE")
            do {
                try self.database.statement(
                    "INSERT INTO webhook_positions (endpoint, position) VALUES (?, ?) "
                        + "ON CONFLICT (endpoint) DO UPDATE SET position = excluded.position"
                ).run([.text(endpoint), .integer(position)])
                var last: [String: UInt64] = [:]
                for item in items { last[item.room] = max(last[item.room] ?? 0, item.sequence) }
                let cursor = try self.database.statement(
                    "INSERT INTO webhook_cursors (endpoint, room, seq) VALUES (?, ?, ?) "
                        + "ON CONFLICT (endpoint, room) DO UPDATE SET seq = excluded.seq")
                for (room, sequence) in last.sorted(by: { $0.key < $1.key }) {
                    try cursor.run([.text(endpoint), .text(room), .integer(Int64(sequence))])
                }
                if let deadLetterError {
                    let dead = try self.database.statement(
                        "INSERT INTO webhook_dead_letters (endpoint, room, seq, time, error) VALUES (?, ?, ?, ?, ?)")
                    for item in items {
                        try dead.run([
                            .text(endpoint), .text(item.room), .integer(Int64(item.sequence)), .integer(time),
                            .text(deadLetterError),
                        ])
                    }
                }
                try self.database.execute("COMMIT")
            } catch {
                try? self.database.execute("ROLLBACK")
                throw error
            }
        } catch {
            throw RoomStoreFailure("webhook cursor of '\(endpoint)': \(error)")
        }
    }

    /// The oldest position some of the given endpoints has not passed (for retention), nil when none is behind.
    ///
    /// - Parameter endpoints: the configured endpoints' names.
    public func oldestUndelivered(of endpoints: [String]) throws(RoomStoreFailure) -> Int64? {
        guard !endpoints.isEmpty else { return nil }
        var oldest = Int64.max
        for endpoint in endpoints { oldest = min(oldest, try self.position(of: endpoint) + 1) }
        return oldest
    }
}

@available(*, unavailable) extension SQLiteWebhookLog: Sendable {}
