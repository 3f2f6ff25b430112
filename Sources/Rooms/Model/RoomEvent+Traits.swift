/// What each event means beyond the state it changes, declared once beside the event: how urgently its roster change
/// goes out, which subscribers see it (by event mode, and who may see it at all), which roster entries it touches,
/// what it does to the room's seats and devices, and which connections it closes. The reducer (`RoomState.apply`)
/// says what it changes.
extension RoomEvent {
    /// What an event does to the room's seats and devices; a cluster's shared log checks and keeps the seats with it,
    /// atomically for every node.
    public enum SeatEffect: Hashable, Sendable {
        /// Nothing.
        case none
        /// A device joins: the user takes a seat of their class unless another of their devices holds one.
        case takeSeat(uid: String, deviceID: String, countsAgainstCapacity: Bool)
        /// A device came back within the grace period (through any node, which then holds it).
        case restoreDevice(uid: String, deviceID: String)
        /// The device lost its connection; seat and device stay for the grace period.
        case keepDevice(uid: String, deviceID: String)
        /// One device leaves; the seat goes with the user's last device.
        case releaseDevice(uid: String, deviceID: String)
        /// Every device of the user leaves (removed or banned), and the seat with them.
        case releaseUser(uid: String, deviceID: String)
        /// Everyone leaves: the session ended.
        case releaseEveryone
    }

    /// Connections that applying an event closes, after the answer to the request that caused it.
    struct ConnectionClosure: Hashable {
        /// Whose connections; nil for every participant connection of the room.
        var uid: String?
        /// The close code (`GatewayCloseCode`).
        var code: UInt16
        var reason: String
        /// Whether the user's observer connections go too (a ban keeps the user out of the room entirely).
        var includesObservers: Bool
    }

    /// The event's effect on seats and devices.
    public var seatEffect: SeatEffect {
        switch self {
        case .participantJoined(let uid, let deviceID, _, _, let role, _, _, _):
            return .takeSeat(uid: uid, deviceID: deviceID, countsAgainstCapacity: role.countsAgainstCapacity)
        case .connectionRestored(let uid, let deviceID):
            return .restoreDevice(uid: uid, deviceID: deviceID)
        case .connectionLost(let uid, let deviceID), .participantConnectionClosed(let uid, let deviceID):
            return .keepDevice(uid: uid, deviceID: deviceID)
        case .participantLeft(let uid, let deviceID, let reason):
            return reason.endsEveryDevice
                ? .releaseUser(uid: uid, deviceID: deviceID) : .releaseDevice(uid: uid, deviceID: deviceID)
        case .sessionEnded:
            return .releaseEveryone
        case .flagChanged, .mediaIDChanged, .activeSpeakerChanged, .speakerStopped, .activeSpeakerShown,
            .recordingChanged, .audioModeChanged, .cameraFacingChanged, .operatorChanged, .banChanged,
            .mutedByModerator, .meetingMessage, .attributesChanged, .metadataChanged, .permissionsChanged,
            .unmuteRequested, .hardMuted, .roleChanged, .lockChanged, .floorChanged, .floorRequested,
            .floorRequestWithdrawn, .admissionChanged, .waitingEntered, .waitingAdmitted, .waitingDenied,
            .waitingLeft:
            return .none
        }
    }

    /// Whether the event's roster change may skip the coalescing window (leaves, removals and moderation), so that
    /// nobody keeps seeing a participant who is gone or a mute that is in effect.
    var isUrgent: Bool {
        switch self {
        case .participantLeft, .mutedByModerator, .banChanged, .operatorChanged, .sessionEnded, .permissionsChanged,
            .hardMuted, .roleChanged, .lockChanged, .floorChanged, .admissionChanged:
            return true
        case .participantJoined, .connectionLost, .participantConnectionClosed, .connectionRestored, .flagChanged,
            .mediaIDChanged, .activeSpeakerChanged, .speakerStopped, .activeSpeakerShown, .recordingChanged,
            .audioModeChanged, .cameraFacingChanged, .meetingMessage, .attributesChanged, .metadataChanged,
            .unmuteRequested, .floorRequested, .floorRequestWithdrawn, .waitingEntered, .waitingAdmitted,
            .waitingDenied, .waitingLeft:
            return false
        }
    }

