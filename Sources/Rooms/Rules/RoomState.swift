/// The state of one room (a call session), as the reducer builds it from the room's log.
public struct RoomState: Hashable, Sendable {
    /// The room id; for group meetings the group's id, so it is persistent.
    public var id: String
    /// `audio` or `video`, set by the first join.
    public var callType: String
    /// When the current call started (first join), in milliseconds; nil when nobody has joined yet.
    public var startedAt: Int64?
    /// Who started the current call.
    public var initiator: String?
    /// Whether the call is being recorded.
    public var isRecording: Bool
    /// Who is speaking, as reported, in the order they started: the last is the active speaker.
    public var speakers: [String]
    /// Participants by uid, including those who left (with `leftAt`), in join order in `joinOrder`.
    public var participants: [String: Participant]
    /// Uids in the order they first joined.
    public var joinOrder: [String]
    /// Uids promoted to operator in this room (beyond token roles).
    public var operators: Set<String>
    /// Uids banned from the room: they cannot join while banned.
    public var banned: Set<String>
    /// What moderators, bots and backends attached to the room (bounded by `AttributeLimits.room`).
    public var metadata: [String: String]
    /// The sequence number of the last change to `metadata` (0 before any): the version a version-checked write
    /// of the metadata (`ifSeq`) is compared with.
    public var metadataSequence: UInt64
    /// Whether the room is locked: a new join into the call is refused (`ERR_ROOM_LOCKED`) but for those who may
    /// lock it. It stays until unlocked, across the end of a session.
    public var isLocked: Bool
    /// The presenter floor: at most this many participants present at once (`ERR_FLOOR_TAKEN` beyond); nil for no
    /// limit. It stays until lifted, across the end of a session.
    public var presenterLimit: Int?
    /// Whether a start beyond the floor waits in `floorQueue` instead of being refused.
    public var floorQueues: Bool
    /// Who waits to present, in the order they asked: the first may start once fewer than the limit present.
    public var floorQueue: [String]
    /// Whether the room has its waiting room on: a join into the call by a user who may not bypass it waits in
    /// `waiting` until a moderator admits it. It stays until turned off, across the end of a session.
    public var requiresAdmission: Bool
    /// Who waits to be let into the call, in the order they arrived.
    public var waiting: [WaitingEntry]
    /// Users a moderator let in during the current call: they join (again) without waiting until the call ends or
    /// they are removed.
    public var admitted: Set<String>
    /// The current meeting announced to the group, if one is active.
    public var activeMeeting: MeetingMessage?
    /// The sequence number of the last applied event.
    public var sequence: UInt64

    public init(id: String) {
        self.id = id
        self.callType = "video"
        self.startedAt = nil
        self.initiator = nil
        self.isRecording = false
        self.speakers = []
        self.metadata = [:]
        self.metadataSequence = 0
        self.isLocked = false
        self.presenterLimit = nil
        self.floorQueues = false
        self.floorQueue = []
        self.requiresAdmission = false
        self.waiting = []
        self.admitted = []
        self.participants = [:]
        self.joinOrder = []
        self.operators = []
        self.banned = []
        self.activeMeeting = nil
        self.sequence = 0
    }

    /// The active speaker as reported: whoever started speaking last and has not stopped (the roster shows it by the
    /// room's speaker rule, `RoomReplica.heldSpeaker`).
    public var activeSpeaker: String? { self.speakers.last }

    /// Participants currently in the call, in join order.
    public var joinedParticipants: [Participant] {
        self.joinOrder.compactMap { self.participants[$0] }.filter(\.isJoined)
    }

    /// Participants in the call that the lists show (all but the hidden ones), in join order.
    public var listedParticipants: [Participant] {
        self.joinOrder.compactMap { self.participants[$0] }.filter { $0.isJoined && !$0.permissions.hidden }
    }

    /// How many participants the lists show (`listedParticipants.count`, without copying them).
    public var listedCount: Int {
        var count = 0
        for uid in self.joinOrder {
            guard let participant = self.participants[uid] else { continue }
            if participant.isJoined && !participant.permissions.hidden { count += 1 }
        }
        return count
    }

    /// Seats taken against the capacity: joined users whose role counts.
    public var seatsTaken: Int {
        self.participants.values.reduce(0) { $0 + ($1.isJoined && $1.role.countsAgainstCapacity ? 1 : 0) }
    }

    /// Uids muted (audio) among joined participants.
    public var mutedUIDs: [String] {
        self.listedParticipants.filter(\.audioMuted).map(\.uid)
    }

    /// Whether `uid` moderates this room: an operator role from the token, or promoted here.
    public func isOperator(_ uid: String) -> Bool {
        self.operators.contains(uid) || (self.participants[uid]?.role.isOperator ?? false)
    }

