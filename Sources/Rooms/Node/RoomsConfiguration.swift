/// Settings of the rooms layer.
public struct RoomsConfiguration: Sendable {
    /// Seats for participants and viewers in a room.
    public var roomCapacity: Int = 100
    /// Extra seats above the capacity for admins, moderators and bots.
    public var reservedSeats: Int = 10
    /// How long a participant whose socket dropped stays "reconnecting" before leaving, in milliseconds.
    public var reconnectGraceMilliseconds: Int64 = 15_000
    /// Time a socket has to authenticate, in milliseconds.
    public var authenticationTimeoutMilliseconds: Int64 = 10_000
    /// Rooms one connection may join or watch at once.
    public var maximumRoomsPerSession: Int = 16
    /// Subscribers (participants and observers, each connection once) one room may have; a join or watch beyond
    /// it is refused with `ERR_ROOM_FULL`.
    public var maximumSubscribersPerRoom: Int = 10_000
    /// Connections one user (`sub`) may have open and authenticated at once; more are refused with
    /// `ERR_TOO_MANY_CONNECTIONS` and closed with 4010.
    public var maximumConnectionsPerUser: Int = 16
    /// Subscriptions (joined or watching, over any connections) one user may have in one room; more are refused with
    /// `ERR_TOO_MANY_SUBSCRIPTIONS`. One token cannot fill `maximumSubscribersPerRoom` and lock everyone else out.
    public var maximumSubscriptionsPerUserPerRoom: Int = 4
    /// The longest a user waits in a room's waiting room, in milliseconds from its arrival; its join is then
    /// answered with `ERR_WAIT_EXPIRED`.
    public var maximumWaitMilliseconds: Int64 = 900_000
    /// Users one room's waiting room holds at once; a join that would wait beyond them is refused with
    /// `ERR_WAITING_ROOM_FULL`.
    public var maximumWaitingPerRoom: Int = 500
    /// History kept per room.
    public var history = HistoryRetention()
    /// Longest id (room, group, device, session) in characters.
    public var maximumIDLength: Int = 128
    /// Longest free text (names, reasons, meeting text) in bytes.
    public var maximumTextLength: Int = 1024
    /// Largest `data` of an ephemeral signal, in bytes as the gateway writes it; larger ones are refused with
    /// `ERR_TOO_LARGE`.
    public var maximumSignalBytes: Int = 1024
    /// Signals one user may send to one room per second, in bursts of as many; more are refused with
    /// `ERR_RATE_LIMITED` (and nobody sees them).
    public var signalsPerSecond: Int = 10

    /// Roster changes are batched per room for this long before patches go out, in milliseconds (0: at once).
    public var patchWindowMilliseconds: Int64 = 50
    /// Leaves, removals and moderation changes skip the window and go out at once.
    public var immediateLeaves = true
    /// Which rule the active speaker shown in the roster follows (`SpeakerRule`).
    public var speakerRuleKind: SpeakerRuleKind = .stable
    /// `stable`: a new speaker (or silence) is shown once the reports have held this long, in milliseconds.
    public var speakerStableMilliseconds: Int64 = 500
    /// `hold`: the active speaker shown in the roster changes at most this often, in milliseconds.
    public var speakerHoldMilliseconds: Int64 = 500
    /// A subscriber whose connection stays unwritable this long is closed with 4008, in milliseconds.
    public var slowSubscriberTimeoutMilliseconds: Int64 = 30_000
    /// How often `tick()` walks every room for housekeeping (history past its age, idle views, rooms to forget), in
    /// milliseconds; between rounds it looks only at rooms with a deadline pending. 0: every tick.
    public var housekeepingIntervalMilliseconds: Int64 = 1_000

    public init() {}

    /// The rule these settings name, with its time (`speakerRuleKind` and the setting of its kind).
    public var speakerRule: SpeakerRule { RoomsNode.speakerRule(self) }
}

/// The speaker rules a room may follow (`SpeakerRule` with its time).
public enum SpeakerRuleKind: String, Hashable, Sendable, CaseIterable {
    case stable
    case hold
}
