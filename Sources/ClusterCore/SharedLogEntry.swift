import JSONCoding
import Rooms

/// A log entry as the shared store keeps and publishes it: the entry's wire form with the epoch of the room's
/// records it belongs to, `{"seq", "time", "epoch", "actor", "reason", "event"}`.
public struct SharedLogEntry: Hashable, Sendable {
    /// The entry.
    public var entry: RoomLogEntry
    /// The epoch of the room's shared records: it changes when they start afresh, so two histories never mix.
    public var epoch: String

    /// - Parameters:
    ///   - entry: the entry.
    ///   - epoch: the epoch of the room's records.
    public init(_ entry: RoomLogEntry, epoch: String) {
        self.entry = entry
        self.epoch = epoch
    }

    /// Reads an entry as the store wrote it; nil when it is damaged or from an incompatible version.
    ///
    /// - Parameter bytes: the entry's JSON.
    public init?(bytes: [UInt8]) {
        guard let value = try? JSONParser.parse(bytes, limits: Self.limits), let epoch = value["epoch"]?.stringValue,
            let entry = try? RoomLogEntry(wireValue: value)
        else { return nil }
        self.init(entry, epoch: epoch)
    }

    /// The entry's JSON, members in the order the Redis script writes them.
    public var bytes: [UInt8] {
        JSONWriter.bytes(
            .object(
                JSONObject(uniqueKeysWithValues: [
                    ("seq", .int(Int64(self.entry.sequence))), ("time", .int(self.entry.time)),
                    ("epoch", .string(self.epoch)), ("actor", self.entry.actor.map { .string($0) } ?? .null),
                    ("reason", self.entry.reason.map { .string($0) } ?? .null),
                    ("event", self.entry.event.wireValue),
                ])))
    }

    /// Bounds for reading what the shared store holds: entries, checkpoints and control messages.
    public static let limits = JSONParser.Limits(
        maxInputBytes: 64 << 20, maxDepth: 32, maxStringBytes: 1 << 20, maxElementsPerContainer: 1 << 20,
        maxTotalNodes: 1 << 24
    )
}
