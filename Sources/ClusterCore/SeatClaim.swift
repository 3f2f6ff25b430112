import Rooms

/// What one event asks of a room's shared seat and device records, in the shared store's terms: the event's
/// `RoomEvent.seatEffect` with the capacity of its seat class. The Redis script and the in-memory store both take
/// their seat checks and bookkeeping from it.
public struct SeatClaim: Hashable, Sendable {
    /// What happens to the seat and device records.
    public enum Operation: String, Hashable, Sendable {
        /// A device joins: the user takes a seat of its class unless another of their devices holds one, and the
        /// appending node holds the device.
        case join = "J"
        /// A device came back within the grace period: the appending node holds it from now on.
        case restore = "R"
        /// One device leaves; the seat goes with the user's last device.
        case leave = "L"
        /// Every device of the user leaves, and the seat with them.
        case leaveAll = "A"
        /// Everyone leaves: the session ended.
        case endSession = "E"
        /// Nothing changes.
        case none = "-"
    }

    /// Which seats a device takes: participants and viewers count against the room's capacity, admins,
    /// moderators and bots against the reserved seats.
    public enum SeatClass: String, Hashable, Sendable {
        /// A seat of the room's capacity.
        case participant = "p"
        /// A reserved seat.
        case reserved = "r"
    }

    /// What happens to the records.
    public var operation: Operation
    /// The user, empty when the event is about nobody in particular.
    public var uid: String
    /// The device, empty when the event is about nobody in particular.
    public var device: String
    /// The seats the device takes on `join`.
    public var seatClass: SeatClass
    /// Seats of `seatClass` in the room; meaningful for `join`.
    public var capacity: Int

    /// The claim an event makes.
    ///
    /// - Parameters:
    ///   - event: the event.
    ///   - rules: the room's capacity and reserved seats.
    public init(_ event: RoomEvent, rules: SharedRoomRules) {
        self.seatClass = .participant
        self.capacity = 0
        let person: (uid: String, device: String)
        switch event.seatEffect {
        case .takeSeat(let uid, let deviceID, let counts):
            self.operation = .join
            person = (uid, deviceID)
            self.seatClass = counts ? .participant : .reserved
            self.capacity = counts ? rules.roomCapacity : rules.reservedSeats
        case .restoreDevice(let uid, let deviceID):
            (self.operation, person) = (.restore, (uid, deviceID))
        case .releaseDevice(let uid, let deviceID):
            (self.operation, person) = (.leave, (uid, deviceID))
        case .releaseUser(let uid, let deviceID):
            (self.operation, person) = (.leaveAll, (uid, deviceID))
        case .keepDevice(let uid, let deviceID):
            (self.operation, person) = (.none, (uid, deviceID))
        case .releaseEveryone:
            (self.operation, person) = (.endSession, ("", ""))
        case .none:
            (self.operation, person) = (.none, ("", ""))
        }
        (self.uid, self.device) = person
    }
}
