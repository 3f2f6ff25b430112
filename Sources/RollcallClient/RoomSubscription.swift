import Foundation
import JSONCoding

/// A room a client joined (or watches): a live mirror of its roster view, its events, and the requests about it.
///
/// The subscription drives a `RoomMirror`: it applies the snapshot and every patch to a `RosterStore`, verifies each
/// checksum, and keeps two positions: the roster's sequence number (its last snapshot or patch) and the highest
/// sequence number received on any message of the room (the gateway sends them in log order, so the subscription has
/// every event it takes up to there). After a reconnect the client rejoins with both (`resume`, `resumeEvents`) and
/// reports whether everything missed was replayed.
///
/// Threading: changes are applied and published on the client's thread; every property and method is safe from
/// any thread (a lock guards the state, and readers get copies).
public final class RoomSubscription: @unchecked Sendable {
    /// The room id.
    public let room: String
    /// Whether this is a participant's join or an observer's.
    public let kind: RollcallJoinKind
    /// The device the join was made from.
    public let device: String
    /// The call type sent with the first join (`audio` or `video`), if any.
    public let callType: String?

    weak var client: Rollcall?
    let lock = NSLock()
    /// The roster and the resume positions, applied on the client's thread, under `lock`.
    var mirror: RoomMirror
    private var ended = false
    private var currentRights: RollcallRights?
    /// Where the join waits in the waiting room, until its roster arrives.
    var currentWaitingPosition: Int?
    /// Told each position of a first join that waits (`Rollcall.join(room:...onWaiting:)`), before the app holds
    /// the subscription.
    var waitingHandler: (@Sendable (Int) -> Void)?
    let broadcaster = Broadcaster<RoomChange>()
    /// The ephemeral signals of the room (`RoomSubscription+Signals.swift`).
    let signalBroadcaster = Broadcaster<RollcallSignal>()

    init(
        client: Rollcall,
        room: String,
        kind: RollcallJoinKind,
        device: String,
        view: RollcallView,
        events: RollcallEventMode,
        callType: String?
    ) {
        self.client = client
        self.room = room
        self.kind = kind
        self.device = device
        self.callType = callType
        self.mirror = RoomMirror(room: room, kind: kind, device: device, view: view, events: events, callType: callType)
    }

    // MARK: State

    /// The participants of the roster view, in join order (stable: a participant keeps their place).
    public var participants: [RosterParticipant] { self.lock.withLock { self.mirror.store?.participants ?? [] } }

    /// One participant by uid, if in the view.
    ///
    /// - Parameters:
    ///   - uid: the participant's uid.
    public func participant(_ uid: String) -> RosterParticipant? { self.lock.withLock { self.mirror.store?[uid] } }

    /// The room entry of the roster (`callType`, `recording`, `activeSpeaker`, `participantCount`, …).
    public var roomState: JSONObject { self.lock.withLock { self.mirror.store?.roomState ?? JSONObject() } }

    /// Where the join waits in the room's waiting room (from 1), while it waits; nil once admitted (or when it
    /// never waited).
    public var waitingPosition: Int? {
        self.lock.withLock { self.mirror.store == nil ? self.currentWaitingPosition : nil }
    }
    /// Whether the room has its waiting room on (the room entry's `admission`): a join into the call by a user who
    /// may not bypass it waits for a moderator.
    public var requiresAdmission: Bool { self.roomState["admission"]?.boolValue ?? false }
    /// How many wait in the waiting room (the room entry's `waiting`); who waits is in the `waiting` view, for
    /// those who may admit.
    public var waitingCount: Int { self.roomState["waiting"]?.intValue.map { Int($0) } ?? 0 }

