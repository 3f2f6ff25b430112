import Redis
import Rooms

/// The cluster-wide room listing: every room with records in Redis, found with `SCAN` over the rooms' sequence keys
/// under the key prefix, and paged by room id as the single-process listing is.
extension RedisRoomLog {
    /// Lists the rooms in Redis in id order after `after` (`SharedRoomLog.listRooms`): `SCAN` pages of
    /// `ClusterConfiguration.listingScanCount` keys until the scan ends or `listingScanLimit` keys were looked at,
    /// keeping only the `limit` smallest ids (memory stays bounded by the page), then their last sequence numbers
    /// and seats in one round trip.
    ///
    /// - Parameters:
    ///   - after: only rooms after this id; nil for the first page.
    ///   - limit: the most rooms.
    ///   - completion: the rooms, or `ERR_UNAVAILABLE` when Redis cannot be reached or does not answer.
    public func listRooms(
        after: String?, limit: Int, completion: @escaping (Result<[SharedRoomSummary], GatewayError>) -> Void
    ) {
        guard self.commands.isConnected else {
            self.loop.execute { completion(.failure(.unavailable)) }
            return
        }
        let pattern = Self.globEscaped(self.keys.roomKeyPrefix) + "*:seq"
        self.scanRooms(
            cursor: "0", pattern: pattern, after: after ?? "", limit: max(1, limit), found: [], scanned: 0
        ) { [weak self] result in
            guard let self else { return }
            switch result {
            case .failure:
                completion(.failure(.unavailable))
            case .success(let ids):
                self.summaries(of: ids, completion: completion)
            }
        }
    }

    /// One `SCAN` page after another, keeping the `limit` smallest ids after `after`.
    private func scanRooms(
        cursor: String, pattern: String, after: String, limit: Int, found: [String], scanned: Int,
        completion: @escaping (Result<[String], RedisError>) -> Void
    ) {
        let count = String(self.configuration.listingScanCount)
        self.commands.send(["SCAN", cursor, "MATCH", pattern, "COUNT", count]) { [weak self] result in
            guard let self else { return }
            guard case .success(.array(let reply?)) = result, reply.count == 2, let next = Self.text(reply[0]),
                case .array(let keys?) = reply[1]
            else {
                if case .failure(let error) = result {
                    completion(.failure(error))
                } else {
                    completion(.failure(.timedOut))
                }
                return
            }
            var found = found
            let prefix = self.keys.roomKeyPrefix
            for key in keys {
                guard let text = Self.text(key), text.hasPrefix(prefix), text.hasSuffix(":seq") else { continue }
                let id = String(text.dropFirst(prefix.count).dropLast(":seq".count))
                guard id > after, found.count < limit || id < found[found.count - 1] else { continue }
                var low = 0
                var high = found.count
                while low < high {
                    let middle = (low + high) / 2
                    if found[middle] < id { low = middle + 1 } else { high = middle }
                }
                // SCAN may return a key twice.
                guard low == found.count || found[low] != id else { continue }
                found.insert(id, at: low)
                if found.count > limit { found.removeLast() }
            }
            let total = scanned + self.configuration.listingScanCount
            guard next != "0", total < self.configuration.listingScanLimit else {
                if next != "0" { self.log?("the room listing stopped after looking at \(total) keys") }
                completion(.success(found))
                return
            }
            self.scanRooms(
                cursor: next, pattern: pattern, after: after, limit: limit, found: found, scanned: total,
                completion: completion)
        }
    }

    /// The rooms' last sequence numbers and seats (users of either class), in one pipelined round trip.
    private func summaries(
        of ids: [String], completion: @escaping (Result<[SharedRoomSummary], GatewayError>) -> Void
    ) {
        guard !ids.isEmpty else {
            completion(.success([]))
            return
        }
        final class Replies {
            var users: [Int]
            var failed = false
            init(count: Int) { self.users = Array(repeating: 0, count: count) }
        }
        let replies = Replies(count: ids.count)
        for (index, id) in ids.enumerated() {
            let base = "\(self.keys.roomKeyPrefix)\(id)"
            for seats in [base + ":seats:p", base + ":seats:r"] {
                self.commands.send(["HLEN", seats]) { result in
                    guard case .success(.integer(let count)) = result else {
                        replies.failed = true
                        return
                    }
                    replies.users[index] += Int(count)
                }
            }
        }
        self.commands.send(["MGET"] + ids.map { self.keys.room($0).sequence }) { result in
            guard !replies.failed, case .success(.array(let values?)) = result, values.count == ids.count else {
                completion(.failure(.unavailable))
                return
            }
            var rooms: [SharedRoomSummary] = []
            for (index, id) in ids.enumerated() {
                guard let sequence = Self.text(values[index]).flatMap({ UInt64($0) }), sequence > 0 else { continue }
                rooms.append(SharedRoomSummary(room: id, sequence: sequence, participants: replies.users[index]))
            }
            completion(.success(rooms))
        }
    }

    /// `text` with Redis's glob characters escaped, for a `MATCH` pattern that matches it literally.
    static func globEscaped(_ text: String) -> String {
        var escaped = ""
        for character in text {
            if "*?[]\\".contains(character) { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
    }
}
