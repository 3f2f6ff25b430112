import ClusterCore
import EventIO
import Redis
import Rooms

/// Reading for webhooks: which rooms changed, and their entries after the cursor, rendered.
extension RedisWebhookFeed {
    /// The entries after the endpoint's cursor: the rooms behind it one after the other (in id order), each
    /// room's in `seq` order (`WebhookFeed.read`).
    ///
    /// - Parameters:
    ///   - endpoint: the endpoint's name.
    ///   - limit: the most entries.
    ///   - completion: the entries, or why they cannot be read.
    public func read(
        _ endpoint: String, limit: Int, completion: @escaping (Result<[WebhookFeedItem], WebhookFeedError>) -> Void
    ) {
        guard let state = self.endpoints[endpoint], state.held, self.commands.isConnected else {
            self.loop.execute { completion(.failure(WebhookFeedError("the shared store is unreachable"))) }
            return
        }
        let now = EventLoop.monotonicNow()
        let lookAgain = now - state.lookedAt >= UInt64(self.idleWaitMilliseconds) * 1_000_000
        guard state.pending.isEmpty || lookAgain else {
            self.gather(state, rooms: state.pending.keys.sorted()[...], limit: limit, found: [], completion: completion)
            return
        }
        state.lookedAt = now
        self.lookForChanges(state) { [weak self] failure in
            guard let self else { return }
            if let failure {
                completion(.failure(failure))
                return
            }
            self.gather(state, rooms: state.pending.keys.sorted()[...], limit: limit, found: [], completion: completion)
        }
    }

    /// Finds the rooms changed since the endpoint last looked whose last `seq` (or epoch) is past its cursor.
    private func lookForChanges(_ state: Endpoint, completion: @escaping (WebhookFeedError?) -> Void) {
        let page = String(self.pageSize)
        let arguments = [
            "ZRANGEBYSCORE", self.keys.rooms, String(state.since), "+inf", "WITHSCORES", "LIMIT", "0", page,
        ]
        self.commands.send(arguments) { [weak self] result in
            guard let self else { return }
            guard case .success(.array(let values?)) = result else {
                completion(WebhookFeedError("cannot read the changed rooms: \(result)"))
                return
            }
            var rooms: [String] = []
            var latest = state.since
            for index in stride(from: 0, to: values.count - 1, by: 2) {
                guard let room = Self.text(values[index]), let score = Self.text(values[index + 1]).flatMap(Double.init)
                else { continue }
                rooms.append(room)
                latest = max(latest, Int64(score))
            }
            guard !rooms.isEmpty else {
                completion(nil)
                return
            }
            // Inclusive: a room changed within the same millisecond later is seen next time. A full page of one
            // millisecond moves on by one, so the look always progresses.
            state.since = rooms.count == self.pageSize && latest == state.since ? latest + 1 : latest
            // One MGET per room: two rooms' keys need not share a slot.
            let reads = rooms.map { room in ["MGET", self.keys.room(room).sequence, self.keys.room(room).epoch] }
            self.commands.sendAll(reads) { results in
                for (room, result) in zip(rooms, results) {
                    guard case .success(.array(let values?)) = result, values.count == 2 else {
                        completion(WebhookFeedError("cannot read the rooms' last sequence numbers: \(result)"))
                        return
                    }
                    guard let sequence = Self.text(values[0]).flatMap({ UInt64($0) }), sequence > 0 else {
                        continue
                    }
                    let epoch = Self.text(values[1])
                    let cursor = state.cursor[room]
                    if cursor == nil || cursor?.epoch != epoch || cursor!.sequence < sequence {
                        state.pending[room] = sequence
                    }
                }
                completion(nil)
            }
        }
    }

    /// Collects entries room after room until `limit`.
    private func gather(
        _ state: Endpoint, rooms: ArraySlice<String>, limit: Int, found: [WebhookFeedItem],
        completion: @escaping (Result<[WebhookFeedItem], WebhookFeedError>) -> Void
    ) {
        guard let room = rooms.first, found.count < limit else {
            completion(.success(found))
            return
        }
        self.entries(of: room, state, limit: limit - found.count) { [weak self] result in
            guard let self else { return }
            switch result {
            case .failure(let error):
                // What was gathered goes out; the room is read again next time.
                if found.isEmpty { completion(.failure(error)) } else { completion(.success(found)) }
            case .success(let items):
                if items.isEmpty, let cursor = state.cursor[room], let known = state.pending[room],
                    cursor.sequence >= known
                {
                    state.pending[room] = nil
                }
                self.gather(state, rooms: rooms.dropFirst(), limit: limit, found: found + items, completion: completion)
            }
        }
    }

