import JSONCoding
import TokenAuth

/// The rooms layer: sessions, rooms, the per-room log and reducer, admission, moderation and fan-out.
///
/// The gateway is single-threaded and deterministic: it reacts to what the transport reports (a session opened,
/// sent a message, closed) and to `tick`, reads time only from the injected clock, and writes only through the
/// transport. Every change to a room goes through the same path: validate, append to the room's log (which numbers
/// it), apply the reducer, fan out the encoded event once to every subscriber.
public final class Gateway {
    private final class Session {
        enum AuthState {
            case awaiting(deadline: Int64)
            case authenticated(TokenClaims)
        }

        struct Subscription {
            var kind: ClientMessage.SubscriptionKind
            var deviceID: String
        }

        let id: SessionID
        var auth: AuthState
        var subscriptions: [String: Subscription] = [:]

        init(id: SessionID, auth: AuthState) {
            self.id = id
            self.auth = auth
        }

        var claims: TokenClaims? {
            if case .authenticated(let claims) = self.auth { return claims }
            return nil
        }
    }

    private final class Room {
        var state: RoomState
        var log: RoomLog
        /// Subscribers in subscription order (deterministic fan-out order).
        var subscribers: [SessionID] = []
        /// Devices whose socket dropped, by (uid, device), with the time they leave unless they come back.
        var lostDevices: [DeviceKey: Int64] = [:]
        /// Each retained entry's event message as it was sent live, by sequence number, so that history and resume
        /// replay what subscribers saw then rather than the entry described against today's state.
        var messages: [UInt64: JSONValue] = [:]

        init(id: String, retention: HistoryRetention) {
            self.state = RoomState(id: id)
            self.log = RoomLog(retention: retention)
        }
    }

    private struct DeviceKey: Hashable {
        var uid: String
        var deviceID: String
    }

    public let configuration: GatewayConfiguration
    private let verifier: TokenVerifier
    private unowned let transport: any GatewayTransport
    private let clock: () -> Int64
    private let decoder: ClientMessageDecoder
    private var sessions: [SessionID: Session] = [:]
    private var rooms: [String: Room] = [:]
    /// Authenticated sessions by group, for meeting messages to members who are not in the room.
    private var groupSessions: [String: [SessionID]] = [:]

    /// - Parameters:
    ///   - configuration: capacity, grace period, limits.
    ///   - verifier: checks tokens.
    ///   - transport: where messages go.
    ///   - clock: now, in milliseconds since the epoch.
    public init(
        configuration: GatewayConfiguration,
        verifier: TokenVerifier,
        transport: any GatewayTransport,
        clock: @escaping () -> Int64
    ) {
        self.configuration = configuration
        self.verifier = verifier
        self.transport = transport
        self.clock = clock
        self.decoder = ClientMessageDecoder(configuration: configuration)
    }

    // MARK: Transport events

    /// A connection opened; `token` is the bearer token from the upgrade request (header or query), if any.
    ///
    /// - Parameters:
    ///   - id: the new session's id.
    ///   - token: a token sent with the upgrade request, or nil to wait for an `auth` message.
    public func sessionOpened(_ id: SessionID, token: String?) {
        let deadline = self.clock() + self.configuration.authenticationTimeoutMilliseconds
        let session = Session(id: id, auth: .awaiting(deadline: deadline))
        self.sessions[id] = session
        if let token {
            _ = self.authenticate(session, token: token, requestID: nil)
        }
    }

    /// A text message arrived from a session.
    ///
    /// - Parameters:
    ///   - id: the session.
    ///   - text: the message's bytes (UTF-8, already validated by the transport).
    public func sessionReceived(_ id: SessionID, text: UnsafeRawBufferPointer) {
        guard let session = self.sessions[id] else { return }
        let value: JSONValue
        do {
            value = try JSONParser.parse(text)
        } catch {
            self.reply(session, ServerMessages.error(id: nil, .badRequest("malformed JSON: \(error)")))
            return
        }
        let requestID = ClientMessageDecoder.requestID(value)
        do {
            let request = try self.decoder.decode(value)
            try self.handle(request, from: session)
        } catch {
            self.reply(session, ServerMessages.error(id: requestID, error))
        }
    }

