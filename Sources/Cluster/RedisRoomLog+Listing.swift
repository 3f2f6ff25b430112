import Redis
import Rooms

/// The cluster-wide room listing: every room with records in Redis, found with `SCAN` over the rooms' sequence keys
/// under the key prefix on every primary (in a Redis Cluster each holds only its slots' keys), and paged by room id
/// as the single-process listing is.
extension RedisRoomLog {
    /// Lists the rooms in Redis in id order after `after` (`SharedRoomLog.listRooms`): on each primary in turn,
    /// `SCAN` pages of `ClusterConfiguration.listingScanCount` keys until its scan ends, or until `listingScanLimit`
    /// keys were looked at in all,
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
        let pattern = Self.globEscaped(self.keys.roomKeyPrefix) + "*}:seq"
        self.scanRooms(
            self.commands.primaries[...], cursor: "0", pattern: pattern, after: after ?? "", limit: max(1, limit),
            found: [], scanned: 0
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

    /// One `SCAN` page after another on the first of `primaries`, then on the next, keeping the `limit` smallest ids
    /// after `after`.
    private func scanRooms(
        _ primaries: ArraySlice<RedisNodeAddress>, cursor: String, pattern: String, after: String, limit: Int,
        found: [String], scanned: Int, completion: @escaping (Result<[String], RedisError>) -> Void
    ) {
        guard let primary = primaries.first else {
            completion(.success(found))
            return
        }
        let count = String(self.configuration.listingScanCount)
        self.commands.send(["SCAN", cursor, "MATCH", pattern, "COUNT", count], to: primary) { [weak self] result in
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
            for key in keys {
                guard let text = Self.text(key), text.hasSuffix(":seq"),
                    let id = self.keys.room(ofChannel: text.utf8.dropLast(":seq".utf8.count))
                else { continue }
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
            guard total < self.configuration.listingScanLimit else {
                if next != "0" || primaries.count > 1 {
                    self.log?("the room listing stopped after looking at \(total) keys")
                }
                completion(.success(found))
                return
            }
            self.scanRooms(
                next == "0" ? primaries.dropFirst() : primaries, cursor: next, pattern: pattern, after: after,
                limit: limit, found: found, scanned: total, completion: completion)
        }
    }

    /// The rooms' last sequence numbers and seats (users of either class): three commands per room, pipelined (in a
    /// Redis Cluster on the rooms' primaries), answered once the last reply is in.
    private func summaries(
        of ids: [String], completion: @escaping (Result<[SharedRoomSummary], GatewayError>) -> Void
    ) {
        guard !ids.isEmpty else {
            completion(.success([]))
            return
        }
        final class Replies {
            var users: [Int]
            var sequences: [UInt64]
            var waiting: Int
            var failed = false
            init(count: Int) {
                self.users = Array(repeating: 0, count: count)
                self.sequences = Array(repeating: 0, count: count)
                self.waiting = count * 3
            }
        }
        let replies = Replies(count: ids.count)
        let answered = {
            replies.waiting -= 1
            guard replies.waiting == 0 else { return }
            guard !replies.failed else {
                completion(.failure(.unavailable))
                return
            }
            var rooms: [SharedRoomSummary] = []
            for (index, id) in ids.enumerated() where replies.sequences[index] > 0 {
                rooms.append(
                    SharedRoomSummary(
                        room: id, sequence: replies.sequences[index], participants: replies.users[index]))
            }
            completion(.success(rooms))
        }
        for (index, id) in ids.enumerated() {
            let keys = self.keys.room(id)
            for seats in [keys.seats.participants, keys.seats.reserved] {
                self.commands.send(["HLEN", seats]) { result in
                    if case .success(.integer(let count)) = result {
                        replies.users[index] += Int(count)
                    } else {
                        replies.failed = true
                    }
                    answered()
                }
            }
            self.commands.send(["GET", keys.sequence]) { result in
                switch result {
                case .success(let value): replies.sequences[index] = Self.text(value).flatMap { UInt64($0) } ?? 0
                case .failure: replies.failed = true
                }
                answered()
            }
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
