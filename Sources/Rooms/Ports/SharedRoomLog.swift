/// An event a node asks the shared log to append, with who caused it and the condition it depends on.
public struct ProposedEvent: Hashable, Sendable {
    /// The event.
    public var event: RoomEvent
    /// Who caused it; nil for the gateway itself.
    public var actor: String?
    /// A moderator's reason.
    public var reason: String?
    /// The event only makes sense while this node still holds the device it is about (a lost connection, a leave
    /// at the end of the grace period): if the device came back through another node, the append is refused.
    public var requiresDeviceOwnership: Bool

    /// - Parameters:
    ///   - event: the event.
    ///   - actor: who caused it.
    ///   - reason: a moderator's reason.
    ///   - requiresDeviceOwnership: append only while this node holds the event's device.
    public init(_ event: RoomEvent, actor: String?, reason: String? = nil, requiresDeviceOwnership: Bool = false) {
        self.event = event
        self.actor = actor
        self.reason = reason
        self.requiresDeviceOwnership = requiresDeviceOwnership
    }
}

/// Events to append to one room's shared log, all or none.
public struct LogProposal: Hashable, Sendable {
    /// The room.
    public var room: String
    /// The events, in order.
    public var events: [ProposedEvent]
    /// Append only if the log's last sequence number is still this one (for changes every node may propose at the
    /// same moment, such as the switch of the shown speaker: one wins, the others are refused).
    public var expectedSequence: UInt64?

    /// - Parameters:
    ///   - room: the room.
    ///   - events: the events, in order.
    ///   - expectedSequence: append only if the log still ends here.
    public init(room: String, events: [ProposedEvent], expectedSequence: UInt64? = nil) {
        self.room = room
        self.events = events
        self.expectedSequence = expectedSequence
    }
}

/// Why the shared log refused or failed an append.
public enum LogAppendFailure: Error, Hashable, Sendable {
    /// A condition did not hold (`expectedSequence`, device ownership): nothing was appended, nothing is wrong.
    case conditionFailed
    /// An answer for the client (for example `ERR_CALL_FULL` from the shared admission check, or
    /// `ERR_UNAVAILABLE` when the shared store cannot be reached).
    case refused(GatewayError)
}

/// How a room log answers the gateway, which asks it instead of asking how it is deployed.
public struct RoomLogTraits: Hashable, Sendable {
    /// Other gateways append to the same log: a device may have joined through another one (its join here
    /// restores it and takes it over), a room this gateway does not hold may exist, and a group's meeting messages
    /// reach this gateway only from the rooms it follows (it follows its members' groups). A room nobody uses here
    /// is forgotten here, its records stay in the log.
    public var hasOtherWriters: Bool
    /// The log checks a room's seats itself, atomically for every writer (`ERR_CALL_FULL` comes back as a refused
    /// append): the gateway leaves the seat check to it.
    public var checksAdmission: Bool
    /// The log answers loads and appends later, not inline: a room waits until it is loaded, and a request waits
    /// behind this gateway's appends in flight to the room.
    public var answersLater: Bool

    /// - Parameters:
    ///   - hasOtherWriters: other gateways append to the same log.
    ///   - checksAdmission: the log checks a room's seats itself.
    ///   - answersLater: the log answers loads and appends later.
    public init(hasOtherWriters: Bool, checksAdmission: Bool, answersLater: Bool) {
        self.hasOtherWriters = hasOtherWriters
        self.checksAdmission = checksAdmission
        self.answersLater = answersLater
    }

    /// A log in this process that only this gateway writes to, answering inline (`LocalRoomLog`).
    public static let local = RoomLogTraits(hasOtherWriters: false, checksAdmission: false, answersLater: false)
    /// A log several gateways share through a store (a cluster's).
    public static let shared = RoomLogTraits(hasOtherWriters: true, checksAdmission: true, answersLater: true)
}

/// The room log port: every change to a room goes through it, whichever way the gateway runs. The gateway always
/// has one: `LocalRoomLog` (the default) numbers entries in this process, at once, and keeps rooms in an optional
/// `RoomStore`; a cluster's shared log (the Redis one, or the in-memory one of the tests) is shared by every node,
/// which appends to it and applies what it delivers, in order.
///
/// A port that talks both ways: the gateway calls these from its own thread, and the implementation reports back to
/// its `delegate` (the gateway, which registers itself when it is given the log) on the same thread. Entries are
/// delivered exactly in sequence order, each once; a room whose entries cannot all be delivered (its log was
/// trimmed or lost in between) is reloaded with `SharedRoomLogDelegate.sharedLogLoaded`. A log that answers inline
/// (`traits`) numbers each event with `appendInline` as the gateway applies it, and has every room ready at once.
public protocol SharedRoomLog: AnyObject {
    /// Who is told what the log loaded, delivered and failed: the gateway that owns the log; held weakly or unowned.
    var delegate: (any SharedRoomLogDelegate)? { get set }

