import Foundation
import JSONCoding

/// A room a client joined (or watches): a live mirror of its roster view, its events, and the requests about it.
///
/// The subscription applies the snapshot and every patch to a `RosterStore`, verifies each checksum, and keeps two
/// positions: the roster's sequence number (its last snapshot or patch) and the highest sequence number received on
/// any message of the room (the gateway sends them in log order, so the subscription has every event it takes up to
/// there). After a reconnect the client rejoins with both (`resume`, `resumeEvents`) and reports whether everything
/// missed was replayed.
///
/// Threading: changes are applied and published on the client's thread; every property and method is safe from
/// any thread (a lock guards the state, and readers get copies).
public final class RoomSubscription: @unchecked Sendable {
    /// What a message asks the client to do next.
    enum FollowUp {
        case none
        /// Join again: with `resume` to replay what was missed, or without to get a fresh snapshot.
        case rejoin(resume: Bool)
    }

    /// The room id.
    public let room: String
    /// Whether this is a participant's join or an observer's.
    public let kind: RollcallJoinKind
    /// The device the join was made from.
    public let device: String
    /// The call type sent with the first join (`audio` or `video`), if any.
    public let callType: String?

    weak var client: Rollcall?
    private let lock = NSLock()
    private var store: RosterStore?
    private var currentView: RollcallView
    private let eventMode: RollcallEventMode
    private var lastEvent: UInt64 = 0
    private var resumeResult: Bool?
    private var driftStreak = 0
    private var ended = false
    private var currentRights: RollcallRights?
    private let broadcaster = Broadcaster<RoomChange>()

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
        self.currentView = view
        self.eventMode = events
        self.callType = callType
    }

    // MARK: State

    /// The participants of the roster view, in join order (stable: a participant keeps their place).
    public var participants: [RosterParticipant] { self.lock.withLock { self.store?.participants ?? [] } }

    /// One participant by uid, if in the view.
    ///
    /// - Parameters:
    ///   - uid: the participant's uid.
    public func participant(_ uid: String) -> RosterParticipant? { self.lock.withLock { self.store?[uid] } }

    /// The room entry of the roster (`callType`, `recording`, `activeSpeaker`, `participantCount`, …).
    public var roomState: JSONObject { self.lock.withLock { self.store?.roomState ?? JSONObject() } }

    /// A copy of the roster mirror, nil before the first snapshot.
    public var roster: RosterStore? { self.lock.withLock { self.store } }

    /// The sequence number the roster is at (its last snapshot or patch); 0 before the first snapshot.
    public var rosterSequence: UInt64 { self.lock.withLock { self.store?.sequence ?? 0 } }

    /// The sequence number up to which the subscription has every event it takes: its last event's, or a later
    /// snapshot's, patch's or resume's (messages arrive in log order). A rejoin sends it as `resumeEvents`.
    public var lastEventSequence: UInt64 { self.lock.withLock { self.lastEvent } }

    /// Whether the last resume replayed everything missed (true), fell back to a fresh snapshot (false), or no
    /// resume happened yet (nil).
    public var recovered: Bool? { self.lock.withLock { self.resumeResult } }

    /// The roster view mirrored.
    public var view: RollcallView { self.lock.withLock { self.currentView } }

    /// The events received besides patches.
    public var events: RollcallEventMode { self.eventMode }

    /// Whether the subscription still receives changes (false after `leave`, a refused rejoin, or the client's
    /// close).
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

    // MARK: Requests

    /// Sets the participant's own state; only the fields given are sent.
    ///
    /// - Parameters:
    ///   - fields: any of `audioMuted`, `videoPaused`, `presenting`, `handRaised` (booleans), `mid` and
    ///     `cameraFacing` (strings).
    /// - Returns: the acknowledgement; `changed` tells whether anything changed.
    /// - Throws: `RollcallError`, for example `ERR_NOT_IN_ROOM` for an observer.
    @discardableResult
    public func updateState(_ fields: JSONObject) async throws(RollcallError) -> RollcallAcknowledgement {
        try await self.acknowledged(.state, fields.entries.map { ($0.key, $0.value) })
    }

    /// Mutes or unmutes the microphone.
    ///
    /// - Parameters:
    ///   - muted: the new state.
    @discardableResult
    public func setAudioMuted(_ muted: Bool) async throws(RollcallError) -> RollcallAcknowledgement {
        try await self.updateState(["audioMuted": .bool(muted)])
    }

    /// Pauses or resumes the camera.
    ///
    /// - Parameters:
    ///   - paused: the new state.
    @discardableResult
    public func setVideoPaused(_ paused: Bool) async throws(RollcallError) -> RollcallAcknowledgement {
        try await self.updateState(["videoPaused": .bool(paused)])
    }

    /// Starts or stops sharing the screen.
    ///
    /// - Parameters:
    ///   - presenting: the new state.
    @discardableResult
    public func setPresenting(_ presenting: Bool) async throws(RollcallError) -> RollcallAcknowledgement {
        try await self.updateState(["presenting": .bool(presenting)])
    }

    /// Raises or lowers the hand.
    ///
    /// - Parameters:
    ///   - raised: the new state.
    @discardableResult
    public func setHandRaised(_ raised: Bool) async throws(RollcallError) -> RollcallAcknowledgement {
        try await self.updateState(["handRaised": .bool(raised)])
    }

    /// Raises the hand.
    @discardableResult
    public func raiseHand() async throws(RollcallError) -> RollcallAcknowledgement {
        try await self.setHandRaised(true)
    }

    /// Lowers the hand.
    @discardableResult
    public func lowerHand() async throws(RollcallError) -> RollcallAcknowledgement {
        try await self.setHandRaised(false)
    }

    /// Sets the media id the calls SDK gave the participant.
    ///
    /// - Parameters:
    ///   - mid: the media id.
    @discardableResult
    public func setMediaID(_ mid: String) async throws(RollcallError) -> RollcallAcknowledgement {
        try await self.updateState(["mid": .string(mid)])
    }

    /// Sets the camera in use.
    ///
    /// - Parameters:
    ///   - facing: `front` or `back`.
    @discardableResult
    public func setCameraFacing(_ facing: String) async throws(RollcallError) -> RollcallAcknowledgement {
        try await self.updateState(["cameraFacing": .string(facing)])
    }

    /// Reports whether this participant speaks, as its media stack detects it. Sent without waiting for an answer.
    /// The roster shows the active speaker by the room's speaker rule (docs/PROTOCOL.md, "speaker").
    ///
    /// - Parameters:
    ///   - speaking: true when it starts speaking, false when it stops.
    /// - Throws: `RollcallError` when the client is not connected.
    public func reportSpeaking(_ speaking: Bool) throws(RollcallError) {
        guard let client = self.client, let uid = client.uid else { throw RollcallError(.notConnected) }
        try client.sendUnanswered(.speaker, [("room", .string(self.room)), ("uid", speaking ? .string(uid) : .null)])
    }

    /// Reports who speaks, for a bot with the `speaker` capability: anyone in the call, or nil for nobody.
    /// Participants report themselves with `reportSpeaking(_:)`. Sent without waiting for an answer.
    ///
    /// - Parameters:
    ///   - uid: the speaker, or nil for nobody.
    /// - Throws: `RollcallError` when the client is not connected.
    public func reportActiveSpeaker(_ uid: String?) throws(RollcallError) {
        guard let client = self.client else { throw RollcallError(.notConnected) }
        try client.sendUnanswered(
            .speaker, [("room", .string(self.room)), ("uid", uid.map(JSONValue.string) ?? .null)])
    }

    /// Starts or stops recording (moderators, or bots with the `record` capability).
    ///
    /// - Parameters:
    ///   - recording: the new state.
    @discardableResult
    public func setRecording(_ recording: Bool) async throws(RollcallError) -> RollcallAcknowledgement {
        try await self.acknowledged(.media, [("recording", .bool(recording))])
    }

    /// Sets this participant's audio output (its own device's; nobody else's changes).
    ///
    /// - Parameters:
    ///   - mode: `speaker`, `earpiece`, `bluetooth` or `headphones`.
    @discardableResult
    public func setAudioMode(_ mode: String) async throws(RollcallError) -> RollcallAcknowledgement {
        try await self.acknowledged(.media, [("audioMode", .string(mode))])
    }

    /// Sets or removes this participant's attributes (a nil value removes the key); keys its token set are the
    /// backend's and cannot be changed here.
    ///
    /// - Parameters:
    ///   - changes: the keys to set, and those to remove (nil).
    @discardableResult
    public func setAttributes(_ changes: [String: String?]) async throws(RollcallError) -> RollcallAcknowledgement {
        try await self.acknowledged(.attributes, [("attributes", Self.changes(changes))])
    }

    /// Sets or removes the room's metadata (moderators, bots with the `metadata` capability).
    ///
    /// - Parameters:
    ///   - changes: the keys to set, and those to remove (nil).
    @discardableResult
    public func setMetadata(_ changes: [String: String?]) async throws(RollcallError) -> RollcallAcknowledgement {
        try await self.acknowledged(.metadata, [("metadata", Self.changes(changes))])
    }

    /// Hard-mutes a participant (moderators, bots with `mute`): muted, and unable to unmute itself for `duration`
    /// seconds, or until `ask_unmute` or a permission change gives the right back (nil).
    ///
    /// - Parameters:
    ///   - uid: the participant.
    ///   - duration: how long, in seconds (1 s to a day), or nil until lifted.
    ///   - reason: recorded with the action.
    @discardableResult
    public func hardMute(
        _ uid: String, for duration: Int? = nil, reason: String? = nil
    ) async throws(RollcallError)
        -> RollcallAcknowledgement
    {
        var fields: [(String, JSONValue)] = [("action", "mute"), ("target", .string(uid)), ("hard", true)]
        if let duration { fields.append(("durationMs", .int(Int64(duration) * 1000))) }
        if let reason { fields.append(("reason", .string(reason))) }
        return try await self.acknowledged(.action, fields)
    }

    /// Changes a participant's permissions (moderators, bots with `permissions`): the ones given, the others as they
    /// are.
    ///
    /// - Parameters:
    ///   - uid: the participant.
    ///   - unmute: whether it may unmute itself.
    ///   - share: whether it may share its screen.
    ///   - meetings: whether it may send group meeting messages.
    ///   - hidden: whether it is left out of every roster view and count.
    @discardableResult
    public func setPermissions(
        of uid: String, unmute: Bool? = nil, share: Bool? = nil, meetings: Bool? = nil, hidden: Bool? = nil
    ) async throws(RollcallError) -> RollcallAcknowledgement {
        let values: [(String, JSONValue)] = [
            ("unmute", unmute.map(JSONValue.bool)), ("share", share.map(JSONValue.bool)),
            ("meetings", meetings.map(JSONValue.bool)), ("hidden", hidden.map(JSONValue.bool)),
        ].compactMap { key, value in value.map { (key, $0) } }
        return try await self.acknowledged(
            .permissions, [("uid", .string(uid)), ("permissions", .object(JSONObject(uniqueKeysWithValues: values)))])
    }

    private static func changes(_ changes: [String: String?]) -> JSONValue {
        .object(
            JSONObject(
                uniqueKeysWithValues: changes.sorted { $0.key < $1.key }.map {
                    ($0.key, $0.value.map { .string($0) } ?? .null)
                }))
    }

    /// Performs a moderator action (`mute`, `mute_all`, `lower_hand`, `spotlight`, `unspotlight`, `promote`,
    /// `demote`, `remove`, `ban`, `unban`, `end_session`).
    ///
    /// - Parameters:
    ///   - action: the action's name.
    ///   - target: the uid it applies to; nil for `mute_all` and `end_session`.
    ///   - reason: a reason shown with the event.
    /// - Throws: `RollcallError` with `ERR_FORBIDDEN` when not allowed, `ERR_NOT_FOUND` for a target not in the call.
    @discardableResult
    public func perform(
        action: String, target: String? = nil, reason: String? = nil
    ) async throws(RollcallError)
        -> RollcallAcknowledgement
    {
        var fields: [(String, JSONValue)] = [("action", .string(action))]
        if let target { fields.append(("target", .string(target))) }
        if let reason { fields.append(("reason", .string(reason))) }
        return try await self.acknowledged(.action, fields)
    }

    /// Switches the roster view without leaving the room; returns once the new view's snapshot is applied.
    ///
    /// - Parameters:
    ///   - view: the new view.
    public func changeView(_ view: RollcallView) async throws(RollcallError) {
        guard let client = self.client else { throw RollcallError(.notConnected) }
        _ = try await client.request(
            .view, [("room", .string(self.room)), ("view", view.json)], room: self.room, completesOnRoster: true
        )
        self.lock.withLock { self.currentView = view }
    }

    /// Leaves the room (a participant leaves the call at once); the subscription ends.
    public func leave() async throws(RollcallError) {
        guard let client = self.client else { throw RollcallError(.notConnected) }
        _ = try await client.request(.leave, [("room", .string(self.room))])
        client.removeSubscription(self)
        self.end(nil)
    }

    private func acknowledged(
        _ type: RollcallClientMessageType, _ fields: [(String, JSONValue)]
    ) async throws(RollcallError)
        -> RollcallAcknowledgement
    {
        guard let client = self.client else { throw RollcallError(.notConnected) }
        let answer = try await client.request(type, [("room", .string(self.room))] + fields)
        return RollcallAcknowledgement(message: answer)
    }

    // MARK: Applying messages (the client's thread)

    /// The fields of a join for this subscription; with `resume`, the positions to resume from.
    func joinFields(resume: Bool) -> [(String, JSONValue)] {
        self.lock.withLock {
            var fields: [(String, JSONValue)] = [("room", .string(self.room))]
            if self.kind == .observer { fields.append(("as", .string("observer"))) }
            fields.append(("device", .string(self.device)))
            if let callType = self.callType, self.kind == .participant {
                fields.append(("callType", .string(callType)))
            }
            fields.append(("view", self.currentView.json))
            fields.append(("events", .string(self.eventMode.rawValue)))
            if resume, let store = self.store {
                fields.append(("resume", .int(Int64(store.sequence))))
                fields.append(("resumeEvents", .int(Int64(max(self.lastEvent, 0)))))
            }
            return fields
        }
    }

    /// Applies a snapshot, patch, event or resumed message and publishes what changed.
    func handle(_ message: JSONValue) -> FollowUp {
        switch message["type"]?.stringValue {
        case "snapshot": return self.applySnapshot(message)
        case "patch": return self.applyPatch(message)
        case "event":
            guard let event = RollcallEvent(message: message) else { return .none }
            let isNew = self.lock.withLock {
                guard event.sequence > self.lastEvent else { return false }
                self.lastEvent = event.sequence
                return true
            }
            if isNew { self.publish(.eventReceived(event)) }
            return .none
        case "resumed":
            let recovered = message["recovered"]?.boolValue ?? false
            self.lock.withLock {
                self.resumeResult = recovered
                if let seq = message["seq"]?.intValue { self.lastEvent = max(self.lastEvent, UInt64(max(0, seq))) }
            }
            self.publish(.resumed(recovered: recovered))
            return .none
        default:
            return .none
        }
    }

    private func applySnapshot(_ message: JSONValue) -> FollowUp {
        let store: RosterStore
        do {
            store = try RosterStore(snapshot: message)
        } catch {
            return self.drifted(error.description, resume: false)
        }
        let recovered = message["recovered"]?.boolValue
        self.lock.withLock {
            self.store = store
            self.driftStreak = 0
            self.lastEvent = max(self.lastEvent, store.sequence)
            if recovered == false { self.resumeResult = false }
        }
        self.publish(.snapshotReplaced(resync: message["resync"]?.boolValue ?? false, recovered: recovered))
        if recovered == false { self.publish(.resumed(recovered: false)) }
        return .none
    }

    private func applyPatch(_ message: JSONValue) -> FollowUp {
        enum Outcome {
            case ignored
            case gap(String)
            case drift(String)
            case applied([RoomChange])
        }
        let outcome: Outcome = self.lock.withLock {
            guard var store = self.store else { return .ignored }
            let before = store.sequence
            if let from = message["from"]?.intValue, UInt64(max(0, from)) > before {
                return .gap("patch from \(from) while the roster is at \(before)")
            }
            let existing = store.roster["participants"]?.objectValue
            do {
                try store.apply(patch: message)
            } catch {
                return .drift(String(describing: error))
            }
            guard store.sequence != before else { return .ignored }
            self.store = store
            self.driftStreak = 0
            self.lastEvent = max(self.lastEvent, store.sequence)
            var changes: [RoomChange] = []
            if message["patch"]?["room"] != nil { changes.append(.roomUpdated) }
            for (uid, value) in message["patch"]?["participants"]?.objectValue?.entries ?? [] {
                let existed = existing?[uid] != nil
                if value.isNull {
                    if existed { changes.append(.participantRemoved(uid: uid)) }
                } else {
                    changes.append(existed ? .participantUpdated(uid: uid) : .participantAdded(uid: uid))
                }
            }
            return .applied(changes)
        }
        switch outcome {
        case .ignored: return .none
        case .gap(let detail): return self.drifted(detail, resume: true)
        case .drift(let detail): return self.drifted(detail, resume: false)
        case .applied(let changes):
            for change in changes { self.publish(change) }
            return .none
        }
    }

    /// Reports drift and asks for a rejoin, at most three times in a row.
    private func drifted(_ detail: String, resume: Bool) -> FollowUp {
        let streak = self.lock.withLock {
            self.driftStreak += 1
            return self.driftStreak
        }
        self.publish(.driftDetected(detail))
        return streak <= 3 ? .rejoin(resume: resume) : .none
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
    }

    private func publish(_ change: RoomChange) {
        guard self.isActive else { return }
        self.broadcaster.publish(change)
    }
}