    /// A binary message arrived: the protocol is JSON text only.
    public func sessionReceivedBinary(_ id: SessionID) {
        guard let session = self.sessions[id] else { return }
        self.reply(session, ServerMessages.error(id: nil, .badRequest("binary messages are not part of the protocol")))
    }

    /// A connection ended.
    ///
    /// - Parameters:
    ///   - id: the session.
    ///   - cleanly: true when the client closed with a close handshake (it left); false when the socket dropped
    ///     (its devices are kept as "reconnecting" for the grace period).
    public func sessionClosed(_ id: SessionID, cleanly: Bool) {
        guard let session = self.sessions.removeValue(forKey: id) else { return }
        if let claims = session.claims { self.removeFromGroups(session.id, claims: claims) }
        let now = self.clock()
        for (roomID, subscription) in session.subscriptions.sorted(by: { $0.key < $1.key }) {
            guard let room = self.rooms[roomID], let claims = session.claims else { continue }
            room.subscribers.removeAll { $0 == id }
            guard subscription.kind == .participant else { continue }
            let uid = claims.subject
            guard room.state.participants[uid]?.devices.contains(where: { $0.deviceID == subscription.deviceID })
                == true
            else { continue }
            if cleanly {
                self.append(.participantLeft(uid: uid, deviceID: subscription.deviceID, reason: .left), to: room, actor: uid)
            } else {
                room.lostDevices[DeviceKey(uid: uid, deviceID: subscription.deviceID)] =
                    now + self.configuration.reconnectGraceMilliseconds
                self.append(.connectionLost(uid: uid, deviceID: subscription.deviceID), to: room, actor: nil)
            }
        }
    }

    /// Runs what is due: authentication deadlines, reconnect grace periods, token expiry.
    public func tick() {
        let now = self.clock()
        for session in self.sessions.values.sorted(by: { $0.id.rawValue < $1.id.rawValue }) {
            switch session.auth {
            case .awaiting(let deadline) where now >= deadline:
                self.closeSession(session, code: GatewayCloseCode.unauthorized, reason: "authentication timeout")
            // Expired from the same instant the verifier refuses the token: exp + leeway <= now.
            case .authenticated(let claims) where now / 1000 >= claims.expiresAt + self.verifier.leeway:
                self.reply(session, ServerMessages.error(id: nil, GatewayError("ERR_TOKEN_EXPIRED", "token expired")))
                self.closeSession(session, code: GatewayCloseCode.tokenExpired, reason: "token expired")
            default:
                break
            }
        }
        for roomID in self.rooms.keys.sorted() {
            guard let room = self.rooms[roomID] else { continue }
            let due = room.lostDevices.filter { $0.value <= now }.keys.sorted { ($0.uid, $0.deviceID) < ($1.uid, $1.deviceID) }
            for key in due {
                room.lostDevices[key] = nil
                self.append(.participantLeft(uid: key.uid, deviceID: key.deviceID, reason: .timedOut), to: room, actor: nil)
            }
            room.log.trim(now: now)
            self.forgetTrimmedMessages(room)
        }
    }

    // MARK: Requests