    /// The gateway needs this room: load its latest checkpoint and the entries after it (`sharedLogLoaded` or
    /// `sharedLogFailed`), then deliver every later entry (`sharedLogReceived`). A log that answers inline has
    /// the room at hand already.
    ///
    /// - Parameter room: the room id.
    func follow(_ room: String)

    /// The gateway forgot the room: stop delivering its entries.
    ///
    /// - Parameter room: the room id.
    func unfollow(_ room: String)

    /// Appends events; the completion gets the sequence number of the last one appended once it is in the shared
    /// log (the entries themselves arrive through `sharedLogReceived`), or the failure.
    ///
    /// - Parameters:
    ///   - proposal: the events and their conditions.
    ///   - completion: called on the gateway's thread, never inside the call.
    func append(_ proposal: LogProposal, completion: @escaping (Result<UInt64, LogAppendFailure>) -> Void)

    /// Asks every other node to close a user's connections (`sharedLogDisconnect` there), for the server API's
    /// disconnect; best effort.
    ///
    /// - Parameters:
    ///   - uid: the user.
    ///   - reason: the close reason.
    func disconnect(uid: String, reason: String?)

    /// Lists the rooms of the whole shared log (not only those this node follows), in id order, for the server
    /// API's listing.
    ///
    /// - Parameters:
    ///   - after: only rooms whose id sorts after this one; nil for the first page.
    ///   - limit: the most rooms.
    ///   - completion: the rooms, or `ERR_UNAVAILABLE`; on the gateway's thread, never inside the call.
    func listRooms(
        after: String?, limit: Int, completion: @escaping (Result<[SharedRoomSummary], GatewayError>) -> Void)

    /// How this log answers: inline or later, alone or with other writers, checking admission or not.
    var traits: RoomLogTraits { get }

    /// Where this log keeps rooms across restarts, for reading back what memory no longer holds (rooms used again,
    /// history, audit, resumes); nil when rooms live in memory only or in a shared store.
    var roomStore: (any RoomStore)? { get }

    /// Numbers an event at once, in this process: appends it to the room's log in memory and returns its entry.
    /// Nil, leaving `log` alone, from a log that answers later (`traits.answersLater`), which numbers events
    /// through `append(_:completion:)`.
    ///
    /// - Parameters:
    ///   - event: the event, with who caused it.
    ///   - log: the room's log in memory.
    ///   - time: now, in milliseconds since the epoch.
    func appendInline(_ event: ProposedEvent, to log: inout RoomLog, time: Int64) -> RoomLogEntry?

    /// The gateway applied one of a room's entries and sent `message` for it: a log that keeps rooms across
    /// restarts buffers it for its next commit, with a checkpoint of the room (`replica`) when one is due.
    ///
    /// - Parameters:
    ///   - entry: the applied entry.
    ///   - message: its event message as sent live.
    ///   - room: the room.
    ///   - replica: the room right after the entry, read only for a checkpoint.
    func applied(_ entry: RoomLogEntry, message: [UInt8], room: String, replica: () -> RoomReplica)

    /// Carries an ephemeral signal (`RoomSignal`) to the other nodes that follow the room, which hand it to their
    /// subscribers (`sharedLogReceived(_:room:)` there); never appended, stored or numbered, and best effort: a node
    /// that does not hear it (its subscription down) never gets it.
    ///
    /// - Parameters:
    ///   - signal: the signal, its sender set.
    ///   - room: the room.
    func publishSignal(_ signal: RoomSignal, room: String)
}

extension SharedRoomLog {
    /// A cluster's log: shared, checking admission, answering later.
    public var traits: RoomLogTraits { .shared }

    /// None: a shared log is its own store.
    public var roomStore: (any RoomStore)? { nil }

    /// Nil: a shared log numbers events in its store (`append(_:completion:)`).
    public func appendInline(_ event: ProposedEvent, to log: inout RoomLog, time: Int64) -> RoomLogEntry? { nil }

    /// Nothing: a shared log applies what it delivered, it keeps nothing more.
    public func applied(_ entry: RoomLogEntry, message: [UInt8], room: String, replica: () -> RoomReplica) {}

    /// Nothing: a log without other nodes has nobody else to carry a signal to.
    public func publishSignal(_ signal: RoomSignal, room: String) {}
}

/// What a shared log reports back to the gateway that follows rooms in it, on the gateway's thread: rooms loaded
/// and reloaded, entries delivered in order, failures, users to disconnect and a lease found lost; and the replicas
/// it writes as checkpoints.
public protocol SharedRoomLogDelegate: AnyObject {
    /// A followed room was loaded: its latest checkpoint (nil when the room's log starts at 1) and the retained
    /// entries after it, oldest first and contiguous. Called again, after `sharedLogReloading`, when the room had to
    /// be loaded anew.
    ///
    /// - Parameters:
    ///   - room: the room.
    ///   - checkpoint: the replica at the checkpoint's sequence number, if there is one.
    ///   - entries: the retained entries, contiguous, reaching at least from the checkpoint on.
    func sharedLogLoaded(room: String, checkpoint: RoomReplica?, entries: [RoomLogEntry])

