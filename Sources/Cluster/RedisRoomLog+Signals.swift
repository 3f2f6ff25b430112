import ClusterCore
import JSONCoding
import Rooms

/// Ephemeral signals between nodes: published on the room's channel, the one its entries go out on, but never
/// added to its stream (no `XADD`), so nothing of them is kept, numbered, read back or sent to webhooks. A
/// signal's message is `signal ` and a JSON object (an entry's line starts with `{`, so the two never mix); the
/// sending node skips its own.
extension RedisRoomLog {
    /// What starts a signal's message on a room's channel.
    static let signalPrefix = Array("signal ".utf8)

    /// Publishes a signal on the room's channel (`SharedRoomLog.publishSignal`); best effort.
    ///
    /// - Parameters:
    ///   - signal: the signal, its sender set.
    ///   - room: the room.
    public func publishSignal(_ signal: RoomSignal, room: String) {
        guard self.commands.isConnected else { return }
        var fields: [(String, JSONValue)] = [
            ("node", .string(self.configuration.nodeID)), ("from", .string(signal.from)),
            ("kind", .string(signal.kind)), ("data", signal.data),
        ]
        if let to = signal.to { fields.append(("to", .string(to))) }
        let message = Self.signalPrefix + JSONWriter.bytes(.object(JSONObject(uniqueKeysWithValues: fields)))
        let command = [Array(self.commands.shardPublishCommand.utf8), Array(self.keys.channel(room).utf8), message]
        self.commands.send(command) { [weak self] result in
            if case .failure(let error) = result { self?.log?("cannot publish a signal: \(error)") }
        }
    }

    /// Hands a signal another node published on a followed room's channel to the gateway.
    ///
    /// - Parameters:
    ///   - payload: the message, its prefix included.
    ///   - roomID: the room.
    func receivedSignal(_ payload: [UInt8], in roomID: String) {
        guard self.follower.isFollowing(roomID),
            let value = try? JSONParser.parse(
                Array(payload.dropFirst(Self.signalPrefix.count)), limits: SharedLogEntry.limits),
            value["node"]?.stringValue != self.configuration.nodeID,
            let from = value["from"]?.stringValue, let kind = value["kind"]?.stringValue
        else { return }
        let signal = RoomSignal(
            kind: kind, data: value["data"] ?? .null, from: from, to: value["to"]?.stringValue)
        self.delegate?.sharedLogReceived(signal, room: roomID)
    }
}