    private func handle(_ request: ClientRequest, from session: Session) throws(GatewayError) {
        if case .authenticate(let token) = request.message {
            if self.authenticate(session, token: token, requestID: request.id) {
                // Already answered with a welcome.
            }
            return
        }
        if case .ping = request.message {
            self.reply(session, .object(JSONObject([("type", .string("pong"))] + (request.id.map { [("id", $0)] } ?? []))))
            return
        }
        guard let claims = session.claims else {
            throw .unauthorized("authenticate first with {\"type\":\"auth\",\"token\":...}")
        }
        switch request.message {
        case .authenticate, .ping:
            break
        case .join(let roomID, let kind, let deviceID, let callType, let resumeAfter):
            try self.join(session, claims: claims, roomID: roomID, kind: kind, deviceID: deviceID,
                          callType: callType, resumeAfter: resumeAfter, requestID: request.id)
        case .leave(let roomID):
            try self.leave(session, claims: claims, roomID: roomID, requestID: request.id)
        case .updateState(let roomID, let flags, let mid, let facing):
            let room = try self.participantRoom(session, roomID)
            var last: UInt64?
            for flag in ParticipantFlag.allCases {
                guard let value = flags[flag], room.state.participants[claims.subject].map({ self.flag(flag, of: $0) }) != value
                else { continue }
                last = self.append(.flagChanged(uid: claims.subject, flag: flag, value: value), to: room, actor: claims.subject)
            }
            if let mid, room.state.participants[claims.subject]?.mid != mid {
                last = self.append(.mediaIDChanged(uid: claims.subject, mid: mid), to: room, actor: claims.subject)
            }
            if let facing, room.state.participants[claims.subject]?.cameraFacing != facing {
                last = self.append(.cameraFacingChanged(uid: claims.subject, facing: facing), to: room, actor: claims.subject)
            }
            self.ack(session, request.id, room: room, changed: last != nil)
        case .activeSpeaker(let roomID, let uid):
            let room = try self.participantRoom(session, roomID)
            if let uid, room.state.participants[uid]?.isJoined != true {
                throw .notFound("'\(uid)' is not in the call")
            }
            var changed = false
            if room.state.activeSpeaker != uid {
                self.append(.activeSpeakerChanged(uid: uid), to: room, actor: claims.subject)
                changed = true
            }
            self.ack(session, request.id, room: room, changed: changed)
        case .media(let roomID, let recording, let audioMode):
            let room = try self.participantRoom(session, roomID)
            var changed = false
            if let recording {
                let isRecordingBot = self.role(of: claims, in: roomID) == .bot && claims.capabilities.contains("record")
                guard room.state.isOperator(claims.subject) || isRecordingBot else {
                    throw .forbidden("only moderators start or stop recording")
                }
                if room.state.isRecording != recording {
                    self.append(.recordingChanged(isRecording: recording), to: room, actor: claims.subject)
                    changed = true
                }
            }
            if let audioMode, room.state.audioMode != audioMode {
                self.append(.audioModeChanged(mode: audioMode), to: room, actor: claims.subject)
                changed = true
            }
            self.ack(session, request.id, room: room, changed: changed)
        case .meeting(let group, let sessionID, let callType, let isActive, let text):
            guard self.role(of: claims, in: group) != nil else { throw .notGroupMember }
            let room = self.room(group)
            let message = MeetingMessage(sessionID: sessionID, callType: callType, sender: claims.subject,
                                         text: text, isActive: isActive)
            self.append(.meetingMessage(message), to: room, actor: claims.subject, alsoTo: self.groupSessions[group] ?? [])
            self.ack(session, request.id, room: room, changed: true)
        case .action(let roomID, let action, let target, let reason):
            try self.moderate(session, claims: claims, roomID: roomID, action: action, target: target,
                              reason: reason, requestID: request.id)
        case .query(let query):
            try self.answer(query, session: session, claims: claims, requestID: request.id)
        }
    }

    private func flag(_ flag: ParticipantFlag, of participant: Participant) -> Bool {
        switch flag {
        case .audioMuted: return participant.audioMuted
        case .videoPaused: return participant.videoPaused
        case .presenting: return participant.presenting
        case .handRaised: return participant.handRaised
        case .pinned: return participant.pinned
        }
    }