    /// A loaded room must be loaded again (its records started afresh, or a gap cannot be filled); until
    /// `sharedLogLoaded` or `sharedLogReloadFailed` no entries of it are delivered.
    ///
    /// - Parameter room: the room.
    func sharedLogReloading(room: String)

    /// Loading a room again failed (the store became unreachable); it is tried again when the store is back.
    ///
    /// - Parameter room: the room.
    func sharedLogReloadFailed(room: String)

    /// The next entries of a followed room, in order, following the last delivered one without a gap.
    ///
    /// - Parameters:
    ///   - room: the room.
    ///   - entries: the entries.
    func sharedLogReceived(room: String, entries: [RoomLogEntry])

    /// A room could not be loaded at all; the shared log no longer follows it.
    ///
    /// - Parameter room: the room.
    func sharedLogFailed(room: String)

    /// Another node's ephemeral signal for a followed room (`SharedRoomLog.publishSignal`), outside the order of
    /// the entries.
    ///
    /// - Parameters:
    ///   - signal: the signal, its sender set.
    ///   - room: the room.
    func sharedLogReceived(_ signal: RoomSignal, room: String)

    /// Another node was asked to disconnect a user: close the user's connections to this node.
    ///
    /// - Parameters:
    ///   - uid: the user.
    ///   - reason: the close reason.
    func sharedLogDisconnect(uid: String, reason: String?)

    /// This node was declared dead while it could not renew its lease (the other nodes took over its devices):
    /// its participants should reconnect.
    func sharedLogLeaseLost()

    /// The room's replica as it was right after `sequence`, for a checkpoint; nil when the room is not loaded or
    /// that point is not retained.
    ///
    /// - Parameters:
    ///   - room: the room.
    ///   - sequence: the sequence number.
    func replica(of room: String, at sequence: UInt64) -> RoomReplica?

    /// The log's store could not be read (`message` says what and why); the caller gets `ERR_UNAVAILABLE`.
    ///
    /// - Parameter message: what could not be read, and the store's error.
    func roomLogStoreUnreadable(_ message: String)
}

extension SharedRoomLogDelegate {
    /// Nothing by default.
    public func roomLogStoreUnreadable(_ message: String) {}
}

/// A shared log as the process that runs it sees it: started and stopped on the gateway's thread, and read for
/// metrics.
public protocol SharedLogService: SharedRoomLog {
    /// Connects to the shared store (and keeps reconnecting) and starts this node's lease. Call on the gateway's
    /// thread, after the gateway was given the log.
    func start()

    /// Stops the connections and timers. Call on the gateway's thread.
    func stop()

    /// Whether the shared store can be reached now.
    var isAvailable: Bool { get }

    /// What the shared log has done.
    var statistics: SharedLogStatistics { get }

    /// Whether the node can trust what it receives (read from any thread for `/readyz`); nil when the log has no
    /// such check.
    var health: SharedLogHealth? { get }
}

extension SharedLogService {
    /// No check by default.
    public var health: SharedLogHealth? { nil }
}

/// What a shared log has done, for metrics and tests.
public struct SharedLogStatistics: Hashable, Sendable {
    /// Appends taken by the shared store.
    public var appends = 0
    /// Appends that failed because the store was unreachable or slow (answered `ERR_UNAVAILABLE`).
    public var appendFailures = 0
    /// Times entries missed in delivery were read back from the store.
    public var gapsFilled = 0
    /// Rooms loaded again after a gap that could not be filled, or after their records started afresh.
    public var reloads = 0
    /// Lost and left entries this node recorded for devices of dead nodes.
    public var devicesReaped = 0
    /// Room checkpoints this node wrote.
    public var checkpointsWritten = 0
    /// Times this node found its lease had run out (it was reaped) and sent its participants to reconnect.
    public var leasesLost = 0
    /// Appends the store took but fewer replicas than asked confirmed in time (answered `ERR_UNAVAILABLE`; the
    /// entries are in the log).
    public var replicaAckFailures = 0
    /// Probes of the node's own subscription that did not come back in time.
    public var probeFailures = 0
    /// Times the node reconnected its subscription because a probe did not come back.
    public var resubscriptions = 0
    /// Whether the last probe of the subscription came back (true before the first, and without probes).
    public var subscriptionLive = true

    /// All zero.
    public init() {}
}

extension GatewayError {
    /// The shared store of a cluster cannot be reached or did not answer in time; the client may try again.
    public static let unavailable = GatewayError(
        .unavailable, "the cluster's shared store is unreachable or did not answer; try again")
    /// Too many requests wait for one room on this node.
    public static let busy = GatewayError(.busy)
}

extension SharedRoomLogDelegate {
    /// Nothing: a delegate that hands nothing to subscribers has nothing to do with a signal.
    public func sharedLogReceived(_ signal: RoomSignal, room: String) {}
}
