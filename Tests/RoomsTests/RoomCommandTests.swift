import Testing
import TokenAuth

@testable import Rooms

/// The pure command step: who may change what, and which events a request causes, without a gateway or sockets.
@Suite struct RoomCommandTests {
    /// A room with a call in progress: an admin, a moderator, a participant (`u-bob`, hand raised) and a bot, with
    /// `u-dan` in the waiting room.
    let state: RoomState

    init() {
        var state = RoomState(id: "r")
        var sequence: UInt64 = 0
        func apply(_ event: RoomEvent) {
            sequence += 1
            state.apply(
                RoomLogEntry(sequence: sequence, time: Int64(sequence) * 1000, actor: nil, reason: nil, event: event))
        }
        for (uid, role) in [("u-admin", ParticipantRole.admin), ("u-mod", .moderator), ("u-bob", .participant)] {
            apply(.participantJoined(uid: uid, deviceID: "d", name: uid, avatar: nil, role: role, callType: nil))
        }
        apply(.participantJoined(uid: "b-bot", deviceID: "d", name: "bot", avatar: nil, role: .bot, callType: nil))
        apply(.flagChanged(uid: "u-bob", flag: .handRaised, value: true))
        apply(.admissionChanged(isRequired: true))
        apply(.waitingEntered(uid: "u-dan", name: "Dan", avatar: nil, role: .participant))
        self.state = state
    }

    func user(_ uid: String, _ role: ParticipantRole?, caps: [String] = []) -> RoomActor {
        let claims = TokenClaims(subject: uid, expiresAt: 0, capabilities: caps)
        return RoomActor(claims: claims, role: role)
    }

