import Rooms

/// The rules every node of a cluster applies to the shared records of a room: seats by class, how long a lost
/// device keeps its seat, how much history the shared log keeps. Taken from the gateway's configuration, which must
/// agree on every node.
public struct SharedRoomRules: Hashable, Sendable {
    /// Seats for participants and viewers (`ERR_CALL_FULL` beyond).
    public var roomCapacity: Int
    /// Further seats for admins, moderators and bots.
    public var reservedSeats: Int
    /// How long a device of a dead node stays, reconnecting, before it leaves, in milliseconds.
    public var reconnectGraceMilliseconds: Int64
    /// How much of each room's log the shared store keeps.
    public var history: HistoryRetention

    /// - Parameters:
    ///   - roomCapacity: seats for participants and viewers.
    ///   - reservedSeats: further seats for admins, moderators and bots.
    ///   - reconnectGraceMilliseconds: how long a lost device keeps its seat.
    ///   - history: how much of each room's log is kept.
    public init(
        roomCapacity: Int,
        reservedSeats: Int,
        reconnectGraceMilliseconds: Int64,
        history: HistoryRetention
    ) {
        self.roomCapacity = roomCapacity
        self.reservedSeats = reservedSeats
        self.reconnectGraceMilliseconds = reconnectGraceMilliseconds
        self.history = history
    }

    /// The rules of a gateway's configuration.
    ///
    /// - Parameter configuration: the gateway's configuration.
    public init(_ configuration: RoomsConfiguration) {
        self.init(
            roomCapacity: configuration.roomCapacity, reservedSeats: configuration.reservedSeats,
            reconnectGraceMilliseconds: configuration.reconnectGraceMilliseconds, history: configuration.history)
    }
}
