/// A request to change a room, as the WebSocket protocol and the server API both express it, and the rules that
/// turn it into events: `events(in:by:)` is pure, so every rule about who may change what lives here and is
/// tested without sockets.
enum RoomCommand: Hashable {
    /// A participant reports their own state: flags, media id, camera facing.
    case updateState(flags: [ParticipantFlag: Bool], mid: String?, cameraFacing: String?)
    /// Who speaks: a participant reports itself (`uid` its own) or that it stopped (nil); a bot with the `speaker`
    /// capability or the server API reports anyone, nil for nobody.
    case reportSpeaker(uid: String?)
    /// Recording started or stopped, or a participant's audio output changed (its own; the server API names the
    /// participant in `uid`).
    case media(recording: Bool?, audioMode: String?, uid: String?)
    /// A group meeting message, sent by the actor.
    case publishMeeting(sessionID: String, callType: String, isActive: Bool, text: String?)
    /// A moderator action; a `mute` may be hard (the participant cannot unmute itself), for a time or until lifted,
    /// and a `floor` may name how many may present at once and whether a start beyond waits (`FloorSetting`).
    case moderate(
        ModeratorAction, target: String?, reason: String?, hardMute: HardMute? = nil, floor: FloorSetting? = nil)
    /// A participant's permissions, as a moderator, a bot with the `permissions` capability or the server API sets
    /// them. With `ifSeq` (as for the two below) the write is version-checked: refused with `ERR_CONFLICT` when the
    /// object changed after that sequence number (`RoomCommand.checkVersion`).
    case setPermissions(uid: String, change: PermissionChange, ifSeq: UInt64? = nil)
    /// A participant's attributes: keys to set, and to remove (nil). `uid` names another participant (bots with the
    /// `attributes` capability, the server API); nil is the actor.
    case setAttributes(changes: [String: String?], uid: String?, ifSeq: UInt64? = nil)
    /// The room's metadata: keys to set, and to remove (nil).
    case setMetadata(changes: [String: String?], ifSeq: UInt64? = nil)

    /// What a connection must be to the room to send the command over the WebSocket.
    enum Presence {
        /// In the call (joined as a participant).
        case participant
        /// Joined or watching.
        case subscriber
        /// A member of the room's group, in the room or not.
        case member

        /// Whether a connection in the room as `kind` may send the command.
        func admits(_ kind: ClientMessage.SubscriptionKind) -> Bool {
            self != .participant || kind == .participant
        }
    }

    /// What a connection must be to the room to send the command: its own participant state (flags, its audio
    /// output) needs it in the call; what it does to the room or to others (moderation, the recording, metadata,
    /// permissions) needs it in the room, joined or watching.
    var presence: Presence {
        switch self {
        case .updateState: return .participant
        case .media(_, let audioMode, _): return audioMode == nil ? .subscriber : .participant
        // A participant reports its own speaking from the call; a bot with the `speaker` capability may watch.
        case .reportSpeaker, .moderate, .setAttributes, .setMetadata, .setPermissions: return .subscriber
        case .publishMeeting: return .member
        }
    }

    /// The reason recorded with the events (moderator actions).
    var reason: String? {
        if case .moderate(_, _, let reason, _, _) = self { return reason }
        return nil
    }

    /// The sequence number a version-checked write names (`ifSeq`); nil for every other command.
    var ifSeq: UInt64? {
        switch self {
        case .setPermissions(_, _, let ifSeq), .setAttributes(_, _, let ifSeq), .setMetadata(_, let ifSeq): return ifSeq
        default: return nil
        }
    }

    /// Whether the command's events do not depend on the room's state (a meeting message), so that in a cluster it
    /// need not wait for this node's earlier changes to the room.
    var isIndependentOfRoomState: Bool {
        if case .publishMeeting = self { return true }
        return false
    }

