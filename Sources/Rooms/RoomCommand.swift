/// A request to change a room, as the WebSocket protocol and the server API both express it, and the rules that
/// turn it into events: `events(in:by:)` is pure, so every rule about who may change what lives here and is
/// tested without sockets.
enum RoomCommand: Hashable {
    /// A participant reports their own state: flags, media id, camera facing.
    case updateState(flags: [ParticipantFlag: Bool], mid: String?, cameraFacing: String?)
    /// The active speaker changed (nil: nobody).
    case reportSpeaker(uid: String?)
    /// Recording started or stopped, or the audio mode changed.
    case media(recording: Bool?, audioMode: String?)
    /// A group meeting message, sent by the actor.
    case publishMeeting(sessionID: String, callType: String, isActive: Bool, text: String?)
    /// A moderator action.
    case moderate(ModeratorAction, target: String?, reason: String?)

    /// What a connection must be to the room to send the command over the WebSocket.
    enum Presence {
        /// In the call (joined as a participant).
        case participant
        /// Joined or watching.
        case subscriber
        /// A member of the room's group, in the room or not.
        case member
    }

    /// What a connection must be to the room to send the command.
    var presence: Presence {
        switch self {
        case .updateState, .reportSpeaker, .media: return .participant
        case .moderate: return .subscriber
        case .publishMeeting: return .member
        }
    }

    /// The reason recorded with the events (moderator actions).
    var reason: String? {
        if case .moderate(_, _, let reason) = self { return reason }
        return nil
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
            var events: [RoomEvent] = []
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
            if let uid, state.participants[uid]?.isJoined != true { throw .notFound("'\(uid)' is not in the call") }
            return state.activeSpeaker != uid ? [.activeSpeakerChanged(uid: uid)] : []
        case .media(let recording, let audioMode):
            var events: [RoomEvent] = []
            if let recording {
                let isRecordingBot = actor.isBot && actor.capabilities.contains("record")
                guard actor.isOperator(in: state) || isRecordingBot else {
                    throw .forbidden("only moderators start or stop recording")
                }
                if state.isRecording != recording { events.append(.recordingChanged(isRecording: recording)) }
            }
            if let audioMode, state.audioMode != audioMode { events.append(.audioModeChanged(mode: audioMode)) }
            return events
        case .publishMeeting(let sessionID, let callType, let isActive, let text):
            let message = MeetingMessage(
                sessionID: sessionID, callType: callType, sender: actor.uid, text: text, isActive: isActive)
            return [.meetingMessage(message)]
        case .moderate(let action, let target, _):
            let allowed = actor.isBot ? actor.capabilities.contains(action.capability) : actor.isOperator(in: state)
            guard allowed else { throw .forbidden("'\(action.rawValue)' needs a moderator of this room") }
            let participant = target.flatMap { state.participants[$0] }
            if let target, action.needsTargetInCall, participant?.isJoined != true {
                throw .notFound("'\(target)' is not in the call")
            }
            if action.protectsAdmins, participant?.role == .admin, !actor.isAdmin {
                throw .forbidden("only an admin can \(action.rawValue) an admin")
            }
            return action.events(target: target, in: state, by: actor.uid)
        }
    }
}
