import JSONCoding
import TokenAuth

/// One room as the gateway keeps it: the reduced state, the log, the subscribers, the roster views, and what
/// changed since the last flush of patches.
final class HostedRoom {
    /// A join that waits in the waiting room on this gateway: what it needs to go on once admitted.
    struct WaitingJoin {
        var session: SessionID
        var claims: TokenClaims
        var deviceID: String
        var callType: String?
        var view: RosterViewSpec
        var events: EventMode
        var resume: ClientMessage.Resume?
        var requestID: JSONValue?
        /// The position the client was last told.
        var position: Int
    }

    /// How a wait ended without admission.
    enum WaitingOutcome: Hashable {
        case denied(reason: String?)
        case expired
        case left
    }

    /// How far the room has come with its log. With a log that answers inline every room is `ready` from the start.
    enum Phase {
        /// The log has not loaded it yet: requests for it, and acknowledgements, wait (`backlog`).
        case loading
        /// Loaded: requests are handled, unless earlier work of this gateway waits for the log (`backlog`).
        case ready
        /// Loaded once and being loaded again (its records started afresh, or a gap the log cannot fill): as
        /// `loading`, and when it is loaded its views start again from the room as it is then.
        case reloading
    }

    /// This gateway's work on the room that waits for the log: its appends not answered yet, and the requests and
    /// calls that wait behind them or behind the loading, in order.
    struct Backlog {
        /// Appends sent to the log and not answered yet.
        var appendsInFlight = 0
        /// Requests for the room that wait for it to be loaded or for this gateway's previous change to it to be
        /// applied (so each request is checked against the room as this gateway's own changes left it).
        var waiting: [WaitingWork] = []

        /// Whether nothing waits and no append is in flight.
        var isEmpty: Bool { self.appendsInFlight == 0 && self.waiting.isEmpty }
    }

    /// Work that waits for the room: a client's request, or a server API call.
    enum WaitingWork {
        case request(SessionID, ClientRequest)
        /// Runs when the room is loaded and idle; `fail` answers the caller when the room cannot be loaded.
        case call(run: () -> Void, fail: (GatewayError) -> Void)
    }

    struct DeviceKey: Hashable {
        var uid: String
        var deviceID: String
    }

    /// A device whose socket ended: when it leaves unless it comes back, and how the socket ended.
    struct LostDevice {
        var deadline: Int64
        var closedCleanly: Bool
    }

    /// The room as its log has made it: state and shown speaker.
    var replica: RoomReplica
    /// The replica just before the log's first retained entry: with the retained entries it gives the room as it
    /// was at any retained sequence number (for exact resumes from any point, on any node).
    var base: RoomReplica
    var log: RoomLog
    /// Every subscriber, in subscription order (deterministic fan-out order).
    var subscribers: [SessionID] = [] {
        didSet { self.subscriberEventModes = nil }
    }
    /// The subscribers with the event mode of their subscription, in subscription order: what `append` needs per
    /// event, without two dictionary lookups (one keyed by the room id string) per subscriber. Rebuilt after any
    /// change of `subscribers`; nil until then.
    var subscriberEventModes: [(id: SessionID, events: EventMode)]?
    /// Subscriptions per user, for `maximumSubscriptionsPerUserPerRoom`.
    var subscriptionsByUser: [String: Int] = [:]
    /// Each sending user's allowance of ephemeral signals (`RoomsNode+Signals.swift`); only users subscribed here
    /// keep one.
    var signalBudgets: [String: SignalBudget] = [:]
    /// Devices whose socket ended, with the time they leave unless they come back.
    var lostDevices: [DeviceKey: LostDevice] = [:]
    /// With other writers: the connection each device's join on this gateway is for, while the join is on its way through
    /// the shared log (the entry that restores the device takes other connections of it out of the room, not it).
    var joiningDevices: [DeviceKey: SessionID] = [:]
    /// Each retained entry's event message as it was sent live, by sequence number, so that history and resume
    /// replay what subscribers saw then rather than the entry described against today's state.
    var messages: [UInt64: [UInt8]] = [:]
    /// The retained events that only one participant may receive (about a hidden participant), by sequence number,
    /// with that participant: what resume and the history leave out for everyone else (`RoomEvent.audience`).
    var restrictedEvents: [UInt64: String] = [:]
    /// Per participant, the newest dropped entry only it could receive (`restrictedEvents`): a resume of its own
    /// connections from before it counts as missing a dropped entry, whatever its event mode.
    var droppedRestricted: [String: UInt64] = [:]
    /// The joins on this gateway that wait in the room's waiting room, in the order they came.
    var waitingJoins: [WaitingJoin] = []
    /// Why a user left the waiting room without being admitted (denied, with the moderator's reason, or expired),
    /// for the answer to its waiting joins here; cleared once they are answered.
    var waitingOutcomes: [String: WaitingOutcome] = [:]
    /// Whether an applied entry may have answered or moved a waiting join here (`RoomsNode.answerWaitingJoins`).
    var waitingJoinsNeedAnswers = false
    /// In a single process, when each waiting user that no connection here holds was first seen so (after a
    /// restart): it leaves the waiting room once the reconnect grace period has passed.
    var unheldWaitingSince: [String: Int64] = [:]
    /// Whether this node proposed the end of waits that ran out and waits for the answer.
    var waitExpiryProposed = false
    /// When the waits are next looked at (`RoomsNode.endOverdueWaits`): twice a second while anyone waits, not at
    /// every tick.
    var nextWaitCheck: Int64 = 0
    /// Roster views by spec; the whole-roster view always exists.
    var channels: [RosterViewSpec: ViewChannel] = [:]
    /// What changed since the last flush.
    var dirtyUIDs: Set<String> = []
    var everythingDirty = false
    var roomDirty = false
    /// Whether an event since the last flush changed the version of attributes, metadata or permissions: the flush
    /// then moves every view to the new sequence number, with an empty patch if need be (a change undone within
    /// the window), so that a view's `seq` is never older than what it shows (version-checked writes).
    var versionChanged = false
    /// When the pending changes must be flushed (the end of the coalescing window), if any are pending.
    var flushDue: Int64?
    /// Whether the gateway lists this room among those with a deadline of their own pending.
    var isWatchedForDeadlines = false
    /// When a join last sent the pending changes at once (in a storm of joins, the others coalesce).
    var lastJoinFlush: Int64?
    /// How far the room has come with its log.
    var phase: Phase
    /// This gateway's work on the room that waits for the log.
    var backlog = Backlog()
    /// Connections to close because of applied entries (a removal, a ban, the end of the session), after the
    /// answer to the request that caused them; `uid` nil: every participant connection.
    var pendingCloses: [RoomEvent.ConnectionClosure] = []
    /// What to do once the room's state reaches a sequence number (an append's continuation).
    var sequenceWaiters: [(sequence: UInt64, action: () -> Void)] = []
    /// Whether this node has proposed the switch of the shown speaker and waits for the answer.
    var speakerSwitchProposed = false
    /// When the earliest timed hard mute lifts (log time); nil when none is timed.
    var restrictionsEnd: Int64?
    /// Whether this node has proposed lifting the hard mutes that ran out and waits for the answer.
    var restrictionLiftProposed = false
    /// When the room last had a subscriber or device on this gateway (a room of a log with other writers is
    /// forgotten here once unused for the history age).
    var lastLocalUse: Int64

