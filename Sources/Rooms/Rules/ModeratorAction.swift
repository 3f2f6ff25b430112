/// The moderator actions, each with its rules: the bot capability it needs, whether it names a target, whether the
/// target must be in the call, whether it protects admins, and the events it causes. A new action is a case here and
/// its line in each property.
enum ModeratorAction: String, Hashable, CaseIterable {
    case mute
    case muteAll = "mute_all"
    case remove
    case ban
    case unban
    case promote
    case demote
    case spotlight
    case unspotlight
    case lowerHand = "lower_hand"
    case lowerAllHands = "lower_all_hands"
    case askUnmute = "ask_unmute"
    case endSession = "end_session"
    /// Refuses new joins into the call (`ERR_ROOM_LOCKED`) until `unlock`; who is in stays.
    case lock
    case unlock
    /// Sets the presenter floor: one participant presents at a time (`limit` of them when the action names it;
    /// `ERR_FLOOR_TAKEN` beyond), until `open_floor`.
    case floor
    case openFloor = "open_floor"
    /// Stops the target's screen share.
    case stopShare = "stop_share"
    /// Stops every screen share but the target's, so the target may present under the floor (and puts the target
    /// first in the floor's queue when the room queues).
    case handFloor = "hand_floor"
    /// Turns the waiting room on: a join into the call by a user who may not bypass it waits until admitted.
    case requireAdmission = "require_admission"
    /// Turns the waiting room off, letting in everyone waiting.
    case openAdmission = "open_admission"
    /// Lets the waiting target into the call.
    case admit
    case admitAll = "admit_all"
    /// Turns the waiting target away (`ERR_ADMISSION_DENIED` to its join).
    case deny
    case denyAll = "deny_all"

    /// The most participants a presenter floor lets present at once (`floor` with `limit`).
    static let maximumFloorLimit = 16

    /// The capability a bot token needs in `caps` to perform the action.
    var capability: String {
        switch self {
        case .mute, .muteAll, .lowerHand, .lowerAllHands, .askUnmute: return "mute"
        case .remove: return "remove"
        case .ban, .unban: return "ban"
        case .promote, .demote: return "promote"
        case .spotlight, .unspotlight: return "pin"
        case .endSession: return "end"
        case .lock, .unlock: return "lock"
        case .floor, .openFloor, .stopShare, .handFloor: return "floor"
        case .requireAdmission, .openAdmission, .admit, .admitAll, .deny, .denyAll: return "admit"
        }
    }

    /// Whether the action names a target participant.
    var needsTarget: Bool {
        switch self {
        case .mute, .remove, .ban, .unban, .promote, .demote, .spotlight, .unspotlight, .lowerHand, .askUnmute,
            .stopShare, .handFloor, .admit, .deny:
            return true
        case .muteAll, .lowerAllHands, .endSession, .lock, .unlock, .floor, .openFloor, .requireAdmission,
            .openAdmission, .admitAll, .denyAll:
            return false
        }
    }

    /// Whether the target must be in the call (`ERR_NOT_FOUND` otherwise); bans and promotions also apply to users
    /// who are not.
    var needsTargetInCall: Bool {
        switch self {
        case .mute, .remove, .spotlight, .unspotlight, .lowerHand, .askUnmute, .stopShare, .handFloor: return true
        case .ban, .unban, .promote, .demote, .muteAll, .lowerAllHands, .endSession, .lock, .unlock, .floor,
            .openFloor, .requireAdmission, .openAdmission, .admit, .admitAll, .deny, .denyAll:
            return false
        }
    }

    /// Whether only an admin may take the action against an admin.
    var protectsAdmins: Bool {
        switch self {
        case .remove, .ban, .demote: return true
        case .mute, .muteAll, .unban, .promote, .spotlight, .unspotlight, .lowerHand, .lowerAllHands, .askUnmute,
            .endSession, .lock, .unlock, .floor, .openFloor, .stopShare, .handFloor, .requireAdmission, .openAdmission,
            .admit, .admitAll, .deny, .denyAll:
            return false
        }
    }

    /// Whether the target must wait in the waiting room (`ERR_NOT_FOUND` otherwise).
    var needsTargetWaiting: Bool { self == .admit || self == .deny }