    /// The reducer: the state after `entry`. Pure and deterministic, so every node that applies the same log
    /// computes the same state.
    ///
    /// - Parameter entry: the next log entry (its sequence number must follow `sequence`).
    public func applying(_ entry: RoomLogEntry) -> RoomState {
        var state = self
        state.apply(entry)
        return state
    }

    /// Applies `entry` in place.
    public mutating func apply(_ entry: RoomLogEntry) {
        self.sequence = entry.sequence
        defer { if !self.floorQueue.isEmpty { self.pruneFloorQueue() } }
        let now = entry.time
        switch entry.event {
        case .participantJoined(
            let uid, let deviceID, let name, let avatar, let role, let callType, let attributes, let hidden):
            if self.startedAt == nil {
                // A new call: the roster lists who joined this call, not those who left an earlier one.
                self.participants = self.participants.filter { $0.value.isJoined }
                self.joinOrder = self.joinOrder.filter { self.participants[$0] != nil }
            }
            var participant =
                self.participants[uid]
                ?? Participant(
                    uid: uid, name: name, avatar: avatar, role: role, joinedAt: now,
                    order: (self.joinOrder.last.flatMap { self.participants[$0]?.order } ?? -1) + 1)
            participant.account(until: now)
            if !participant.isJoined {
                participant.joinedAt = now
                participant.leftAt = nil
            }
            participant.name = name
            participant.avatar = avatar
            // What the token vouches for replaces what was there under the same keys.
            let attributesBefore = participant.attributes
            participant.attributes.merge(attributes) { _, vouched in vouched }
            let permissionsBefore = participant.permissions
            if hidden { participant.permissions.hidden = true }
            // A participant new to the room starts both versions; a join that changes either moves it.
            let isNew = self.participants[uid] == nil
            if isNew || participant.attributes != attributesBefore { participant.attributesSequence = entry.sequence }
            if isNew || participant.permissions != permissionsBefore {
                participant.permissionsSequence = entry.sequence
            }
            participant.role = role
            participant.devices.removeAll { $0.deviceID == deviceID }
            participant.devices.append(ParticipantDevice(deviceID: deviceID, joinedAt: now))
            if self.participants[uid] == nil { self.joinOrder.append(uid) }
            self.participants[uid] = participant
            if !self.waiting.isEmpty { self.waiting.removeAll { $0.uid == uid } }
            if self.startedAt == nil {
                self.startedAt = now
                self.initiator = uid
                if let callType { self.callType = callType }
            }
        case .participantLeft(let uid, let deviceID, let reason):
            guard var participant = self.participants[uid] else { return }
            participant.account(until: now)
            if reason.endsEveryDevice {
                participant.devices.removeAll()
            } else {
                participant.devices.removeAll { $0.deviceID == deviceID }
            }
            if !participant.isJoined {
                participant.leftAt = now
                participant.clearFlagsOnLeave()
                self.speakers.removeAll { $0 == uid }
            }
            // Removed or banned: let in again only by a moderator.
            if reason == .removed || reason == .banned { self.admitted.remove(uid) }
            self.participants[uid] = participant
            self.endCallIfEmpty()
        case .connectionLost(let uid, let deviceID), .connectionRestored(let uid, let deviceID),
            .participantConnectionClosed(let uid, let deviceID):
            let connected: Bool
            if case .connectionRestored = entry.event { connected = true } else { connected = false }
            guard var participant = self.participants[uid],
                let index = participant.devices.firstIndex(where: { $0.deviceID == deviceID })
            else { return }
            participant.devices[index].isConnected = connected
            self.participants[uid] = participant
        case .flagChanged(let uid, let flag, let value):
            guard var participant = self.participants[uid] else { return }
            participant.account(until: now)
            // The hand queue keeps when each hand went up; a hand raised again keeps its place.
            if flag == .handRaised {
                if value && participant.raisedAt == nil { participant.handsRaised += 1 }
                participant.raisedAt = value ? (participant.raisedAt ?? now) : nil
            }
            participant.flags[flag] = value
            // Unmuting ends a moderator's mute.
            if flag == .audioMuted && !value { participant.mutedByModerator = false }
            self.participants[uid] = participant
        case .mediaIDChanged(let uid, let mid):
            self.participants[uid]?.mid = mid
        case .activeSpeakerChanged(let uid?):
            self.speakers.removeAll { $0 == uid }
            if self.participants[uid]?.isJoined == true {
                self.speakers.append(uid)
                self.participants[uid]?.lastSpokeAt = now
            }
        case .activeSpeakerChanged(nil):
            self.speakers = []
        case .speakerStopped(let uid):
            self.speakers.removeAll { $0 == uid }
        case .activeSpeakerShown:
            // The hold is the gateway's presentation of `activeSpeaker`; the state does not change.
            break
        case .recordingChanged(let isRecording):
            self.isRecording = isRecording
        case .audioModeChanged(let uid, let mode):
            self.participants[uid]?.audioMode = mode
        case .cameraFacingChanged(let uid, let facing):
            self.participants[uid]?.cameraFacing = facing
        case .roleChanged(let uid, let role):
            self.participants[uid]?.role = role
        case .operatorChanged(let uid, let isOperator):
            if isOperator { self.operators.insert(uid) } else { self.operators.remove(uid) }
        case .banChanged(let uid, let isBanned):
            if isBanned {
                self.banned.insert(uid)
                self.admitted.remove(uid)
                self.waiting.removeAll { $0.uid == uid }
            } else {
                self.banned.remove(uid)
            }
        case .mutedByModerator(let uid):
            guard var participant = self.participants[uid] else { return }
            participant.account(until: now)
            participant.audioMuted = true
            participant.mutedByModerator = true
            self.participants[uid] = participant
        case .attributesChanged(let uid, let changes):
            guard var participant = self.participants[uid] else { return }
            for (key, value) in changes { participant.attributes[key] = value }
            participant.attributesSequence = entry.sequence
            self.participants[uid] = participant
        case .hardMuted(let uid, let duration):
            guard var participant = self.participants[uid] else { return }
            participant.account(until: now)
            participant.audioMuted = true
            participant.mutedByModerator = true
            participant.permissions.mayUnmute = false
            participant.permissions.restrictedUntil = duration.map { now + $0 }
            participant.permissionsSequence = entry.sequence
            self.participants[uid] = participant
        case .permissionsChanged(let uid, let permissions):
            guard var participant = self.participants[uid] else { return }
            participant.permissions = permissions
            participant.permissionsSequence = entry.sequence
            self.participants[uid] = participant
        case .unmuteRequested:
            // A request to the participant; its answer is its own unmute.
            break
        case .metadataChanged(let changes):
            for (key, value) in changes { self.metadata[key] = value }
            self.metadataSequence = entry.sequence
        case .lockChanged(let isLocked):
            self.isLocked = isLocked
        case .floorChanged(let limit, let queues):
            self.presenterLimit = limit
            self.floorQueues = limit != nil && queues
            if !self.floorQueues { self.floorQueue = [] }
        case .floorRequested(let uid):
            if !self.floorQueue.contains(uid) { self.floorQueue.append(uid) }
        case .floorRequestWithdrawn(let uid):
            self.floorQueue.removeAll { $0 == uid }
        case .admissionChanged(let isRequired):
            self.requiresAdmission = isRequired
        case .waitingEntered(let uid, let name, let avatar, let role, let attributes):
            guard !self.waiting.contains(where: { $0.uid == uid }) else { return }
            self.waiting.append(
                WaitingEntry(uid: uid, name: name, avatar: avatar, role: role, attributes: attributes, since: now))
        case .waitingAdmitted(let uid):
            self.waiting.removeAll { $0.uid == uid }
            self.admitted.insert(uid)
        case .waitingDenied(let uid), .waitingLeft(let uid, _):
            self.waiting.removeAll { $0.uid == uid }
        case .meetingMessage(let message):
            if message.isActive {
                self.activeMeeting = message
            } else if self.activeMeeting?.sessionID == message.sessionID {
                // Only the end of the meeting that is on clears it.
                self.activeMeeting = nil
            }
        case .sessionEnded:
            for uid in self.joinOrder {
                guard var participant = self.participants[uid], participant.isJoined else { continue }
                participant.account(until: now)
                participant.devices.removeAll()
                participant.leftAt = now
                participant.clearFlagsOnLeave()
                self.participants[uid] = participant
            }
            self.speakers = []
            self.isRecording = false
            self.activeMeeting = nil
            self.startedAt = nil
            self.initiator = nil
            self.admitted = []
        }
    }

    /// The floor's queue keeps only those in the call who do not present yet: starting to present, or leaving,
    /// takes a participant out of it.
    private mutating func pruneFloorQueue() {
        self.floorQueue.removeAll { uid in
            guard let participant = self.participants[uid], participant.isJoined else { return true }
            return participant.presenting
        }
    }

    /// When the last participant leaves, the call is over: the next join starts a new one.
    private mutating func endCallIfEmpty() {
        guard !self.participants.values.contains(where: \.isJoined) else { return }
        self.startedAt = nil
        self.initiator = nil
        self.speakers = []
        self.isRecording = false
        self.activeMeeting = nil
        self.admitted = []
    }

    /// Where `uid` waits in the waiting room, from 1; nil when it does not.
    public func waitingPosition(of uid: String) -> Int? {
        self.waiting.firstIndex { $0.uid == uid }.map { $0 + 1 }
    }
}
