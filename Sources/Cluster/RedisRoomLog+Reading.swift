import ClusterCore
import Redis
import Rooms

/// Reading rooms from Redis for the follower: a room's checkpoint, epoch and stream, the entries of a gap, and the
/// entries published on the rooms' channels.
extension RedisRoomLog: SharedRoomReader {
    /// Reads a room's checkpoint, epoch and retained log for the follower (`SharedRoomReader.readRoom`).
    ///
    /// - Parameters:
    ///   - roomID: the room.
    ///   - generation: handed back with the answer.
    public func readRoom(_ roomID: String, generation: Int) {
        let keys = self.keys.room(roomID)
        final class Replies {
            var checkpoint: RESPValue?
            var epoch: RESPValue?
        }
        let replies = Replies()
        let failed: (RedisError) -> Void = { [weak self] error in
            self?.follower.loadFailed(roomID, generation: generation, error: "\(error)")
        }
        self.commands.send(["HGETALL", keys.checkpoint]) { result in
            switch result {
            case .success(let value): replies.checkpoint = value
            case .failure(let error): failed(error)
            }
        }
        self.commands.send(["GET", keys.epoch]) { result in
            switch result {
            case .success(let value): replies.epoch = value
            case .failure(let error): failed(error)
            }
        }
        self.commands.send(["XRANGE", keys.log, "-", "+"]) { [weak self] result in
            guard let self else { return }
            guard case .success(let log) = result, let checkpoint = replies.checkpoint, let epoch = replies.epoch else {
                if case .failure(let error) = result { failed(error) }
                return
            }
            self.follower.loaded(
                roomID, generation: generation, epoch: Self.text(epoch), checkpoint: Self.checkpoint(checkpoint),
                entries: Self.streamEntries(log))
        }
    }

    /// Reads the entries of a gap for the follower (`SharedRoomReader.readEntries`).
    ///
    /// - Parameters:
    ///   - roomID: the room.
    ///   - sequence: the first sequence number wanted.
    ///   - generation: handed back with the answer.
    public func readEntries(of roomID: String, from sequence: UInt64, generation: Int) {
        let arguments = [
            "XRANGE", self.keys.room(roomID).log, "\(sequence)-0", "+", "COUNT", String(SharedLogFollower.fetchLimit),
        ]
        self.commands.send(arguments) { [weak self] result in
            guard let self else { return }
            guard case .success(let log) = result, case .array(.some) = log else {
                self.follower.fetched(nil, in: roomID, generation: generation)
                return
            }
            self.follower.fetched(Self.streamEntries(log), in: roomID, generation: generation)
        }
    }

    /// Stops listening to a room the follower gave up on (`SharedRoomReader.stopListening`).
    ///
    /// - Parameter roomID: the room.
    public func stopListening(to roomID: String) {
        self.subscriber.unsubscribeShard([Array(self.keys.channel(roomID).utf8)])
    }

    /// A message on a subscribed channel: an entry of a followed room, or a message to every node.
    func received(channel: [UInt8], payload: [UInt8]) {
        if channel.elementsEqual(self.keys.controlChannel.utf8) {
            self.receivedControl(payload)
            return
        }
        if self.probeChannels.contains(channel) {
            self.receivedProbe(channel: channel, payload: payload)
            return
        }
        guard let roomID = self.keys.room(ofChannel: channel) else { return }
        if payload.starts(with: Self.signalPrefix) {
            self.receivedSignal(payload, in: roomID)
            return
        }
        // One script call's entries, one a line (JSON has no raw line feed); one that cannot be read is a gap,
        // which the follower fills from the stream.
        let entries = payload.split(separator: UInt8(ascii: "\n")).compactMap { SharedLogEntry(bytes: Array($0)) }
        guard !entries.isEmpty else { return }
        self.follower.received(entries, in: roomID)
    }

    /// The entries of an `XRANGE` reply, in its order; those that cannot be read are left out.
    static func streamEntries(_ reply: RESPValue) -> [SharedLogEntry] {
        guard case .array(let items?) = reply else { return [] }
        return items.compactMap { item in
            guard case .array(let pair?) = item, pair.count == 2, case .array(let fields?) = pair[1],
                fields.count >= 2, case .bulkString(let bytes?) = fields[1]
            else { return nil }
            return SharedLogEntry(bytes: bytes)
        }
    }

    /// The checkpoint in an `HGETALL` reply of a room's checkpoint hash; nil when there is none.
    static func checkpoint(_ reply: RESPValue) -> SharedCheckpoint? {
        guard case .array(let fields?) = reply, fields.count >= 2 else { return nil }
        var values: [String: [UInt8]] = [:]
        for index in stride(from: 0, to: fields.count - 1, by: 2) {
            if let name = Self.text(fields[index]), case .bulkString(let bytes?) = fields[index + 1] {
                values[name] = bytes
            }
        }
        guard let data = values["data"] else { return nil }
        return SharedCheckpoint(epoch: values["epoch"].map { String(decoding: $0, as: UTF8.self) }, data: data)
    }
}