    /// A room's entries after the cursor: from what was rendered already, else from its stream (loading the room's
    /// state first when the renderer does not stand right at the cursor).
    private func entries(
        of room: String, _ state: Endpoint, limit: Int,
        completion: @escaping (Result<[WebhookFeedItem], WebhookFeedError>) -> Void
    ) {
        let cursor = state.cursor[room]
        let after = cursor?.sequence ?? 0
        if var known = state.rooms[room], known.renderer.epoch == cursor?.epoch || cursor == nil {
            known.buffer.removeAll { $0.sequence <= after }
            state.rooms[room] = known
            if !known.buffer.isEmpty {
                self.loop.execute { completion(.success(Array(known.buffer.prefix(limit)))) }
                return
            }
            if known.renderer.follows(after + 1) {
                let arguments = [
                    "XRANGE", self.keys.room(room).log, "\(after + 1)-0", "+", "COUNT",
                    String(min(limit, self.pageSize)),
                ]
                self.commands.send(arguments) { [weak self] result in
                    guard let self else { return }
                    guard case .success(let reply) = result else {
                        completion(.failure(WebhookFeedError("cannot read room \(room): \(result)")))
                        return
                    }
                    let entries = RedisRoomLog.streamEntries(reply)
                    guard entries.allSatisfy({ $0.epoch == known.renderer.epoch }) else {
                        // The room's records started afresh: load it again.
                        state.rooms[room] = nil
                        self.load(room, state, after: after, limit: limit, completion: completion)
                        return
                    }
                    completion(.success(self.render(entries, of: room, state, after: after, limit: limit)))
                }
                return
            }
        }
        self.load(room, state, after: after, limit: limit, completion: completion)
    }

    /// Loads a room's checkpoint, epoch and retained log, rebuilds its state at the cursor and renders what follows.
    private func load(
        _ room: String, _ state: Endpoint, after: UInt64, limit: Int,
        completion: @escaping (Result<[WebhookFeedItem], WebhookFeedError>) -> Void
    ) {
        let keys = self.keys.room(room)
        final class Replies {
            var checkpoint: RESPValue?
            var epoch: RESPValue?
        }
        let replies = Replies()
        self.commands.send(["HGETALL", keys.checkpoint]) { result in
            if case .success(let value) = result { replies.checkpoint = value }
        }
        self.commands.send(["GET", keys.epoch]) { result in
            if case .success(let value) = result { replies.epoch = value }
        }
        self.commands.send(["XRANGE", keys.log, "-", "+"]) { [weak self] result in
            guard let self else { return }
            guard case .success(let log) = result, let checkpoint = replies.checkpoint, let epochReply = replies.epoch
            else {
                completion(.failure(WebhookFeedError("cannot load room \(room): \(result)")))
                return
            }
            guard let epoch = Self.text(epochReply) else {
                // The room's records are gone (expired): nothing to deliver, and its cursor can go.
                state.pending[room] = nil
                if state.cursor[room] != nil { state.expired.insert(room) }
                completion(.success([]))
                return
            }
            let cursor = state.cursor[room]
            // A cursor of another epoch belongs to records that started afresh since: deliver the new ones.
            let start = cursor?.epoch == epoch ? after : 0
            let entries = RedisRoomLog.streamEntries(log).filter { $0.epoch == epoch }
            let renderer = SharedRoomRenderer(
                room: room, epoch: epoch, checkpoint: RedisRoomLog.checkpoint(checkpoint), entries: entries,
                before: start + 1, speakerRule: self.speakerRule)
            state.rooms[room] = (renderer, [])
            if cursor?.epoch != epoch, cursor != nil { state.cursor[room] = (0, epoch) }
            completion(.success(self.render(entries, of: room, state, after: start, limit: limit)))
        }
    }

    /// Renders the entries after `after` (at most a page), buffers them, and returns up to `limit`.
    private func render(
        _ entries: [SharedLogEntry], of room: String, _ state: Endpoint, after: UInt64, limit: Int
    ) -> [WebhookFeedItem] {
        guard var known = state.rooms[room] else { return [] }
        if state.rooms.count > self.maximumRooms {
            // Memory stays bounded whatever the number of rooms: drop rooms with nothing waiting.
            for (other, kept) in state.rooms where other != room && kept.buffer.isEmpty && state.pending[other] == nil {
                state.rooms[other] = nil
                if state.rooms.count <= self.maximumRooms { break }
            }
        }
        let next = entries.filter { $0.entry.sequence > after }.prefix(self.pageSize)
        if let first = next.first, first.entry.sequence > after + 1 {
            self.log?(
                "webhooks: room \(room) entries \(after + 1)-\(first.entry.sequence - 1) left the shared log before "
                    + "they were delivered")
        }
        for entry in next { known.buffer.append(known.renderer.render(entry)) }
        state.rooms[room] = known
        return Array(known.buffer.prefix(limit))
    }
}