    /// Whether the room is locked (the room entry's `locked`): new joins into the call are refused with
    /// `ERR_ROOM_LOCKED`, but for those whose rights say `bypassesLock`.
    public var isLocked: Bool { self.roomState["locked"]?.boolValue ?? false }
    /// The presenter floor (the room entry's `floor`): how many may present at once, nil when any number may; a
    /// start beyond it is refused with `ERR_FLOOR_TAKEN`.
    public var presenterFloor: Int? { self.roomState["floor"]?.intValue.map { Int($0) } }
    /// Who waits to present while the floor queues (the room entry's `floorQueue`), in order: the first may start
    /// once fewer than `presenterFloor` present. Empty when nobody waits or the floor does not queue.
    public var floorQueue: [String] { self.roomState["floorQueue"]?.arrayValue?.compactMap(\.stringValue) ?? [] }
    /// What every view counts, whatever its filter (the room entry's `counts`): in the call, hands raised, muted, on
    /// video, presenting, and by role; all zeros before the first snapshot.
    public var counts: RollcallViewCounts { RollcallViewCounts(self.roomState["counts"]?.objectValue) }
    /// How many entries match the view's filter before its `offset` and `limit` (the room entry's `total`), for
    /// "page 3 of 20"; nil before the first snapshot.
    public var viewTotal: Int? { self.roomState["total"]?.intValue.map { Int($0) } }

    /// A copy of the roster mirror, nil before the first snapshot.
    public var roster: RosterStore? { self.lock.withLock { self.mirror.store } }

    /// The sequence number the roster is at (its last snapshot or patch); 0 before the first snapshot.
    public var rosterSequence: UInt64 { self.lock.withLock { self.mirror.rosterSequence } }

    /// The sequence number up to which the subscription has every event it takes: its last event's, or a later
    /// snapshot's, patch's or resume's (messages arrive in log order). A rejoin sends it as `resumeEvents`.
    public var lastEventSequence: UInt64 { self.lock.withLock { self.mirror.lastEventSequence } }

    /// Whether the last resume replayed everything missed (true), fell back to a fresh snapshot (false), or no
    /// resume happened yet (nil).
    public var recovered: Bool? { self.lock.withLock { self.mirror.recovered } }

    /// The roster view mirrored.
    public var view: RollcallView { self.lock.withLock { self.mirror.view } }

    /// The events received besides patches.
    public var events: RollcallEventMode { self.mirror.events }

    /// Whether the subscription still receives changes (false after `leave`, a refused rejoin, the gateway taking
    /// it out of the room, or the client's close).
    public var isActive: Bool { self.lock.withLock { !self.ended } }

    /// A new stream of every change from now on; it finishes when the subscription ends. Each access makes a new
    /// stream, so several consumers can each have one.
    public var changes: AsyncStream<RoomChange> { self.broadcaster.stream() }

    /// What the user may do in the room, from the answer to the last join (nil before it).
    public var rights: RollcallRights? { self.lock.withLock { self.currentRights } }

    /// Keeps the rights a join's answer carries.
    func joined(_ acknowledgement: JSONValue) {
        guard let rights = RollcallRights(acknowledgement["rights"]) else { return }
        self.lock.withLock { self.currentRights = rights }
    }

    /// Adds a callback for every change from now on, called on the client's thread.
    ///
    /// - Parameters:
    ///   - handler: the callback; keep it short, it delays the next message.
    public func onChange(_ handler: @escaping @Sendable (RoomChange) -> Void) {
        self.broadcaster.add(handler)
    }

    // MARK: Applying messages (the client's thread)

    /// The fields of a join for this subscription; with `resume`, the positions to resume from.
    func joinFields(resume: Bool) -> [(String, JSONValue)] {
        self.lock.withLock { self.mirror.joinFields(resume: resume) }
    }

    /// Applies a snapshot, patch, event or resumed message and publishes what changed; returns the rejoin the
    /// mirror asks for when the roster drifted.
    func handle(_ message: JSONValue) -> RoomMirror.Rejoin? {
        let outcome = self.lock.withLock { self.mirror.handle(message) }
        for change in outcome.changes { self.publish(change) }
        return outcome.rejoin
    }

    /// The connection dropped.
    func connectionLost() {
        self.publish(.connectionLost)
    }

    /// Ends the subscription: publishes `.ended` and finishes every stream.
    func end(_ error: RollcallError?) {
        let first = self.lock.withLock {
            defer { self.ended = true }
            return !self.ended
        }
        guard first else { return }
        self.broadcaster.publish(.ended(error))
        self.broadcaster.finish()
        self.signalBroadcaster.finish()
    }

    private func publish(_ change: RoomChange) {
        guard self.isActive else { return }
        self.broadcaster.publish(change)
    }
}
