import JSONCoding
import Rooms

/// A room's checkpoint as the shared store keeps it: the replica's JSON and the epoch of the records it belongs to.
public struct SharedCheckpoint: Hashable, Sendable {
    /// The epoch the checkpoint was written in; nil when the store had none with it.
    public var epoch: String?
    /// `RoomReplica.checkpoint` as JSON.
    public var data: [UInt8]

    /// - Parameters:
    ///   - epoch: the epoch it was written in.
    ///   - data: the replica's JSON.
    public init(epoch: String?, data: [UInt8]) {
        self.epoch = epoch
        self.data = data
    }

    /// The replica, when the checkpoint belongs to `epoch` and can be read.
    ///
    /// - Parameter epoch: the epoch of the room's records now.
    public func replica(in epoch: String?) -> RoomReplica? {
        guard self.epoch == epoch, let value = try? JSONParser.parse(self.data, limits: SharedLogEntry.limits) else {
            return nil
        }
        return try? RoomReplica(checkpoint: value)
    }
}