    @discardableResult
    private func authenticate(_ session: Session, token: String, requestID: JSONValue?) -> Bool {
        let claims: TokenClaims
        do {
            claims = try self.verifier.verify(token, now: self.clock() / 1000)
        } catch {
            self.reply(session, ServerMessages.error(id: requestID, .unauthorized(error.description)))
            if session.claims == nil {
                self.closeSession(session, code: GatewayCloseCode.unauthorized, reason: "authentication failed")
            }
            return false
        }
        if let previous = session.claims {
            guard previous.subject == claims.subject else {
                self.reply(session, ServerMessages.error(id: requestID, .forbidden("a refreshed token must be for the same user")))
                return false
            }
            self.removeFromGroups(session.id, claims: previous)
        }
        session.auth = .authenticated(claims)
        for group in Set(claims.groups + Array(claims.rooms.keys)).sorted() {
            self.groupSessions[group, default: []].append(session.id)
        }
        var fields: [(String, JSONValue)] = [("type", .string("welcome"))]
        if let requestID { fields.append(("id", requestID)) }
        fields.append(("uid", .string(claims.subject)))
        fields.append(("name", .string(claims.name ?? claims.subject)))
        fields.append(("expiresAt", .int(claims.expiresAt)))
        self.reply(session, .object(JSONObject(fields)))
        return true
    }

    private func removeFromGroups(_ id: SessionID, claims: TokenClaims) {
        for group in Set(claims.groups + Array(claims.rooms.keys)) {
            self.groupSessions[group]?.removeAll { $0 == id }
            if self.groupSessions[group]?.isEmpty == true { self.groupSessions[group] = nil }
        }
    }

    /// The role a token gives in a room: from `rooms`, or `participant` for a member of the room's group.
    private func role(of claims: TokenClaims, in roomID: String) -> ParticipantRole? {
        if let role = claims.rooms[roomID] { return ParticipantRole(rawValue: role.rawValue) }
        if claims.groups.contains(roomID) { return .participant }
        return nil
    }

    private func room(_ id: String) -> Room {
        if let room = self.rooms[id] { return room }
        let room = Room(id: id, retention: self.configuration.history)
        self.rooms[id] = room
        return room
    }

    private func participantRoom(_ session: Session, _ roomID: String) throws(GatewayError) -> Room {
        guard let subscription = session.subscriptions[roomID], subscription.kind == .participant,
            let room = self.rooms[roomID]
        else { throw .notInRoom }
        return room
    }

    private func join(
        _ session: Session,
        claims: TokenClaims,
        roomID: String,
        kind: ClientMessage.SubscriptionKind,
        deviceID: String,
        callType: String?,
        resumeAfter: UInt64?,
        requestID: JSONValue?
    ) throws(GatewayError) {
        guard let role = self.role(of: claims, in: roomID) else { throw .notGroupMember }
        if let existing = session.subscriptions[roomID] {
            guard existing.kind == kind, existing.deviceID == deviceID else {
                throw .badRequest("already in this room; leave it first to change how")
            }
        } else if session.subscriptions.count >= self.configuration.maximumRoomsPerSession {
            throw .tooManyRooms
        }
        let room = self.room(roomID)
        let uid = claims.subject
        // A banned user neither joins nor watches: the room's events are not theirs to see.
        if room.state.banned.contains(uid) { throw .banned }
        if kind == .participant {
            let key = DeviceKey(uid: uid, deviceID: deviceID)
            let participant = room.state.participants[uid]
            let deviceIsIn = participant?.devices.contains { $0.deviceID == deviceID } ?? false
            if room.lostDevices.removeValue(forKey: key) != nil, deviceIsIn {
                self.append(.connectionRestored(uid: uid, deviceID: deviceID), to: room, actor: uid)
            } else if !deviceIsIn {
                if participant?.isJoined != true {
                    try self.checkCapacity(room, role: role)
                }
                self.append(
                    .participantJoined(uid: uid, deviceID: deviceID, name: claims.name ?? uid, avatar: claims.avatar,
                                       role: role, callType: callType),
                    to: room,
                    actor: uid
                )
            }
            // Another live session of the same device is replaced by this one.
            for other in room.subscribers where other != session.id {
                if let otherSession = self.sessions[other], otherSession.claims?.subject == uid,
                    otherSession.subscriptions[roomID]?.deviceID == deviceID,
                    otherSession.subscriptions[roomID]?.kind == .participant
                {
                    otherSession.subscriptions[roomID] = nil
                    room.subscribers.removeAll { $0 == other }
                }
            }
        }
        if session.subscriptions[roomID] == nil {
            session.subscriptions[roomID] = Session.Subscription(kind: kind, deviceID: deviceID)
            room.subscribers.append(session.id)
        }
        self.ack(session, requestID, room: room, changed: true)
        let now = self.clock()
        if let resumeAfter, let missed = room.log.entries(after: resumeAfter) {
            for entry in missed {
                let live = room.messages[entry.sequence] ?? ServerMessages.event(entry, room: room.state)
                self.reply(session, Self.markedRecovered(live))
            }
            self.reply(session, .object(JSONObject([
                ("type", .string("resumed")), ("room", .string(roomID)),
                ("seq", .int(Int64(room.state.sequence))), ("recovered", .bool(true)),
            ])))
        } else {
            let capacity = self.configuration.roomCapacity
            self.reply(session, ServerMessages.snapshot(room.state, capacity: capacity, now: now,
                                                        recovered: resumeAfter == nil ? nil : false))
        }
    }

