import Rooms

/// Retention: entries go by count and age per retention class, only behind each room's latest checkpoint (a room
/// can always be read back) and, while a webhook endpoint has not had them, not before the grace for undelivered
/// entries has passed.
extension SQLiteRoomStore {
    /// Drops what retention no longer keeps, and checkpoints older than the last eight of each room, in one
    /// transaction of its own. Call it now and then (the runtime does every ten seconds) on the rooms thread.
    ///
    /// - Parameters:
    ///   - now: the time, in milliseconds since the epoch.
    ///   - webhookEndpoints: the configured endpoints, whose undelivered entries stay for the grace time.
    /// - Returns: the number of entries dropped.
    /// - Throws: `RoomStoreError` when the store cannot be written.
    @discardableResult
    public func trim(now: Int64, webhookEndpoints: [String] = []) throws(RoomStoreError) -> Int {
        var dropped = 0
        do {
            var undeliveredFrom = Int64.max
            for endpoint in webhookEndpoints {
                let position = try self.database.integer(
                    "SELECT position FROM webhook_positions WHERE endpoint = ?", [.text(endpoint)])
                undeliveredFrom = min(undeliveredFrom, (position ?? 0) + 1)
            }
            self.writer.lock()
            defer { self.writer.unlock() }
            try self.database.execute("BEGIN IMMEDIATE")
            do throws(SQLiteError) {
                let delete = try self.database.statement(
                    """
                    DELETE FROM entries WHERE class = ?1
                      AND seq <= (SELECT MAX(seq) FROM checkpoints c WHERE c.room = entries.room)
                      AND (id < ?4 OR time < ?5)
                      AND (time < ?2 OR seq <= (SELECT e.seq FROM entries e WHERE e.room = entries.room
                                                AND e.class = ?1 ORDER BY e.seq DESC LIMIT 1 OFFSET ?3))
                    """)
                let graceEnd = now - self.configuration.undeliveredGraceMilliseconds
                for retentionClass in RetentionClass.allCases {
                    let retention = self.configuration.retention[retentionClass] ?? HistoryRetention()
                    try delete.run([
                        .integer(Int64(retentionClass.rawValue)), .integer(now - retention.maximumAgeMilliseconds),
                        .integer(Int64(retention.maximumEntries)), .integer(undeliveredFrom),
                        .integer(graceEnd),
                    ])
                    dropped += self.database.changes
                }
                try self.database.execute(
                    """
                    DELETE FROM checkpoints WHERE seq < (SELECT c.seq FROM checkpoints c WHERE c.room = checkpoints.room
                                                         ORDER BY c.seq DESC LIMIT 1 OFFSET 7)
                    """)
                try self.database.execute("COMMIT")
            } catch {
                try? self.database.execute("ROLLBACK")
                throw error
            }
        } catch {
            throw RoomStoreError("\(self.configuration.path): retention: \(error)")
        }
        self.statistics.entriesTrimmed += dropped
        return dropped
    }
}