    /// The events the action causes in `state` (none when it would change nothing), its target checked.
    ///
    /// - Parameters:
    ///   - target: the target's uid, for actions that have one.
    ///   - state: the room as it is.
    ///   - actor: who acts (not muted by `mute_all`).
    ///   - floor: for `floor`, how many may present at once and whether a start beyond waits; one, refused, when nil.
    func events(target: String?, in state: RoomState, by actor: String, floor: FloorSetting? = nil) -> [RoomEvent] {
        let participant = target.flatMap { state.participants[$0] }
        switch self {
        case .mute:
            guard let target, participant?.audioMuted == false else { return [] }
            return [.mutedByModerator(uid: target)]
        case .muteAll:
            return state.joinedParticipants.filter { participant in
                !participant.audioMuted && !state.isOperator(participant.uid) && participant.uid != actor
            }.map { .mutedByModerator(uid: $0.uid) }
        case .lowerHand:
            guard let target, participant?.handRaised == true else { return [] }
            return [.flagChanged(uid: target, flag: .handRaised, value: false)]
        case .askUnmute:
            // Lifts a hard mute's restriction and asks; the participant answers by unmuting itself.
            guard let target, let participant, participant.audioMuted else { return [] }
            var events: [RoomEvent] = []
            if !participant.permissions.mayUnmute {
                var permissions = participant.permissions
                permissions.mayUnmute = true
                permissions.restrictedUntil = nil
                events.append(.permissionsChanged(uid: target, permissions: permissions))
            }
            return events + [.unmuteRequested(uid: target)]
        case .lowerAllHands:
            return state.joinedParticipants.filter(\.handRaised).map {
                .flagChanged(uid: $0.uid, flag: .handRaised, value: false)
            }
        case .spotlight, .unspotlight:
            let value = self == .spotlight
            guard let target, participant?.pinned != value else { return [] }
            return [.flagChanged(uid: target, flag: .pinned, value: value)]
        case .promote, .demote:
            let value = self == .promote
            guard let target, state.operators.contains(target) != value else { return [] }
            return [.operatorChanged(uid: target, isOperator: value)]
        case .unban:
            guard let target, state.banned.contains(target) else { return [] }
            return [.banChanged(uid: target, isBanned: false)]
        case .remove, .ban:
            guard let target else { return [] }
            var events: [RoomEvent] = []
            if self == .ban && !state.banned.contains(target) {
                events.append(.banChanged(uid: target, isBanned: true))
            }
            if let participant, participant.isJoined {
                let deviceID = participant.devices.first?.deviceID ?? "default"
                events.append(
                    .participantLeft(uid: target, deviceID: deviceID, reason: self == .ban ? .banned : .removed))
            }
            return events
        case .lock, .unlock:
            let value = self == .lock
            return state.isLocked == value ? [] : [.lockChanged(isLocked: value)]
        case .floor, .openFloor:
            let setting = self == .floor ? floor ?? FloorSetting() : nil
            let queues = setting?.queues ?? false
            guard state.presenterLimit != setting?.limit || state.floorQueues != queues else { return [] }
            return [.floorChanged(limit: setting?.limit, queues: queues)]
        case .stopShare:
            guard let target, participant?.presenting == true else { return [] }
            return [.flagChanged(uid: target, flag: .presenting, value: false)]
        case .handFloor:
            guard let target else { return [] }
            let stops: [RoomEvent] = state.joinedParticipants.filter { $0.presenting && $0.uid != target }.map {
                .flagChanged(uid: $0.uid, flag: .presenting, value: false)
            }
            guard state.floorQueues, participant?.presenting != true, state.floorQueue.first != target else {
                return stops
            }
            // Under a queue the target goes first: the others leave it and ask again behind the target, in order.
            let others = state.floorQueue.filter { $0 != target }
            return stops + others.map { .floorRequestWithdrawn(uid: $0) } + [.floorRequested(uid: target)]
                + others.map { .floorRequested(uid: $0) }
        case .requireAdmission:
            return state.requiresAdmission ? [] : [.admissionChanged(isRequired: true)]
        case .openAdmission:
            // Turning the waiting room off lets in whoever waits, in the order they arrived.
            return (state.requiresAdmission ? [.admissionChanged(isRequired: false)] : [])
                + state.waiting.map { .waitingAdmitted(uid: $0.uid) }
        case .admit, .deny:
            guard let target, state.waitingPosition(of: target) != nil else { return [] }
            return [self == .admit ? .waitingAdmitted(uid: target) : .waitingDenied(uid: target)]
        case .admitAll:
            return state.waiting.map { .waitingAdmitted(uid: $0.uid) }
        case .denyAll:
            return state.waiting.map { .waitingDenied(uid: $0.uid) }
        case .endSession:
            // Everyone in the call leaves with the reason `session_ended`, then the session ends.
            let joined = state.joinedParticipants
            guard !joined.isEmpty || state.startedAt != nil else { return [] }
            return joined.map { participant in
                let deviceID = participant.devices.first?.deviceID ?? "default"
                return .participantLeft(uid: participant.uid, deviceID: deviceID, reason: .sessionEnded)
            } + [.sessionEnded]
        }
    }
}

/// What a `floor` action sets: how many may present at once, and whether a start beyond that waits in the floor's
/// queue (`room.floor_requested`) instead of being refused with `ERR_FLOOR_TAKEN`.
struct FloorSetting: Hashable, Sendable {
    var limit = 1
    var queues = false
}