    private func checkCapacity(_ room: Room, role: ParticipantRole) throws(GatewayError) {
        let joined = room.state.participants.values.filter(\.isJoined)
        if role.countsAgainstCapacity {
            let taken = joined.filter { $0.role.countsAgainstCapacity }.count
            if taken >= self.configuration.roomCapacity { throw .callFull }
        } else {
            let taken = joined.filter { !$0.role.countsAgainstCapacity }.count
            if taken >= self.configuration.reservedSeats { throw .callFull }
        }
    }

    private func leave(_ session: Session, claims: TokenClaims, roomID: String, requestID: JSONValue?) throws(GatewayError) {
        guard let subscription = session.subscriptions.removeValue(forKey: roomID), let room = self.rooms[roomID] else {
            throw .notInRoom
        }
        room.subscribers.removeAll { $0 == session.id }
        if subscription.kind == .participant,
            room.state.participants[claims.subject]?.devices.contains(where: { $0.deviceID == subscription.deviceID }) == true
        {
            self.append(.participantLeft(uid: claims.subject, deviceID: subscription.deviceID, reason: .left),
                        to: room, actor: claims.subject)
        }
        self.ack(session, requestID, room: room, changed: true)
    }

    // MARK: Moderation

    private func moderate(
        _ session: Session,
        claims: TokenClaims,
        roomID: String,
        action: ModeratorAction,
        target: String?,
        reason: String?,
        requestID: JSONValue?
    ) throws(GatewayError) {
        guard session.subscriptions[roomID] != nil, let room = self.rooms[roomID] else { throw .notInRoom }
        let actor = claims.subject
        let tokenRole = self.role(of: claims, in: roomID)
        let allowed: Bool
        if tokenRole == .bot {
            allowed = claims.capabilities.contains(action.capability)
        } else {
            allowed = tokenRole?.isOperator == true || room.state.operators.contains(actor)
        }
        guard allowed else { throw .forbidden("'\(action.rawValue)' needs a moderator of this room") }
        let state = room.state
        let targetParticipant = target.flatMap { state.participants[$0] }
        if let target, action != .ban, action != .unban, action != .promote, action != .demote,
            targetParticipant?.isJoined != true
        {
            throw .notFound("'\(target)' is not in the call")
        }
        if (action == .demote || action == .remove || action == .ban), let targetParticipant,
            targetParticipant.role == .admin, tokenRole != .admin
        {
            throw .forbidden("only an admin can \(action.rawValue) an admin")
        }
        var changed = false
        func record(_ event: RoomEvent) {
            self.append(event, to: room, actor: actor, reason: reason)
            changed = true
        }
        switch action {
        case .mute:
            if targetParticipant?.audioMuted == false { record(.mutedByModerator(uid: target!)) }
        case .muteAll:
            for participant in state.joinedParticipants where !participant.audioMuted && !state.isOperator(participant.uid)
                && participant.uid != actor
            {
                record(.mutedByModerator(uid: participant.uid))
            }
        case .lowerHand:
            if targetParticipant?.handRaised == true { record(.flagChanged(uid: target!, flag: .handRaised, value: false)) }
        case .spotlight, .unspotlight:
            let value = action == .spotlight
            if targetParticipant?.pinned != value { record(.flagChanged(uid: target!, flag: .pinned, value: value)) }
        case .promote, .demote:
            let value = action == .promote
            if state.operators.contains(target!) != value { record(.operatorChanged(uid: target!, isOperator: value)) }
        case .unban:
            if state.banned.contains(target!) { record(.banChanged(uid: target!, isBanned: false)) }
        case .remove, .ban:
            let uid = target!
            if action == .ban && !state.banned.contains(uid) { record(.banChanged(uid: uid, isBanned: true)) }
            if let participant = room.state.participants[uid], participant.isJoined {
                let leaveReason: LeaveReason = action == .ban ? .banned : .removed
                record(.participantLeft(uid: uid, deviceID: participant.devices.first?.deviceID ?? "default",
                                        reason: leaveReason))
                room.lostDevices = room.lostDevices.filter { $0.key.uid != uid }
                let code = action == .ban ? GatewayCloseCode.banned : GatewayCloseCode.removed
                self.closeParticipantSessions(uid: uid, in: room, code: code,
                                              reason: action == .ban ? "banned by a moderator" : "removed by a moderator")
            }
        case .endSession:
            if state.joinedParticipants.isEmpty == false || state.startedAt != nil {
                record(.sessionEnded)
                room.lostDevices = [:]
                for participant in state.joinedParticipants {
                    self.closeParticipantSessions(uid: participant.uid, in: room, code: GatewayCloseCode.sessionEnded,
                                                  reason: "the session was ended")
                }
            }
        }
        self.ack(session, requestID, room: room, changed: changed)
    }