    /// When the room was created, in milliseconds (for expiry when nothing ever happens in it).
    let createdAt: Int64

    /// - Parameters:
    ///   - id: the room.
    ///   - retention: how much of its log memory keeps.
    ///   - createdAt: now.
    ///   - phase: `loading` when the log loads it later.
    init(id: String, retention: HistoryRetention, createdAt: Int64 = 0, phase: Phase = .ready) {
        self.phase = phase
        self.createdAt = createdAt
        self.lastLocalUse = createdAt
        self.replica = RoomReplica(state: RoomState(id: id))
        self.base = self.replica
        self.log = RoomLog(retention: retention)
    }

    /// The room's current state.
    var state: RoomState { self.replica.state }
    /// The active speaker the views show now.
    var heldSpeaker: String? { self.replica.heldSpeaker }

    /// Whether the room is loaded and current (requests for it may be handled).
    var isReady: Bool { if case .ready = self.phase { true } else { false } }

    /// Whether the room was loaded once (a loading that follows is a reload).
    var hasLoaded: Bool { if case .loading = self.phase { false } else { true } }

    /// Whether the room needs to be serialized behind earlier work on this gateway.
    var isBusy: Bool { !self.isReady || !self.backlog.isEmpty }

    /// The replica as it was right after `sequence`, rebuilt from the base and the retained entries; nil when
    /// `sequence` is before the base or after the last entry.
    func replica(at sequence: UInt64, speakerRule: SpeakerRule) -> RoomReplica? {
        guard sequence >= self.base.state.sequence, sequence <= self.replica.state.sequence else { return nil }
        if sequence == self.replica.state.sequence { return self.replica }
        var replica = self.base
        for entry in self.log.retained(after: replica.state.sequence) {
            guard entry.sequence <= sequence else { break }
            replica.apply(entry, speakerRule: speakerRule)
        }
        return replica
    }

    /// Counts a user's subscriptions up or down.
    func countSubscription(of uid: String, by change: Int) {
        let count = self.subscriptionsByUser[uid, default: 0] + change
        self.subscriptionsByUser[uid] = count > 0 ? count : nil
    }

    /// Finds when the earliest timed hard mute lifts, after an event that may have changed one.
    func refreshRestrictionsEnd() {
        self.restrictionsEnd = self.state.participants.values.compactMap(\.permissions.restrictedUntil).min()
    }

    /// Notes who may receive an entry, judged against the room's state right after it (`RoomEvent.audience`).
    ///
    /// - Returns: the only participant the entry may reach, or nil when it may reach everyone.
    @discardableResult
    func noteAudience(of entry: RoomLogEntry, in state: RoomState) -> String? {
        guard case .participant(let uid) = entry.event.audience(in: state) else { return nil }
        self.restrictedEvents[entry.sequence] = uid
        return uid
    }

    /// Whether the retained event `sequence` may reach a subscriber who is `uid`.
    func event(_ sequence: UInt64, reaches uid: String?) -> Bool {
        guard !self.restrictedEvents.isEmpty, let only = self.restrictedEvents[sequence] else { return true }
        return only == uid
    }

    var hasPendingChanges: Bool { self.everythingDirty || self.roomDirty || !self.dirtyUIDs.isEmpty }
}