    /// Whether subscribers in the `notable` event mode receive the event: what an app shows as a notice (meeting
    /// messages, moderation, recording, the end of the session, removals, the spotlight).
    var isNotable: Bool {
        switch self {
        case .meetingMessage, .mutedByModerator, .operatorChanged, .banChanged, .sessionEnded, .recordingChanged,
            .permissionsChanged, .unmuteRequested, .hardMuted, .roleChanged, .lockChanged, .floorChanged,
            .floorRequested, .floorRequestWithdrawn, .admissionChanged:
            return true
        case .waitingEntered, .waitingAdmitted, .waitingDenied, .waitingLeft:
            // Never sent to subscribers (`isForOperatorsOnly`).
            return false
        case .participantLeft(_, _, let reason):
            return reason == .removed || reason == .banned || reason == .accessRevoked
        case .flagChanged(_, let flag, _):
            return flag.isNotable
        case .participantJoined, .connectionLost, .participantConnectionClosed, .connectionRestored, .mediaIDChanged,
            .activeSpeakerChanged, .speakerStopped, .activeSpeakerShown, .audioModeChanged, .cameraFacingChanged,
            .attributesChanged, .metadataChanged:
            return false
        }
    }

    /// The participant the event is about, whose visibility decides who may receive it (`audience(in:)`); nil for
    /// events about the room, or about nobody in particular.
    var subject: String? {
        switch self {
        case .participantJoined(let uid, _, _, _, _, _, _, _), .participantLeft(let uid, _, _),
            .connectionLost(let uid, _), .participantConnectionClosed(let uid, _), .connectionRestored(let uid, _),
            .flagChanged(let uid, _, _), .mediaIDChanged(let uid, _), .cameraFacingChanged(let uid, _),
            .operatorChanged(let uid, _), .banChanged(let uid, _), .mutedByModerator(let uid),
            .audioModeChanged(let uid, _), .attributesChanged(let uid, _), .permissionsChanged(let uid, _),
            .hardMuted(let uid, _), .activeSpeakerChanged(let uid?), .speakerStopped(let uid),
            .unmuteRequested(let uid), .roleChanged(let uid, _), .floorRequested(let uid),
            .floorRequestWithdrawn(let uid):
            return uid
        case .activeSpeakerChanged(nil), .activeSpeakerShown, .recordingChanged, .meetingMessage, .sessionEnded,
            .metadataChanged, .lockChanged, .floorChanged, .admissionChanged, .waitingEntered, .waitingAdmitted,
            .waitingDenied, .waitingLeft:
            // Waiting users are in no list; the events about them go to no subscriber (`isForOperatorsOnly`).
            // The shown speaker is never a hidden participant (`RoomState.shownSpeakerCandidate`).
            return nil
        }
    }

    /// Who may receive the event, judged against the room's state right after it: an event about a participant
    /// the lists do not show (hidden) reaches that participant's own connections only, so a recorder is in no
    /// event others receive. The live fan-out, resume and the history all go by it.
    func audience(in state: RoomState) -> EventAudience {
        guard let uid = self.subject, state.isHidden(uid) else { return .everyone }
        return .participant(uid)
    }

    /// The actor an event message names: nil for a hidden participant acting on anything but itself (a recorder
    /// starting the recording), so that others do not learn of it; the log keeps the actor for the audit.
    func namedActor(_ actor: String?, in state: RoomState) -> String? {
        guard let actor, actor != self.subject, state.isHidden(actor) else { return actor }
        return nil
    }