    private func closeParticipantSessions(uid: String, in room: Room, code: UInt16, reason: String) {
        for id in room.subscribers {
            guard let session = self.sessions[id], session.claims?.subject == uid,
                session.subscriptions[room.state.id]?.kind == .participant
            else { continue }
            session.subscriptions[room.state.id] = nil
            room.subscribers.removeAll { $0 == id }
            self.closeSession(session, code: code, reason: reason)
        }
    }

    // MARK: Queries

    private func answer(_ query: ClientMessage.Query, session: Session, claims: TokenClaims, requestID: JSONValue?)
        throws(GatewayError)
    {
        func requireAccess(_ roomID: String) throws(GatewayError) -> RoomState {
            guard self.role(of: claims, in: roomID) != nil else { throw .notGroupMember }
            return self.rooms[roomID]?.state ?? RoomState(id: roomID)
        }
        var fields: [(String, JSONValue)] = [("type", .string("result"))]
        if let requestID { fields.append(("id", requestID)) }
        switch query {
        case .rooms:
            let ids = Set(claims.groups + Array(claims.rooms.keys)).sorted()
            fields.append(("query", .string("rooms")))
            fields.append(("rooms", .array(ids.map { id in
                let state = self.rooms[id]?.state ?? RoomState(id: id)
                return .object(JSONObject([
                    ("room", .string(id)),
                    ("active", .bool(!state.joinedParticipants.isEmpty)),
                    ("participants", .int(Int64(state.joinedParticipants.count))),
                    ("seq", .int(Int64(state.sequence))),
                    ("activeMeeting", state.activeMeeting.map(ServerMessages.meeting) ?? .null),
                ]))
            })))
        case .activeMeeting(let group):
            let state = try requireAccess(group)
            fields.append(("query", .string("active_meeting")))
            fields.append(("group", .string(group)))
            fields.append(("meeting", state.activeMeeting.map(ServerMessages.meeting) ?? .null))
        case .members(let roomID), .operators(let roomID), .muted(let roomID), .banned(let roomID):
            let state = try requireAccess(roomID)
            let name: String
            let uids: [String]
            switch query {
            case .members: name = "members"; uids = state.joinedParticipants.map(\.uid)
            case .operators: name = "operators"; uids = state.joinedParticipants.map(\.uid).filter(state.isOperator)
                + state.operators.filter { state.participants[$0]?.isJoined != true }.sorted()
            case .muted: name = "muted"; uids = state.mutedUIDs
            default: name = "banned"; uids = state.banned.sorted()
            }
            fields.append(("query", .string(name)))
            fields.append(("room", .string(roomID)))
            fields.append(("seq", .int(Int64(state.sequence))))
            fields.append(("uids", .array(uids.map { .string($0) })))
        case .history(let roomID, let after, let limit):
            _ = try requireAccess(roomID)
            let room = self.rooms[roomID]
            let entries = room?.log.entries.filter { $0.sequence > after }.prefix(limit) ?? []
            fields.append(("query", .string("history")))
            fields.append(("room", .string(roomID)))
            fields.append(("firstRetained", .int(Int64(room?.log.entries.first?.sequence ?? 0))))
            let events = entries.map { room!.messages[$0.sequence] ?? ServerMessages.event($0, room: room!.state) }
            fields.append(("events", .array(events)))
        }
        self.reply(session, .object(JSONObject(fields)))
    }