    /// The events the command causes in `state`, none when it changes nothing.
    ///
    /// - Parameters:
    ///   - state: the room as it is.
    ///   - actor: who asks.
    /// - Throws: `ERR_FORBIDDEN` when the actor may not, `ERR_NOT_FOUND` when a named participant is not in the call.
    func events(in state: RoomState, by actor: RoomActor) throws(GatewayError) -> [RoomEvent] {
        switch self {
        case .updateState(let flags, let mid, let facing):
            let uid = actor.uid
            let participant = state.participants[uid]
            if flags[.audioMuted] == false, participant?.permissions.mayUnmute == false {
                throw .forbidden("a moderator muted you; ask to be unmuted")
            }
            if flags[.presenting] == true, participant?.permissions.mayShare == false {
                throw .forbidden("a moderator does not let you share your screen")
            }
            var flags = flags
            var events: [RoomEvent] = []
            if flags[.presenting] == true, participant?.presenting != true, let limit = state.presenterLimit {
                // The first in the queue go first: a start is allowed while fewer than `limit` present and those
                // waiting before the participant would not fill the room left.
                let presenters = state.joinedParticipants.filter(\.presenting).map(\.uid)
                let place = state.floorQueue.firstIndex(of: uid) ?? state.floorQueue.count
                if presenters.count + place >= limit {
                    guard state.floorQueues else {
                        let who = presenters.joined(separator: ", ")
                        throw GatewayError(
                            .floorTaken, "\(who) is presenting: wait, or ask a moderator to hand you the floor")
                    }
                    // The start waits in the queue; the rest of the message applies.
                    flags[.presenting] = nil
                    if !state.floorQueue.contains(uid) { events.append(.floorRequested(uid: uid)) }
                }
            }
            if flags[.presenting] == false, state.floorQueue.contains(uid) {
                // Asking not to present while waiting leaves the queue.
                events.append(.floorRequestWithdrawn(uid: uid))
            }
            for flag in ParticipantFlag.allCases {
                guard let value = flags[flag], participant?.flags.contains(flag) != value else { continue }
                events.append(.flagChanged(uid: uid, flag: flag, value: value))
            }
            if let mid, participant?.mid != mid { events.append(.mediaIDChanged(uid: uid, mid: mid)) }
            if let facing, participant?.cameraFacing != facing {
                events.append(.cameraFacingChanged(uid: uid, facing: facing))
            }
            return events
        case .reportSpeaker(let uid):
            guard actor.isServerAPIOrBot(with: "speaker") else {
                // A participant speaks for itself only: its own media stack is what detects its voice.
                if let other = uid, other != actor.uid {
                    throw .forbidden("a participant reports its own speaking only, not '\(other)''s")
                }
                guard state.participants[actor.uid]?.isJoined == true else { throw .notInRoom }
                if uid == nil { return state.speakers.contains(actor.uid) ? [.speakerStopped(uid: actor.uid)] : [] }
                return state.activeSpeaker != actor.uid ? [.activeSpeakerChanged(uid: actor.uid)] : []
            }
            if let uid, state.participants[uid]?.isJoined != true { throw .notFound("'\(uid)' is not in the call") }
            if let uid { return state.activeSpeaker != uid ? [.activeSpeakerChanged(uid: uid)] : [] }
            return state.speakers.isEmpty ? [] : [.activeSpeakerChanged(uid: nil)]
        case .media(let recording, let audioMode, let target):
            var events: [RoomEvent] = []
            if let recording {
                guard actor.mayRecord(in: state) else { throw .forbidden("only moderators start or stop recording") }
                if state.isRecording != recording { events.append(.recordingChanged(isRecording: recording)) }
            }
            if let audioMode {
                let uid = target ?? actor.uid
                guard uid == actor.uid || actor.isServerAPI else {
                    throw .forbidden("the audio output is the participant's own: '\(uid)' sets it")
                }
                guard let participant = state.participants[uid], participant.isJoined else {
                    throw .notFound("'\(uid)' is not in the call")
                }
                if participant.audioMode != audioMode { events.append(.audioModeChanged(uid: uid, mode: audioMode)) }
            }
            return events
        case .publishMeeting(let sessionID, let callType, let isActive, let text):
            if state.participants[actor.uid]?.permissions.mayPublishMeetings == false {
                throw .forbidden("a moderator does not let you send meeting messages")
            }
            // Ending the meeting that is on clears every member's "Join meeting" card: its sender, a moderator or
            // admin of the group, or the server API may.
            if !isActive, let meeting = state.activeMeeting, meeting.sessionID == sessionID,
                meeting.sender != actor.uid, !actor.isOperator(in: state)
            {
                throw .forbidden("only its sender or a moderator of the group ends meeting '\(sessionID)'")
            }
            let message = MeetingMessage(
                sessionID: sessionID, callType: callType, sender: actor.uid, text: text, isActive: isActive)
            return [.meetingMessage(message)]
        case .setAttributes(let changes, let target, let ifSeq):
            let uid = target ?? actor.uid
            let forOther = actor.isServerAPIOrBot(with: "attributes")
            guard uid == actor.uid || forOther else {
                throw .forbidden("a participant sets its own attributes only; bots need the 'attributes' capability")
            }
            guard let participant = state.participants[uid], participant.isJoined else {
                throw uid == actor.uid ? .notInRoom : .notFound("'\(uid)' is not in the call")
            }
            if !forOther, let locked = changes.keys.sorted().first(where: { actor.tokenAttributes[$0] != nil }) {
                throw .forbidden("'\(locked)' comes from your token; only the backend changes it")
            }
            try Self.checkVersion(ifSeq, of: participant.attributesSequence, what: "'\(uid)''s attributes")
            let effective = changes.filter { participant.attributes[$0.key] != $0.value }
            try AttributeLimits.participant.applying(effective, to: participant.attributes, what: "attributes")
            return effective.isEmpty ? [] : [.attributesChanged(uid: uid, changes: effective)]
        case .setMetadata(let changes, let ifSeq):
            guard actor.maySetMetadata(in: state) else {
                throw .forbidden("room metadata is set by moderators, bots with 'metadata' and the server API")
            }
            try Self.checkVersion(ifSeq, of: state.metadataSequence, what: "the room's metadata")
            let effective = changes.filter { state.metadata[$0.key] != $0.value }
            try AttributeLimits.room.applying(effective, to: state.metadata, what: "metadata")
            return effective.isEmpty ? [] : [.metadataChanged(changes: effective)]
        case .setPermissions(let uid, let change, let ifSeq):
            guard actor.maySetPermissions(in: state) else {
                throw .forbidden("permissions are set by moderators, bots with 'permissions' and the server API")
            }
            guard let participant = state.participants[uid], participant.isJoined else {
                throw .notFound("'\(uid)' is not in the call")
            }
            if participant.role == .admin, !actor.isAdmin { throw .forbidden("only an admin restricts an admin") }
            try Self.checkVersion(ifSeq, of: participant.permissionsSequence, what: "'\(uid)''s permissions")
            let permissions = change.applied(to: participant.permissions)
            return permissions == participant.permissions
                ? [] : [.permissionsChanged(uid: uid, permissions: permissions)]
        case .moderate(let action, let target, _, let hardMute, let floor):
            guard actor.mayTake(action, in: state) else {
                throw .forbidden("'\(action.rawValue)' needs a moderator of this room")
            }
            let participant = target.flatMap { state.participants[$0] }
            if let target, action.needsTargetInCall, participant?.isJoined != true {
                throw .notFound("'\(target)' is not in the call")
            }
            if let target, action.needsTargetWaiting, state.waitingPosition(of: target) == nil {
                throw .notFound("'\(target)' is not in the waiting room")
            }
            if action.protectsAdmins || hardMute != nil, participant?.role == .admin, !actor.isAdmin {
                throw .forbidden("only an admin can \(action.rawValue) an admin")
            }
            if let hardMute, let target, let participant {
                // A hard mute takes the right to unmute away, even from someone already muted.
                guard participant.permissions.mayUnmute || participant.permissions.restrictedUntil != nil else {
                    return []
                }
                return [.hardMuted(uid: target, durationMilliseconds: hardMute.durationMilliseconds)]
            }
            return action.events(target: target, in: state, by: actor.uid, floor: floor)
        }
    }

    /// The check of a version-checked write, after the actor's rights: the object (a participant's attributes or
    /// permissions, the room's metadata) must not have changed after `ifSeq`, a sequence number the writer saw
    /// (the `seq` of the snapshot, patch or event it read the object in, or of the ack of its own last write).
    ///
    /// - Parameters:
    ///   - ifSeq: the writer's sequence number; nil writes unchecked.
    ///   - version: the sequence number of the object's last change.
    ///   - what: the object, for the error's words.
    /// - Throws: `ERR_CONFLICT` when the object changed after `ifSeq`.
    static func checkVersion(_ ifSeq: UInt64?, of version: UInt64, what: String) throws(GatewayError) {
        guard let ifSeq, version > ifSeq else { return }
        throw .conflict(what, changedAt: version, ifSeq: ifSeq)
    }
}