    /// The participant whose roster entry the event may change; nil when it changes none, or all of them
    /// (`changesEveryParticipant`). Every event may change the room entry.
    var changedParticipant: String? {
        switch self {
        case .participantJoined(let uid, _, _, _, _, _, _, _), .participantLeft(let uid, _, _),
            .connectionLost(let uid, _),
            .participantConnectionClosed(let uid, _), .connectionRestored(let uid, _), .flagChanged(let uid, _, _),
            .mediaIDChanged(let uid, _), .cameraFacingChanged(let uid, _), .operatorChanged(let uid, _),
            .banChanged(let uid, _), .mutedByModerator(let uid), .audioModeChanged(let uid, _),
            .attributesChanged(let uid, _), .permissionsChanged(let uid, _), .hardMuted(let uid, _),
            .roleChanged(let uid, _), .activeSpeakerChanged(let uid?):
            // A report that someone speaks moves their `lastSpokeAt` (the `recent_speaking` order).
            return uid
        case .waitingEntered(let uid, _, _, _, _), .waitingAdmitted(let uid), .waitingDenied(let uid),
            .waitingLeft(let uid, _):
            // The entry of the `waiting` view.
            return uid
        case .activeSpeakerChanged(nil), .speakerStopped, .activeSpeakerShown, .recordingChanged, .meetingMessage,
            .sessionEnded, .metadataChanged, .unmuteRequested, .lockChanged, .floorChanged, .floorRequested,
            .floorRequestWithdrawn, .admissionChanged:
            return nil
        }
    }

    /// Whether the event is about the waiting room's queue: who waits is for those who may admit them, so these
    /// events go to no subscriber as events (nor in a resume or the history); the `waiting` view, the `waiting`
    /// query and webhooks carry them.
    var isForOperatorsOnly: Bool {
        switch self {
        case .waitingEntered, .waitingAdmitted, .waitingDenied, .waitingLeft: return true
        default: return false
        }
    }

    /// Whether the event may answer or move a join waiting in the waiting room: the waiting room's own events, a
    /// join (another device of the user got in), a ban, the end of the session.
    var concernsWaitingRoom: Bool {
        switch self {
        case .waitingEntered, .waitingAdmitted, .waitingDenied, .waitingLeft, .participantJoined, .banChanged(_, true),
            .sessionEnded:
            return true
        default:
            return false
        }
    }

    /// Whether the event is a raw report of who speaks: with the `stable` speaker rule, subscribers get the switch of
    /// the shown speaker (`activeSpeakerShown`) once a report has held, not the reports.
    var isSpeakerReport: Bool {
        switch self {
        case .activeSpeakerChanged, .speakerStopped: return true
        default: return false
        }
    }

    /// Whether the event moves the version a version-checked write compares with (`ifSeq`): a participant's
    /// attributes or permissions, the room's metadata.
    var changesVersion: Bool {
        switch self {
        case .attributesChanged, .metadataChanged, .permissionsChanged, .hardMuted: return true
        default: return false
        }
    }

    /// Whether the event may change every participant's roster entry.
    var changesEveryParticipant: Bool {
        if case .sessionEnded = self { return true }
        return false
    }

    /// The connections applying the event closes, if any.
    var closedConnections: ConnectionClosure? {
        switch self {
        case .participantLeft(let uid, _, .removed):
            return ConnectionClosure(
                uid: uid, code: GatewayCloseCode.removed.rawValue, reason: "removed by a moderator",
                includesObservers: false)
        case .participantLeft(let uid, _, .banned), .banChanged(let uid, true):
            return ConnectionClosure(
                uid: uid, code: GatewayCloseCode.banned.rawValue, reason: "banned by a moderator",
                includesObservers: true)
        case .sessionEnded:
            return ConnectionClosure(
                uid: nil, code: GatewayCloseCode.sessionEnded.rawValue, reason: "the session was ended",
                includesObservers: false)
        default:
            return nil
        }
    }
}

extension LeaveReason {
    /// Whether the leave takes every device of the user (a removal, a ban, the end of the session), not only the
    /// one named.
    var endsEveryDevice: Bool { self == .removed || self == .banned || self == .sessionEnded }
}