    // MARK: The log path and output

    /// Appends an event to the room's log, applies it, and sends it to every subscriber (and `alsoTo`).
    @discardableResult
    private func append(
        _ event: RoomEvent,
        to room: Room,
        actor: String?,
        reason: String? = nil,
        alsoTo extra: [SessionID] = []
    ) -> UInt64 {
        let entry = room.log.append(event, time: self.clock(), actor: actor, reason: reason)
        room.state.apply(entry)
        let message = ServerMessages.event(entry, room: room.state)
        room.messages[entry.sequence] = message
        self.forgetTrimmedMessages(room)
        var recipients = room.subscribers
        for id in extra where !recipients.contains(id) { recipients.append(id) }
        if !recipients.isEmpty {
            self.transport.send(JSONWriter.bytes(message), to: recipients)
        }
        return entry.sequence
    }

    /// Drops the live messages of entries the log no longer retains.
    private func forgetTrimmedMessages(_ room: Room) {
        // The messages' sequence numbers are contiguous and end at the log's last: drop from below its first.
        var sequence = room.log.entries.first?.sequence ?? room.log.lastSequence + 1
        while room.messages.count > room.log.entries.count, sequence > 1 {
            sequence -= 1
            room.messages[sequence] = nil
        }
    }

    /// An event message as replayed on resume: `"recovered": true` added.
    private static func markedRecovered(_ message: JSONValue) -> JSONValue {
        guard case .object(var object) = message else { return message }
        object["recovered"] = .bool(true)
        return .object(object)
    }

    private func ack(_ session: Session, _ id: JSONValue?, room: Room, changed: Bool) {
        self.reply(session, ServerMessages.ack(id: id, [
            ("room", .string(room.state.id)), ("seq", .int(Int64(room.state.sequence))), ("changed", .bool(changed)),
        ]))
    }

    private func reply(_ session: Session, _ message: JSONValue) {
        self.transport.send(JSONWriter.bytes(message), to: [session.id])
    }

    private func closeSession(_ session: Session, code: UInt16, reason: String) {
        // The session leaves cleanly from the gateway's point of view: its rooms see it go now.
        self.sessionClosed(session.id, cleanly: true)
        self.transport.close(session.id, code: code, reason: reason)
    }

    // MARK: Inspection (tests, metrics, the server API)

    /// A room's current state, if the room exists.
    public func roomState(_ id: String) -> RoomState? {
        self.rooms[id]?.state
    }

    /// A room's log, if the room exists (for checking the reducer against the log).
    func roomLog(_ id: String) -> RoomLog? {
        self.rooms[id]?.log
    }

    /// Ids of rooms that exist.
    public var roomIDs: [String] { self.rooms.keys.sorted() }

    /// Open sessions.
    public var sessionCount: Int { self.sessions.count }
}
