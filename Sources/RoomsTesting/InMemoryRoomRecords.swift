import ClusterCore
import Rooms

/// What an `InMemoryLogStore` keeps of one room, as the Redis script keeps it under `P:room:R:*`: the last sequence
/// number and the epoch, the log, the checkpoint, and the seat and device records behind `ERR_CALL_FULL` and device
/// ownership.
struct InMemoryRoomRecords {
    /// A device in the call: the user and the device id.
    struct Device: Hashable, Comparable {
        var uid: String
        var device: String

        static func < (lhs: Device, rhs: Device) -> Bool {
            (lhs.uid, lhs.device) < (rhs.uid, rhs.device)
        }
    }

    /// An entry of the log with the time the store appended it.
    struct StoredEntry {
        var sequence: UInt64
        var time: Int64
        /// The entry as published, `SharedLogEntry.bytes`.
        var bytes: [UInt8]
    }

    /// The last sequence number (`:seq`).
    var sequence: UInt64 = 0
    /// `:epoch`; nil until the first entry.
    var epoch: String?
    /// The retained log (`:log`), oldest first.
    var log: [StoredEntry] = []
    /// The latest checkpoint (`:ckpt`) and its sequence number.
    var checkpoint: (sequence: UInt64, value: SharedCheckpoint)?
    /// Joined devices and the seat class each took (`:devices`).
    var devices: [Device: SeatClaim.SeatClass] = [:]
    /// Joined users by seat class, with how many of their devices are in (`:seats:p`, `:seats:r`).
    var seats: [SeatClaim.SeatClass: [String: Int]] = [:]
    /// The node holding each device (`:own`).
    var owners: [Device: String] = [:]
    /// When the records expire (the script renews them on every write and lease); nil for never.
    var expiresAt: Int64?

    /// Users holding a seat of the class.
    func seatCount(_ seatClass: SeatClaim.SeatClass) -> Int {
        self.seats[seatClass]?.count ?? 0
    }

    /// Devices of the user in the class.
    func devices(of uid: String, in seatClass: SeatClaim.SeatClass) -> Int {
        self.seats[seatClass]?[uid] ?? 0
    }
}