    @Test func aStateReportChangesOnlyTheFlagsThatDiffer() throws {
        let command = RoomCommand.updateState(
            flags: [.handRaised: true, .audioMuted: true], mid: "m-1", cameraFacing: nil)
        let events = try command.events(in: self.state, by: self.user("u-bob", .participant))
        #expect(
            events == [
                .flagChanged(uid: "u-bob", flag: .audioMuted, value: true), .mediaIDChanged(uid: "u-bob", mid: "m-1"),
            ])
    }

    @Test func aParticipantMayNotStartRecording() {
        #expect(throws: GatewayError.forbidden("only moderators start or stop recording")) {
            try RoomCommand.media(recording: true, audioMode: nil, uid: nil).events(
                in: self.state, by: self.user("u-bob", .participant))
        }
    }

    @Test func aModeratorAPromotedParticipantARecordingBotAndTheServerAPIMayRecord() throws {
        var promoted = self.state
        promoted.operators.insert("u-bob")
        let command = RoomCommand.media(recording: true, audioMode: nil, uid: nil)
        let expected: [RoomEvent] = [.recordingChanged(isRecording: true)]
        #expect(try command.events(in: self.state, by: self.user("u-mod", .moderator)) == expected)
        #expect(try command.events(in: promoted, by: self.user("u-bob", .participant)) == expected)
        #expect(try command.events(in: self.state, by: self.user("b-bot", .bot, caps: ["record"])) == expected)
        #expect(try command.events(in: self.state, by: RoomActor(serverAPI: "api:backend")) == expected)
        #expect(throws: GatewayError.self) {
            try command.events(in: self.state, by: self.user("b-bot", .bot, caps: ["mute"]))
        }
    }

    @Test func aParticipantReportsOnlyItsOwnSpeaking() throws {
        let bob = self.user("u-bob", .participant)
        #expect(
            try RoomCommand.reportSpeaker(uid: "u-bob").events(in: self.state, by: bob) == [
                .activeSpeakerChanged(uid: "u-bob")
            ])
        #expect(throws: GatewayError.self) {
            try RoomCommand.reportSpeaker(uid: "u-mod").events(in: self.state, by: bob)
        }
        // Silence from someone who is not speaking changes nothing.
        #expect(try RoomCommand.reportSpeaker(uid: nil).events(in: self.state, by: bob).isEmpty)
        var speaking = self.state
        speaking.speakers = ["u-mod", "u-bob"]
        #expect(
            try RoomCommand.reportSpeaker(uid: nil).events(in: speaking, by: bob) == [.speakerStopped(uid: "u-bob")])
    }

    @Test func theServerAPIAndASpeakerBotReportAnyoneInTheCallAndNobody() throws {
        let api = RoomActor(serverAPI: "api:media")
        let bot = self.user("b-bot", .bot, caps: ["speaker"])
        for actor in [api, bot] {
            #expect(
                try RoomCommand.reportSpeaker(uid: "u-mod").events(in: self.state, by: actor) == [
                    .activeSpeakerChanged(uid: "u-mod")
                ])
            #expect(throws: GatewayError.notFound("'u-ghost' is not in the call")) {
                try RoomCommand.reportSpeaker(uid: "u-ghost").events(in: self.state, by: actor)
            }
        }
        var speaking = self.state
        speaking.speakers = ["u-mod"]
        #expect(
            try RoomCommand.reportSpeaker(uid: nil).events(in: speaking, by: api) == [.activeSpeakerChanged(uid: nil)])
    }

    @Test func theAudioModeIsTheParticipantsOwnExceptThroughTheServerAPI() throws {
        let command = RoomCommand.media(recording: nil, audioMode: "earpiece", uid: "u-mod")
        #expect(throws: GatewayError.self) { try command.events(in: self.state, by: self.user("u-bob", .participant)) }
        #expect(throws: GatewayError.self) { try command.events(in: self.state, by: self.user("u-admin", .admin)) }
        #expect(
            try command.events(in: self.state, by: RoomActor(serverAPI: "api:x"))
                == [.audioModeChanged(uid: "u-mod", mode: "earpiece")])
        #expect(
            try RoomCommand.media(recording: nil, audioMode: "bluetooth", uid: nil).events(
                in: self.state, by: self.user("u-bob", .participant)) == [
                    .audioModeChanged(uid: "u-bob", mode: "bluetooth")
                ])
    }

    @Test func onlyItsSenderAModeratorOrTheServerAPIEndsTheMeetingThatIsOn() throws {
        var state = self.state
        state.activeMeeting = MeetingMessage(
            sessionID: "s-1", callType: "video", sender: "u-bob", text: nil, isActive: true)
        let end = RoomCommand.publishMeeting(sessionID: "s-1", callType: "video", isActive: false, text: nil)
        #expect(throws: GatewayError.self) { try end.events(in: state, by: self.user("u-carol", .participant)) }
        for actor in [self.user("u-bob", .participant), self.user("u-mod", .moderator), RoomActor(serverAPI: "api:x")] {
            #expect(try end.events(in: state, by: actor).count == 1)
        }
        // Another session's end is not this meeting's: it leaves the card alone and anyone may send it.
        let other = RoomCommand.publishMeeting(sessionID: "s-2", callType: "video", isActive: false, text: nil)
        let events = try other.events(in: state, by: self.user("u-carol", .participant))
        var after = state
        after.apply(
            RoomLogEntry(sequence: state.sequence + 1, time: 0, actor: "u-carol", reason: nil, event: events[0]))
        #expect(after.activeMeeting?.sessionID == "s-1")
    }

    @Test func aMeetingMessageIsSentInTheActorsName() throws {
        let command = RoomCommand.publishMeeting(sessionID: "s-1", callType: "audio", isActive: true, text: "hi")
        let events = try command.events(in: self.state, by: self.user("u-bob", .participant))
        #expect(
            events == [
                .meetingMessage(
                    MeetingMessage(sessionID: "s-1", callType: "audio", sender: "u-bob", text: "hi", isActive: true))
            ])
    }

    @Test(arguments: ModeratorAction.allCases)
    func aParticipantMayTakeNoModeratorAction(_ action: ModeratorAction) {
        let command = RoomCommand.moderate(action, target: action.needsTarget ? "u-mod" : nil, reason: nil)
        #expect(throws: GatewayError.forbidden("'\(action.rawValue)' needs a moderator of this room")) {
            try command.events(in: self.state, by: self.user("u-bob", .participant))
        }
    }

    @Test(arguments: ModeratorAction.allCases)
    func aBotActsOnlyThroughTheActionsCapability(_ action: ModeratorAction) throws {
        let target = action.needsTargetWaiting ? "u-dan" : action.needsTarget ? "u-bob" : nil
        let command = RoomCommand.moderate(action, target: target, reason: nil)
        let others = Set(ModeratorAction.allCases.map(\.capability)).subtracting([action.capability])
        #expect(throws: GatewayError.self) {
            try command.events(in: self.state, by: self.user("b-bot", .bot, caps: others.sorted()))
        }
        _ = try command.events(in: self.state, by: self.user("b-bot", .bot, caps: [action.capability]))
    }

    @Test(arguments: ModeratorAction.allCases.filter(\.protectsAdmins))
    func onlyAnAdminMayRemoveBanOrDemoteAnAdmin(_ action: ModeratorAction) throws {
        let command = RoomCommand.moderate(action, target: "u-admin", reason: nil)
        #expect(throws: GatewayError.forbidden("only an admin can \(action.rawValue) an admin")) {
            try command.events(in: self.state, by: self.user("u-mod", .moderator))
        }
        _ = try command.events(in: self.state, by: self.user("u-admin2", .admin))
        _ = try command.events(in: self.state, by: RoomActor(serverAPI: "api:backend"))
    }

    @Test(arguments: ModeratorAction.allCases.filter(\.needsTarget))
    func aTargetNotInTheCallIsRefusedUnlessTheActionAppliesToAbsentUsers(_ action: ModeratorAction) throws {
        let command = RoomCommand.moderate(action, target: "u-absent", reason: nil)
        let moderator = self.user("u-mod", .moderator)
        if action.needsTargetInCall {
            #expect(throws: GatewayError.notFound("'u-absent' is not in the call")) {
                try command.events(in: self.state, by: moderator)
            }
        } else if action.needsTargetWaiting {
            #expect(throws: GatewayError.notFound("'u-absent' is not in the waiting room")) {
                try command.events(in: self.state, by: moderator)
            }
        } else {
            _ = try command.events(in: self.state, by: moderator)
        }
    }

    @Test func muteAllSparesOperatorsAndTheActor() throws {
        var state = self.state
        state.apply(
            RoomLogEntry(
                sequence: state.sequence + 1, time: 9000, actor: nil, reason: nil,
                event: .participantJoined(
                    uid: "u-carol", deviceID: "d", name: "c", avatar: nil, role: .participant, callType: nil)))
        state.operators.insert("u-carol")
        let events = try RoomCommand.moderate(.muteAll, target: nil, reason: nil).events(
            in: state, by: self.user("u-mod", .moderator))
        #expect(events == [.mutedByModerator(uid: "u-bob"), .mutedByModerator(uid: "b-bot")])
    }

    @Test func banOfAJoinedUserBansAndRemovesEveryDevice() throws {
        let events = try RoomCommand.moderate(.ban, target: "u-bob", reason: "spam").events(
            in: self.state, by: self.user("u-mod", .moderator))
        #expect(
            events == [
                .banChanged(uid: "u-bob", isBanned: true),
                .participantLeft(uid: "u-bob", deviceID: "d", reason: .banned),
            ])
        #expect(events.compactMap(\.closedConnections).map(\.includesObservers) == [true, true])
    }

    @Test func anActionThatChangesNothingCausesNoEvent() throws {
        let moderator = self.user("u-mod", .moderator)
        #expect(
            try RoomCommand.moderate(.unban, target: "u-bob", reason: nil).events(in: self.state, by: moderator).isEmpty
        )
        #expect(
            try RoomCommand.moderate(.unspotlight, target: "u-bob", reason: nil).events(in: self.state, by: moderator)
                .isEmpty)
        #expect(
            try RoomCommand.moderate(.lowerHand, target: "u-bob", reason: nil).events(in: self.state, by: moderator)
                == [.flagChanged(uid: "u-bob", flag: .handRaised, value: false)])
    }
}
