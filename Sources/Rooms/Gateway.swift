import JSONCoding
import TokenAuth

/// The rooms layer: sessions, rooms, the per-room log and reducer, admission, moderation and fan-out.
///
/// The gateway is single-threaded and deterministic: it reacts to what the transport reports (a session opened,
/// sent a message, closed) and to `tick`, reads time only from the injected clock, and writes only through the
/// transport. Every change to a room goes through the same path: validate, append to the room's log (which numbers
/// it), apply the reducer, fan out the encoded event once to every subscriber.
public final class Gateway {
    public let configuration: GatewayConfiguration
    private let verifier: TokenVerifier
    private unowned let transport: any GatewayTransport
    let clock: () -> Int64
    let decoder: ClientMessageDecoder
    var sessions: [SessionID: GatewaySession] = [:]
    var rooms: [String: GatewayRoom] = [:]
    /// Authenticated sessions by group, for meeting messages to members who are not in the room.
    var groupSessions: [String: [SessionID]] = [:]
    /// Told about every moderator action that was carried out (from a client or the server API), for the log.
    public var onModeration: ((ModerationRecord) -> Void)?
    /// Counters for metrics and tests.
    public internal(set) var statistics = GatewayStatistics()
    /// The log this gateway shares with the other nodes of a cluster; nil (the default) keeps every room's log in
    /// this process. Set it before the first session opens.
    public var sharedLog: (any SharedRoomLog)?
    /// Called when a room's coalescing window opens, with the moment (on `clock`) its patches are due: the runner
    /// may call `flushDueRooms()` then instead of waiting for its next `tick()`, so patches go out on time rather
    /// than up to a tick late.
    public var onFlushDue: ((Int64) -> Void)?
    /// Rooms with a deadline of their own pending (a lost device's grace period, a held speaker switch, a
    /// coalescing window): the only rooms `tick()` looks at between two rounds of housekeeping.
    private var roomsWithDeadlines: [GatewayRoom] = []
    /// When `tick()` next walks every room for housekeeping (history by age, idle views, forgetting rooms).
    private var nextHousekeeping = Int64.min
    /// The room ids in order, kept between housekeeping rounds until a room comes or goes.
    private var sortedRoomIDs: [String]?
    /// How long a shown active speaker stays, in log time: the configured hold counts from when the speaker went out
    /// to subscribers, which is up to one coalescing window after the report was logged.
    var speakerHold: Int64 {
        self.configuration.speakerHoldMilliseconds + self.configuration.patchWindowMilliseconds
    }
    /// The earliest deadline of any session (authentication, token expiry, slow subscriber): `tick` looks at the
    /// sessions only from then on.
    private var nextSessionDeadline = Int64.min
    /// Most requests that may wait for one room on this node in a cluster; beyond it a request gets `ERR_BUSY`.
    static let maximumWaitingRequests = 1024

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
        let session = GatewaySession(id: id, auth: .awaiting(deadline: deadline))
        self.sessions[id] = session
        self.watchDeadline(of: session)
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
            try self.dispatch(request, from: session)
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
    ///   - cleanly: true when the connection ended with a close handshake, false when the socket dropped. Either
    ///     way the participant's device stays in the roster as "reconnecting" for the grace period (a page
    ///     reload is not a leave); only a `leave` message leaves at once.
    public func sessionClosed(_ id: SessionID, cleanly: Bool) {
        guard let session = self.sessions.removeValue(forKey: id) else { return }
        // The session is gone: no event from here on goes to it, whichever room's subscribers still list it.
        for roomID in session.subscriptions.keys { self.rooms[roomID]?.subscriberEventModes = nil }
        if let claims = session.claims { self.removeFromGroups(session.id, claims: claims) }
        let now = self.clock()
        for (roomID, subscription) in session.subscriptions.sorted(by: { $0.key < $1.key }) {
            guard let room = self.rooms[roomID], let claims = session.claims else { continue }
            room.subscribers.removeAll { $0 == id }
            guard subscription.kind == .participant else { continue }
            let uid = claims.subject
            guard
                room.state.participants[uid]?.devices.contains(where: { $0.deviceID == subscription.deviceID })
                    == true
            else { continue }
            room.lostDevices[GatewayRoom.DeviceKey(uid: uid, deviceID: subscription.deviceID)] =
                GatewayRoom.LostDevice(
                    deadline: now + self.configuration.reconnectGraceMilliseconds, closedCleanly: cleanly)
            self.watchDeadlines(of: room)
            let event: RoomEvent =
                cleanly
                ? .participantConnectionClosed(uid: uid, deviceID: subscription.deviceID)
                : .connectionLost(uid: uid, deviceID: subscription.deviceID)
            self.record([ProposedEvent(event, actor: nil, requiresDeviceOwnership: true)], in: room)
        }
        for (roomID, subscription) in session.subscriptions {
            self.rooms[roomID]?.channels[subscription.view]?.subscribers.removeAll { $0 == id }
        }
    }

    /// The connection's write queue crossed its high watermark (false) or drained below the low one (true).
    ///
    /// While a session is not writable its roster patches are skipped (roster state is state, not a log); when it
    /// is writable again it gets one fresh snapshot per room instead. Events and meeting messages keep flowing.
    ///
    /// - Parameters:
    ///   - id: the session.
    ///   - isWritable: the new state.
    public func sessionWritabilityChanged(_ id: SessionID, isWritable: Bool) {
        guard let session = self.sessions[id] else { return }
        session.isWritable = isWritable
        guard isWritable else {
            session.unwritableSince = session.unwritableSince ?? self.clock()
            self.watchDeadline(of: session)
            return
        }
        session.unwritableSince = nil
        let rooms = session.needsResync.sorted()
        for roomID in rooms {
            guard let room = self.rooms[roomID], let subscription = session.subscriptions[roomID] else { continue }
            // Pending changes go out first, while this session still skips them: the snapshot includes them.
            self.flush(room)
            session.needsResync.remove(roomID)
            self.statistics.resyncSnapshots += 1
            self.sendSnapshot(to: session, room: room, view: subscription.view, recovered: nil, resync: true)
        }
        session.needsResync = []
    }

    /// Sends the patches of every room whose coalescing window has closed; `tick()` does too, along with everything
    /// else that is due. Only the rooms with a deadline pending are looked at.
    public func flushDueRooms() {
        let now = self.clock()
        for room in self.roomsWithDeadlines {
            if let due = room.flushDue, due <= now { self.flush(room) }
        }
    }

    /// Runs what is due: authentication deadlines, reconnect grace periods, token expiry.
    public func tick() {
        let now = self.clock()
        // The sessions are looked at only when the earliest of their deadlines has come; one pass then picks the
        // few with something due (only those are sorted, for a deterministic order) and finds the next deadline.
        var dueSessions: [GatewaySession] = []
        if now >= self.nextSessionDeadline {
            var next = Int64.max
            for session in self.sessions.values {
                let deadline = self.deadline(of: session)
                if now >= deadline { dueSessions.append(session) } else { next = min(next, deadline) }
            }
            self.nextSessionDeadline = next
        }
        for session in dueSessions.sorted(by: { $0.id.rawValue < $1.id.rawValue }) {
            switch session.auth {
            case .awaiting(let deadline) where now >= deadline:
                self.closeSession(session, code: GatewayCloseCode.unauthorized, reason: "authentication timeout")
            // Expired from the same instant the verifier refuses the token: exp + leeway <= now.
            case .authenticated(let claims) where now >= self.tokenExpiry(claims):
                self.reply(session, ServerMessages.error(id: nil, GatewayError("ERR_TOKEN_EXPIRED", "token expired")))
                self.closeSession(session, code: GatewayCloseCode.tokenExpired, reason: "token expired")
            default:
                break
            }
            if let since = session.unwritableSince,
                now - since >= self.configuration.slowSubscriberTimeoutMilliseconds
            {
                self.statistics.slowSubscribersClosed += 1
                self.closeSession(session, code: GatewayCloseCode.slowConsumer, reason: "not reading")
            }
        }
        // Between rounds of housekeeping only the rooms with a deadline of their own are looked at, so a server that
        // remembers thousands of quiet rooms does not walk them all every tick.
        let housekeeping = now >= self.nextHousekeeping
        if housekeeping {
            self.nextHousekeeping = now + self.configuration.housekeepingIntervalMilliseconds
            let roomIDs = self.sortedRoomIDs ?? self.rooms.keys.sorted()
            self.sortedRoomIDs = roomIDs
            for roomID in roomIDs {
                guard let room = self.rooms[roomID] else { continue }
                self.runDeadlines(of: room, now: now)
                self.keepHouse(room, now: now)
                self.watchDeadlines(of: room)
            }
        } else if !self.roomsWithDeadlines.isEmpty {
            for room in self.roomsWithDeadlines.sorted(by: { $0.state.id < $1.state.id }) {
                self.runDeadlines(of: room, now: now)
            }
        }
        self.roomsWithDeadlines.removeAll { room in
            guard !Self.hasDeadlines(room) || self.rooms[room.state.id] !== room else { return false }
            room.isWatchedForDeadlines = false
            return true
        }
    }

    /// Whether a room has a deadline of its own pending.
    private static func hasDeadlines(_ room: GatewayRoom) -> Bool {
        !room.lostDevices.isEmpty || room.replica.speakerDue != nil || room.flushDue != nil
    }

    /// Lists a room among those `tick()` looks at every time, if it has a deadline pending.
    private func watchDeadlines(of room: GatewayRoom) {
        guard !room.isWatchedForDeadlines, Self.hasDeadlines(room) else { return }
        room.isWatchedForDeadlines = true
        self.roomsWithDeadlines.append(room)
    }

    /// Runs what is due in a room: lost devices whose grace period is over leave, a held speaker switch is shown, a
    /// coalescing window that closed sends its patches.
    private func runDeadlines(of room: GatewayRoom, now: Int64) {
        guard room.isReady else { return }
        let due = room.lostDevices.filter { $0.value.deadline <= now }.keys.sorted {
            ($0.uid, $0.deviceID) < ($1.uid, $1.deviceID)
        }
        for key in due {
            guard let lost = room.lostDevices.removeValue(forKey: key) else { continue }
            let leave = RoomEvent.participantLeft(
                uid: key.uid, deviceID: key.deviceID, reason: lost.closedCleanly ? .connectionClosed : .timedOut
            )
            self.record([ProposedEvent(leave, actor: nil, requiresDeviceOwnership: true)], in: room) { result in
                // When the shared store could not be reached, try again shortly (unless the device came back).
                guard case .failure(.refused) = result,
                    room.state.participants[key.uid]?.devices.contains(where: {
                        $0.deviceID == key.deviceID && !$0.isConnected
                    }) == true
                else { return }
                room.lostDevices[key] = GatewayRoom.LostDevice(
                    deadline: self.clock() + 1000, closedCleanly: lost.closedCleanly)
                self.watchDeadlines(of: room)
            }
        }
        if let due = room.replica.speakerDue, due <= now, !room.speakerSwitchProposed {
            let desired = room.state.activeSpeaker.flatMap { room.state.participants[$0]?.isJoined == true ? $0 : nil }
            // The switch gets a sequence number of its own: patches always move the roster forward in the log
            // (`from` < `seq`), so a view never changes without one and resume stays exact. In a cluster every
            // node may propose it at the same moment: only the first proposal at this sequence number wins.
            room.speakerSwitchProposed = true
            self.record(
                [ProposedEvent(.activeSpeakerShown(uid: desired), actor: nil)], in: room,
                expectedSequence: room.state.sequence
            ) { result in
                room.speakerSwitchProposed = false
                if case .success = result { self.flush(room) }
            }
        }
        if let due = room.flushDue, due <= now { self.flush(room) }
    }

    /// Housekeeping for a room: history past its age goes, views nobody used for that long go, and a room nobody is
    /// in or watching is forgotten once its history has aged out.
    private func keepHouse(_ room: GatewayRoom, now: Int64) {
        guard room.isReady else { return }
        let roomID = room.state.id
        self.trimLog(of: room, now: now)
        let maximumAge = self.configuration.history.maximumAgeMilliseconds
        for (spec, channel) in room.channels where spec != .all && channel.subscribers.isEmpty {
            if let idle = channel.idleSince, now - idle > maximumAge { room.channels[spec] = nil }
        }
        self.forgetTrimmedMessages(room)
        // A room nobody is in or watching is forgotten once its history has aged out (bounded memory for
        // servers that see many one-off rooms); it starts afresh if someone comes back.
        let lastActivity = room.log.entries.last?.time ?? room.createdAt
        if !room.subscribers.isEmpty || !room.lostDevices.isEmpty || self.groupSessions[roomID] != nil {
            room.lastLocalUse = now
        }
        guard
            room.subscribers.isEmpty && room.lostDevices.isEmpty && room.appendsInFlight == 0
                && room.waitingRequests.isEmpty && room.sequenceWaiters.isEmpty
        else { return }
        if let sharedLog = self.sharedLog {
            // In a cluster the room lives in the shared log: this node forgets it when nobody here has used it
            // for the history age (its shared records expire on their own once no node keeps them alive).
            if now - room.lastLocalUse > self.configuration.history.maximumAgeMilliseconds {
                self.rooms[roomID] = nil
                self.sortedRoomIDs = nil
                sharedLog.unfollow(roomID)
                self.statistics.roomsExpired += 1
            }
        } else if room.state.joinedParticipants.isEmpty && room.state.banned.isEmpty && room.state.operators.isEmpty
            && now - lastActivity > self.configuration.history.maximumAgeMilliseconds
        {
            self.rooms[roomID] = nil
            self.sortedRoomIDs = nil
            self.statistics.roomsExpired += 1
        }
    }

    /// When something is next due for a session: the end of its authentication time, its token's expiry (with the
    /// leeway), or the slow-subscriber timeout while it is not writable.
    private func deadline(of session: GatewaySession) -> Int64 {
        var deadline: Int64
        switch session.auth {
        case .awaiting(let end): deadline = end
        case .authenticated(let claims): deadline = self.tokenExpiry(claims)
        }
        if let since = session.unwritableSince {
            deadline = min(deadline, since + self.configuration.slowSubscriberTimeoutMilliseconds)
        }
        return deadline
    }

    /// When a token stops being accepted, in milliseconds: its expiry plus the leeway (saturating: a token may
    /// carry any expiry its signer put in it).
    private func tokenExpiry(_ claims: TokenClaims) -> Int64 {
        let seconds = claims.expiresAt.addingReportingOverflow(self.verifier.leeway)
        let milliseconds = seconds.partialValue.multipliedReportingOverflow(by: 1000)
        return seconds.overflow || milliseconds.overflow ? Int64.max : milliseconds.partialValue
    }

    /// Notes a session's deadline, so the next tick looks at the sessions when it comes.
    private func watchDeadline(of session: GatewaySession) {
        self.nextSessionDeadline = min(self.nextSessionDeadline, self.deadline(of: session))
    }

    // MARK: Requests

    /// Handles a request, or in a cluster queues it behind the loading of its room and this node's previous change
    /// to the room, so that each request is checked against the room as this node's own changes left it.
    private func dispatch(
        _ request: ClientRequest,
        from session: GatewaySession,
        resuming resumedRoom: GatewayRoom? = nil
    ) throws(GatewayError) {
        if self.sharedLog != nil, let claims = session.claims {
            var roomIDs = request.message.roomIDs
            if case .query(.rooms) = request.message {
                roomIDs = Set(claims.groups + Array(claims.rooms.keys)).sorted()
            }
            for roomID in roomIDs where self.role(of: claims, in: roomID) != nil {
                let room = self.room(roomID)
                // Meeting messages do not depend on the room's state: they go out behind the appends in flight
                // (the shared log keeps their order), only not ahead of requests that wait.
                let othersWait = room !== resumedRoom && !room.waitingRequests.isEmpty
                let mustWait =
                    !room.isReady || othersWait
                    || (room.appendsInFlight > 0 && !request.message.isIndependentOfRoomState)
                guard mustWait else { continue }
                guard room.waitingRequests.count < Self.maximumWaitingRequests else { throw .busy }
                if room === resumedRoom {
                    room.waitingRequests.insert(.request(session.id, request), at: 0)
                } else {
                    room.waitingRequests.append(.request(session.id, request))
                }
                return
            }
        }
        try self.handle(request, from: session)
    }

    /// Handles the requests that waited for a room, in order, until one of them makes the room wait again.
    private func runWaitingRequests(of room: GatewayRoom) {
        while room.isReady, let next = room.waitingRequests.first {
            if room.appendsInFlight > 0 {
                guard case .request(_, let request) = next, request.message.isIndependentOfRoomState else { return }
            }
            switch room.waitingRequests.removeFirst() {
            case .request(let id, let request):
                guard let session = self.sessions[id] else { continue }
                do {
                    try self.dispatch(request, from: session, resuming: room)
                } catch {
                    self.reply(session, ServerMessages.error(id: request.id, error))
                }
            case .call(let run, _):
                run()
            }
        }
    }

    /// Runs `body` with the room once it is loaded and no earlier work of this node waits for it (at once in a
    /// single process); in a cluster, `fail` gets the error when the room cannot be loaded or too much waits.
    func whenIdle(_ room: GatewayRoom, _ body: @escaping () -> Void, fail: @escaping (GatewayError) -> Void) {
        guard room.isBusy else {
            body()
            return
        }
        guard room.waitingRequests.count < Self.maximumWaitingRequests else {
            fail(.busy)
            return
        }
        room.waitingRequests.append(.call(run: body, fail: fail))
    }

    // MARK: The shared log (cluster)

    /// The shared log loaded a room this gateway follows: its latest checkpoint (nil when the room's log starts at
    /// 1) and the retained entries (oldest first; they may start before the checkpoint, for history). When the room
    /// was loaded before (the shared log lost entries this node had not applied), its subscribers get a fresh
    /// snapshot.
    ///
    /// - Parameters:
    ///   - roomID: the room.
    ///   - checkpoint: the replica at the checkpoint's sequence number, if there is one.
    ///   - entries: the retained entries, contiguous, reaching at least from the checkpoint on.
    public func sharedLogLoaded(room roomID: String, checkpoint: RoomReplica?, entries: [RoomLogEntry]) {
        guard let room = self.rooms[roomID] else { return }
        let isReload = room.hasLoaded
        room.hasLoaded = true
        var replica = checkpoint ?? RoomReplica(state: RoomState(id: roomID))
        replica.state.id = roomID
        let firstSequence = entries.first?.sequence ?? replica.state.sequence + 1
        var log = RoomLog(retention: self.configuration.history, after: firstSequence - 1)
        let hold = self.speakerHold
        for entry in entries where entry.sequence == log.lastSequence + 1 {
            log.insert(entry)
            if entry.sequence == replica.state.sequence + 1 { replica.apply(entry, speakerHold: hold) }
        }
        room.replica = replica
        room.base = checkpoint ?? RoomReplica(state: RoomState(id: roomID))
        room.base.state.id = roomID
        room.log = log
        room.messages = [:]
        room.lostDevices = room.lostDevices.filter { key, _ in
            room.state.participants[key.uid]?.devices.contains { $0.deviceID == key.deviceID } == true
        }
        room.isReady = true
        self.watchDeadlines(of: room)
        if isReload {
            // Reloaded after a gap: every view starts again from the room as it is now.
            self.statistics.sharedLogReloads += 1
            let subscribers = room.channels.values.flatMap(\.subscribers)
            room.channels = [:]
            room.dirtyUIDs = []
            room.everythingDirty = false
            room.roomDirty = false
            room.flushDue = nil
            for id in subscribers {
                guard let session = self.sessions[id], let subscription = session.subscriptions[roomID] else {
                    continue
                }
                let channel = self.channel(subscription.view, in: room)
                channel.subscribers.append(id)
                self.statistics.resyncSnapshots += 1
                self.sendSnapshot(to: session, room: room, view: subscription.view, recovered: nil, resync: true)
            }
            let waiters = room.sequenceWaiters
            room.sequenceWaiters = []
            for waiter in waiters { waiter.action() }
        }
        self.runWaitingRequests(of: room)
    }

    /// The shared log found that a loaded room must be loaded again (its records started afresh, or a gap cannot
    /// be filled): requests and acknowledgements for it wait until `sharedLogLoaded` or `sharedLogReloadFailed`.
    ///
    /// - Parameter roomID: the room.
    public func sharedLogReloading(room roomID: String) {
        self.rooms[roomID]?.isReady = false
    }

    /// Reloading a room failed (the store became unreachable): the room stays as this node last knew it, and the
    /// requests that waited for it are handled (changes then fail with `ERR_UNAVAILABLE` until the store is back).
    ///
    /// - Parameter roomID: the room.
    public func sharedLogReloadFailed(room roomID: String) {
        guard let room = self.rooms[roomID], room.hasLoaded, !room.isReady else { return }
        room.isReady = true
        self.runWaitingRequests(of: room)
    }

    /// The shared log delivers the next entries of a room this gateway follows, in order.
    ///
    /// - Parameters:
    ///   - roomID: the room.
    ///   - entries: entries that follow the room's last applied one without a gap (older ones are ignored).
    public func sharedLogReceived(room roomID: String, entries: [RoomLogEntry]) {
        guard let room = self.rooms[roomID], room.isReady else { return }
        for entry in entries where entry.sequence == room.log.lastSequence + 1 {
            room.log.insert(entry)
            self.statistics.sharedLogEntries += 1
            self.apply(entry, to: room)
        }
        // While this node's own append is in flight, its answer goes out first (its continuation runs them).
        if room.appendsInFlight == 0 { self.runPendingCloses(room) }
    }

    /// The shared log could not load a room: the requests waiting for it are answered with `ERR_UNAVAILABLE` and
    /// the room is forgotten here, so the next request tries again.
    ///
    /// - Parameter roomID: the room.
    public func sharedLogFailed(room roomID: String) {
        guard let room = self.rooms[roomID], !room.isReady else { return }
        self.rooms[roomID] = nil
        self.sortedRoomIDs = nil
        self.sharedLog?.unfollow(roomID)
        self.statistics.sharedLogFailures += 1
        for work in room.waitingRequests {
            switch work {
            case .request(let id, let request):
                guard let session = self.sessions[id] else { continue }
                self.reply(session, ServerMessages.error(id: request.id, .unavailable))
            case .call(_, let fail):
                fail(.unavailable)
            }
        }
        room.waitingRequests = []
    }

    /// The room's replica as it was right after `sequence`, for the shared log's checkpoints; nil when the room is
    /// not loaded here or that point is not retained.
    ///
    /// - Parameters:
    ///   - roomID: the room.
    ///   - sequence: the sequence number.
    public func replica(of roomID: String, at sequence: UInt64) -> RoomReplica? {
        guard let room = self.rooms[roomID], room.isReady else { return nil }
        return room.replica(at: sequence, speakerHold: self.speakerHold)
    }

    private func handle(_ request: ClientRequest, from session: GatewaySession) throws(GatewayError) {
        if case .authenticate(let token) = request.message {
            if self.authenticate(session, token: token, requestID: request.id) {
                // Already answered with a welcome.
            }
            return
        }
        if case .ping = request.message {
            self.reply(
                session, .object(JSONObject([("type", .string("pong"))] + (request.id.map { [("id", $0)] } ?? []))))
            return
        }
        guard let claims = session.claims else {
            throw .unauthorized("authenticate first with {\"type\":\"auth\",\"token\":...}")
        }
        switch request.message {
        case .authenticate, .ping:
            break
        case .join(let roomID, let kind, let deviceID, let callType, let view, let events, let resume):
            try self.join(
                session, claims: claims, roomID: roomID, kind: kind, deviceID: deviceID,
                callType: callType, view: view, events: events, resume: resume, requestID: request.id)
        case .changeView(let roomID, let view):
            guard var subscription = session.subscriptions[roomID], let room = self.rooms[roomID] else {
                throw .notInRoom
            }
            self.flush(room)
            if subscription.view != view {
                if let old = room.channels[subscription.view] {
                    old.subscribers.removeAll { $0 == session.id }
                    if old.subscribers.isEmpty { old.idleSince = self.clock() }
                }
                subscription.view = view
                session.subscriptions[roomID] = subscription
                room.subscriberEventModes = nil
                let channel = self.channel(view, in: room)
                channel.subscribers.append(session.id)
                channel.idleSince = nil
            }
            self.ack(session, request.id, room: room, changed: true)
            self.sendSnapshot(to: session, room: room, view: view, recovered: nil, resync: false)
        case .leave(let roomID):
            try self.leave(session, claims: claims, roomID: roomID, requestID: request.id)
        case .updateState(let roomID, let flags, let mid, let facing):
            let room = try self.participantRoom(session, roomID)
            let uid = claims.subject
            var events: [RoomEvent] = []
            for flag in ParticipantFlag.allCases {
                guard let value = flags[flag], room.state.participants[uid].map({ self.flag(flag, of: $0) }) != value
                else { continue }
                events.append(.flagChanged(uid: uid, flag: flag, value: value))
            }
            if let mid, room.state.participants[uid]?.mid != mid {
                events.append(.mediaIDChanged(uid: uid, mid: mid))
            }
            if let facing, room.state.participants[uid]?.cameraFacing != facing {
                events.append(.cameraFacingChanged(uid: uid, facing: facing))
            }
            self.record(events, in: room, actor: uid, answering: session, request.id)
        case .activeSpeaker(let roomID, let uid):
            let room = try self.participantRoom(session, roomID)
            if let uid, room.state.participants[uid]?.isJoined != true {
                throw .notFound("'\(uid)' is not in the call")
            }
            let events: [RoomEvent] = room.state.activeSpeaker != uid ? [.activeSpeakerChanged(uid: uid)] : []
            self.record(events, in: room, actor: claims.subject, answering: session, request.id)
        case .media(let roomID, let recording, let audioMode):
            let room = try self.participantRoom(session, roomID)
            var events: [RoomEvent] = []
            if let recording {
                let isRecordingBot = self.role(of: claims, in: roomID) == .bot && claims.capabilities.contains("record")
                guard room.state.isOperator(claims.subject) || isRecordingBot else {
                    throw .forbidden("only moderators start or stop recording")
                }
                if room.state.isRecording != recording { events.append(.recordingChanged(isRecording: recording)) }
            }
            if let audioMode, room.state.audioMode != audioMode {
                events.append(.audioModeChanged(mode: audioMode))
            }
            self.record(events, in: room, actor: claims.subject, answering: session, request.id)
        case .meeting(let group, let sessionID, let callType, let isActive, let text):
            guard self.role(of: claims, in: group) != nil else { throw .notGroupMember }
            let room = self.room(group)
            let message = MeetingMessage(
                sessionID: sessionID, callType: callType, sender: claims.subject,
                text: text, isActive: isActive)
            self.record([.meetingMessage(message)], in: room, actor: claims.subject, answering: session, request.id)
        case .action(let roomID, let action, let target, let reason):
            try self.moderate(
                session, claims: claims, roomID: roomID, action: action, target: target,
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
    private func authenticate(_ session: GatewaySession, token: String, requestID: JSONValue?) -> Bool {
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
                self.reply(
                    session,
                    ServerMessages.error(id: requestID, .forbidden("a refreshed token must be for the same user")))
                return false
            }
            self.removeFromGroups(session.id, claims: previous)
        }
        session.auth = .authenticated(claims)
        self.watchDeadline(of: session)
        for group in Set(claims.groups + Array(claims.rooms.keys)).sorted() {
            self.groupSessions[group, default: []].append(session.id)
            // In a cluster this node follows the rooms of its members' groups, so their meeting messages reach
            // members connected here who are not in the room.
            if self.sharedLog != nil { _ = self.room(group) }
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

    func room(_ id: String) -> GatewayRoom {
        if let room = self.rooms[id] { return room }
        let room = GatewayRoom(id: id, retention: self.configuration.history, createdAt: self.clock())
        self.rooms[id] = room
        self.sortedRoomIDs = nil
        if let sharedLog = self.sharedLog {
            // In a cluster a room starts as the shared log has it: requests for it wait until it is loaded.
            room.isReady = false
            sharedLog.follow(id)
        }
        return room
    }

    private func participantRoom(_ session: GatewaySession, _ roomID: String) throws(GatewayError) -> GatewayRoom {
        guard let subscription = session.subscriptions[roomID], subscription.kind == .participant,
            let room = self.rooms[roomID]
        else { throw .notInRoom }
        return room
    }

    private func join(
        _ session: GatewaySession,
        claims: TokenClaims,
        roomID: String,
        kind: ClientMessage.SubscriptionKind,
        deviceID: String,
        callType: String?,
        view: RosterViewSpec,
        events: EventMode,
        resume: ClientMessage.Resume?,
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
        if session.subscriptions[roomID] == nil, room.subscribers.count >= self.configuration.maximumSubscribersPerRoom
        {
            throw .roomFull
        }
        var proposed: [ProposedEvent] = []
        if kind == .participant {
            let key = GatewayRoom.DeviceKey(uid: uid, deviceID: deviceID)
            var participant = room.state.participants[uid]
            if let lost = room.lostDevices[key], lost.deadline <= self.clock() {
                // The grace period is over even if the tick that ends it has not run yet: leave, then join afresh.
                room.lostDevices[key] = nil
                let reason: LeaveReason = lost.closedCleanly ? .connectionClosed : .timedOut
                proposed.append(
                    ProposedEvent(.participantLeft(uid: uid, deviceID: deviceID, reason: reason), actor: nil))
                participant?.devices.removeAll { $0.deviceID == deviceID }
            }
            let device = participant?.devices.first { $0.deviceID == deviceID }
            if let device, room.lostDevices[key] != nil || !device.isConnected || self.sharedLog != nil {
                // Back within the grace period (in a cluster, possibly through another node, which this node then
                // takes the device over from).
                proposed.append(ProposedEvent(.connectionRestored(uid: uid, deviceID: deviceID), actor: uid))
            } else if device == nil {
                if participant?.isJoined != true, self.sharedLog == nil {
                    // In a cluster the shared log checks the seats, atomically for every node.
                    try self.checkCapacity(room, role: role)
                }
                proposed.append(
                    ProposedEvent(
                        .participantJoined(
                            uid: uid, deviceID: deviceID, name: claims.name ?? uid, avatar: claims.avatar,
                            role: role, callType: callType),
                        actor: uid
                    ))
            }
        }
        self.record(proposed, in: room) { result in
            if case .failure(let failure) = result {
                if case .refused(let error) = failure {
                    self.reply(session, ServerMessages.error(id: requestID, error))
                }
                return
            }
            self.completeJoin(
                session, claims: claims, room: room, kind: kind, deviceID: deviceID, view: view,
                events: events, resume: resume, requestID: requestID)
        }
    }

    /// The rest of a join once its events are in the log: replaces another live session of the same device,
    /// subscribes, answers, and sends the snapshot or the resumed changes.
    private func completeJoin(
        _ session: GatewaySession,
        claims: TokenClaims,
        room: GatewayRoom,
        kind: ClientMessage.SubscriptionKind,
        deviceID: String,
        view: RosterViewSpec,
        events: EventMode,
        resume: ClientMessage.Resume?,
        requestID: JSONValue?
    ) {
        let uid = claims.subject
        let roomID = room.state.id
        guard self.sessions[session.id] != nil else {
            // The connection ended while the join was on its way through the shared log: its device gets the
            // grace period like any other dropped device.
            if kind == .participant,
                room.state.participants[uid]?.devices.contains(where: { $0.deviceID == deviceID }) == true
            {
                room.lostDevices[GatewayRoom.DeviceKey(uid: uid, deviceID: deviceID)] = GatewayRoom.LostDevice(
                    deadline: self.clock() + self.configuration.reconnectGraceMilliseconds, closedCleanly: false
                )
                self.watchDeadlines(of: room)
                let lost = RoomEvent.connectionLost(uid: uid, deviceID: deviceID)
                self.record([ProposedEvent(lost, actor: nil, requiresDeviceOwnership: true)], in: room)
            }
            return
        }
        if kind == .participant {
            // Another live session of the same device is replaced by this one.
            for other in room.subscribers where other != session.id {
                if let otherSession = self.sessions[other], otherSession.claims?.subject == uid,
                    otherSession.subscriptions[roomID]?.deviceID == deviceID,
                    otherSession.subscriptions[roomID]?.kind == .participant
                {
                    self.unsubscribe(otherSession, from: room)
                }
            }
        }
        guard
            session.subscriptions[roomID] != nil
                || session.subscriptions.count < self.configuration.maximumRoomsPerSession
        else {
            self.reply(session, ServerMessages.error(id: requestID, .tooManyRooms))
            return
        }
        // Pending changes go out first, so the new subscriber starts where the others are and sees its own join.
        // In a storm of joins (another join did this within the window) the joins coalesce like any change
        // instead: the snapshot is then the view as last sent, which is where the next patch starts from.
        let now = self.clock()
        if room.lastJoinFlush.map({ now - $0 >= self.configuration.patchWindowMilliseconds }) ?? true {
            room.lastJoinFlush = now
            self.flush(room)
        }
        let alreadySubscribed = session.subscriptions[roomID] != nil
        if !alreadySubscribed {
            session.subscriptions[roomID] = GatewaySession.Subscription(
                kind: kind, deviceID: deviceID, view: view, events: events
            )
            room.subscribers.append(session.id)  // Also drops room.subscriberEventModes.
            let channel = self.channel(view, in: room)
            channel.subscribers.append(session.id)
            channel.idleSince = nil
        }
        self.ack(session, requestID, room: room, changed: !alreadySubscribed)
        let subscription = session.subscriptions[roomID]!
        if let resume, self.resume(session, room: room, subscription: subscription, from: resume) {
            self.statistics.resumesRecovered += 1
            return
        }
        if resume != nil { self.statistics.resumesNotRecovered += 1 }
        self.sendSnapshot(
            to: session, room: room, view: subscription.view, recovered: resume == nil ? nil : false,
            resync: false)
    }

    /// Records the events a client's request caused and answers it: an ack once they are applied (`changed`
    /// when there were any), or the error when the shared log refused them.
    private func record(
        _ events: [RoomEvent],
        in room: GatewayRoom,
        actor: String,
        answering session: GatewaySession,
        _ requestID: JSONValue?
    ) {
        self.record(events.map { ProposedEvent($0, actor: actor) }, in: room) { result in
            switch result {
            case .success: self.ack(session, requestID, room: room, changed: !events.isEmpty)
            case .failure(.conditionFailed): self.ack(session, requestID, room: room, changed: false)
            case .failure(.refused(let error)): self.reply(session, ServerMessages.error(id: requestID, error))
            }
        }
    }

    /// Sends exactly what a resuming subscriber missed — the roster patches of its view since `resume.roster` and
    /// the events after `resume.events` — or returns false when not all of it is retained (never a partial
    /// recovery: the caller sends a fresh snapshot).
    private func resume(
        _ session: GatewaySession,
        room: GatewayRoom,
        subscription: GatewaySession.Subscription,
        from resume: ClientMessage.Resume
    ) -> Bool {
        guard resume.roster <= room.state.sequence, resume.events <= room.state.sequence,
            let channel = room.channels[subscription.view], let entries = room.log.entries(after: resume.events)
        else { return false }
        let patches: [(to: UInt64, message: [UInt8])]
        if let sent = channel.patches(after: resume.roster) {
            patches = sent.map { ($0.to, $0.message) }
        } else if let rebuilt = self.patch(of: channel, in: room, since: resume.roster) {
            // The view's patches since then were not sent from here (another node, or before this node loaded the
            // room): one patch from the view as it was then, rebuilt from the log, to the view as last sent.
            patches = [(channel.sequence, rebuilt)]
        } else {
            return false
        }
        let events = entries.filter { subscription.events.includes($0.event) }
        // Both are in sequence order: interleave them so the client sees the log's order.
        var patchIndex = 0
        var eventIndex = 0
        while patchIndex < patches.count || eventIndex < events.count {
            let takePatch =
                eventIndex >= events.count
                || (patchIndex < patches.count && patches[patchIndex].to < events[eventIndex].sequence)
            if takePatch {
                self.transport.send(Self.markedRecovered(patches[patchIndex].message), to: [session.id])
                patchIndex += 1
            } else {
                let entry = events[eventIndex]
                let live =
                    room.messages[entry.sequence]
                    ?? JSONWriter.bytes(ServerMessages.event(entry, room: room.state))
                self.transport.send(Self.markedRecovered(live), to: [session.id])
                eventIndex += 1
            }
        }
        self.reply(
            session,
            .object(
                JSONObject([
                    ("type", .string("resumed")), ("room", .string(room.state.id)),
                    ("seq", .int(Int64(room.state.sequence))), ("recovered", .bool(true)),
                ])))
        return true
    }

    /// The patch from a view as it was right after `sequence` to the view as the channel last sent it, rebuilt
    /// from the room's base and retained log; nil when that point is not retained.
    private func patch(of channel: ViewChannel, in room: GatewayRoom, since sequence: UInt64) -> [UInt8]? {
        guard sequence < channel.sequence,
            let past = room.replica(at: sequence, speakerHold: self.speakerHold)
        else { return nil }
        let old = RosterView.render(
            past.state, spec: channel.spec, speaker: past.heldSpeaker,
            capacity: self.configuration.roomCapacity)
        let new = channel.view
        var patch = JSONObject()
        if let roomPatch = MergePatch.diff(old.room, new.room) { patch["room"] = .object(roomPatch) }
        var participants = JSONObject()
        for uid in Set(old.participants.keys).union(new.participants.keys).sorted(by: Canonical.precedes) {
            switch (old.participants[uid], new.participants[uid]) {
            case (nil, nil): break
            case (.some, nil): participants[uid] = .null
            case (nil, let entry?): participants[uid] = .object(entry)
            case (let before?, let after?):
                if let change = MergePatch.diff(before, after) { participants[uid] = .object(change) }
            }
        }
        if !participants.isEmpty { patch["participants"] = .object(participants) }
        return JSONWriter.bytes(
            .object(
                JSONObject([
                    ("type", .string("patch")), ("room", .string(room.state.id)), ("from", .int(Int64(sequence))),
                    ("seq", .int(Int64(channel.sequence))), ("patch", .object(patch)),
                    ("checksum", .string(Canonical.hex(channel.checksum))),
                ])))
    }

    /// A stored patch or event message with `"recovered":true` added before its closing brace.
    private static func markedRecovered(_ message: [UInt8]) -> [UInt8] {
        var bytes = message
        bytes.removeLast()
        bytes.append(contentsOf: Array(#","recovered":true}"#.utf8))
        return bytes
    }

    private func checkCapacity(_ room: GatewayRoom, role: ParticipantRole) throws(GatewayError) {
        let joined = room.state.participants.values.filter(\.isJoined)
        if role.countsAgainstCapacity {
            let taken = joined.filter { $0.role.countsAgainstCapacity }.count
            if taken >= self.configuration.roomCapacity { throw .callFull }
        } else {
            let taken = joined.filter { !$0.role.countsAgainstCapacity }.count
            if taken >= self.configuration.reservedSeats { throw .callFull }
        }
    }

    private func leave(
        _ session: GatewaySession, claims: TokenClaims, roomID: String, requestID: JSONValue?
    ) throws(GatewayError) {
        guard let subscription = session.subscriptions[roomID], let room = self.rooms[roomID] else {
            throw .notInRoom
        }
        self.unsubscribe(session, from: room)
        var events: [RoomEvent] = []
        if subscription.kind == .participant,
            room.state.participants[claims.subject]?.devices.contains(where: { $0.deviceID == subscription.deviceID })
                == true
        {
            events.append(.participantLeft(uid: claims.subject, deviceID: subscription.deviceID, reason: .left))
        }
        self.record(events.map { ProposedEvent($0, actor: claims.subject) }, in: room) { result in
            if case .failure(.refused(let error)) = result {
                self.reply(session, ServerMessages.error(id: requestID, error))
            } else {
                self.ack(session, requestID, room: room, changed: true)
            }
        }
    }

    // MARK: Moderation

    private func moderate(
        _ session: GatewaySession,
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
        try self.performModeration(
            action, target: target, reason: reason, in: room, actor: actor,
            actorIsAdmin: tokenRole == .admin
        ) { result in
            switch result {
            case .success(let changed): self.ack(session, requestID, room: room, changed: changed)
            case .failure(let error): self.reply(session, ServerMessages.error(id: requestID, error))
            }
        }
    }

    /// Carries out a moderator action whose permission was checked, through the room's log, and tells
    /// `acknowledge` whether it changed anything (or why it failed) before any connection is closed, so the
    /// actor's answer precedes a close.
    func performModeration(
        _ action: ModeratorAction,
        target: String?,
        reason: String?,
        in room: GatewayRoom,
        actor: String,
        actorIsAdmin: Bool,
        acknowledge: @escaping (Result<Bool, GatewayError>) -> Void
    ) throws(GatewayError) {
        let state = room.state
        let targetParticipant = target.flatMap { state.participants[$0] }
        if let target, action != .ban, action != .unban, action != .promote, action != .demote,
            targetParticipant?.isJoined != true
        {
            throw .notFound("'\(target)' is not in the call")
        }
        if action == .demote || action == .remove || action == .ban, let targetParticipant,
            targetParticipant.role == .admin, !actorIsAdmin
        {
            throw .forbidden("only an admin can \(action.rawValue) an admin")
        }
        var events: [RoomEvent] = []
        func record(_ event: RoomEvent) {
            events.append(event)
        }
        switch action {
        case .mute:
            if targetParticipant?.audioMuted == false { record(.mutedByModerator(uid: target!)) }
        case .muteAll:
            for participant in state.joinedParticipants
            where !participant.audioMuted && !state.isOperator(participant.uid)
                && participant.uid != actor
            {
                record(.mutedByModerator(uid: participant.uid))
            }
        case .lowerHand:
            if targetParticipant?.handRaised == true {
                record(.flagChanged(uid: target!, flag: .handRaised, value: false))
            }
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
            if let participant = state.participants[uid], participant.isJoined {
                let leaveReason: LeaveReason = action == .ban ? .banned : .removed
                record(
                    .participantLeft(
                        uid: uid, deviceID: participant.devices.first?.deviceID ?? "default",
                        reason: leaveReason))
            }
        case .endSession:
            if state.joinedParticipants.isEmpty == false || state.startedAt != nil {
                record(.sessionEnded)
            }
        }
        // The connections these events close (the removed or banned user's, everyone's at the end of the session)
        // are closed by every node as it applies them, after this node has answered the actor.
        self.record(events.map { ProposedEvent($0, actor: actor, reason: reason) }, in: room) { result in
            if case .failure(.refused(let error)) = result {
                acknowledge(.failure(error))
                return
            }
            let changed = !events.isEmpty && result.isSuccess
            self.onModeration?(
                ModerationRecord(
                    room: room.state.id, action: action.rawValue, actor: actor,
                    target: target, reason: reason, changed: changed))
            // The actor's answer goes out before any close, even when the actor is among those closed
            // (end_session).
            acknowledge(.success(changed))
        }
    }

    /// Closes the connections that the room's applied entries ended: a removed user's participant connections
    /// (4003), a banned user's connections including observers (4004), every participant connection when the
    /// session ended (4005). Runs after the answer to the request that caused them, on every node.
    private func runPendingCloses(_ room: GatewayRoom) {
        while !room.pendingCloses.isEmpty {
            let close = room.pendingCloses.removeFirst()
            if let uid = close.uid {
                self.closeParticipantSessions(
                    uid: uid, in: room, code: close.code, reason: close.reason,
                    includeObservers: close.includeObservers)
                continue
            }
            for id in room.subscribers {
                guard let session = self.sessions[id], session.subscriptions[room.state.id]?.kind == .participant
                else { continue }
                self.unsubscribe(session, from: room)
                self.closeSession(session, code: close.code, reason: close.reason)
            }
        }
    }

    private func closeParticipantSessions(
        uid: String,
        in room: GatewayRoom,
        code: UInt16,
        reason: String,
        includeObservers: Bool = false
    ) {
        for id in room.subscribers {
            guard let session = self.sessions[id], session.claims?.subject == uid,
                includeObservers || session.subscriptions[room.state.id]?.kind == .participant
            else { continue }
            self.unsubscribe(session, from: room)
            self.closeSession(session, code: code, reason: reason)
        }
    }

    // MARK: Queries

    private func answer(
        _ query: ClientMessage.Query, session: GatewaySession, claims: TokenClaims, requestID: JSONValue?
    )
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
            fields.append(
                (
                    "rooms",
                    .array(
                        ids.map { id in
                            let state = self.rooms[id]?.state ?? RoomState(id: id)
                            return .object(
                                JSONObject([
                                    ("room", .string(id)),
                                    ("active", .bool(!state.joinedParticipants.isEmpty)),
                                    ("participants", .int(Int64(state.joinedParticipants.count))),
                                    ("seq", .int(Int64(state.sequence))),
                                    ("activeMeeting", state.activeMeeting.map(ServerMessages.meeting) ?? .null),
                                ]))
                        })
                ))
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
            case .members:
                name = "members"
                uids = state.joinedParticipants.map(\.uid)
            case .operators:
                name = "operators"
                uids =
                    state.joinedParticipants.map(\.uid).filter(state.isOperator)
                    + state.operators.filter { state.participants[$0]?.isJoined != true }.sorted()
            case .muted:
                name = "muted"
                uids = state.mutedUIDs
            default:
                name = "banned"
                uids = state.banned.sorted()
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
            let events = entries.map { entry -> JSONValue in
                // Each event as it was sent live.
                if let bytes = room!.messages[entry.sequence],
                    let value = try? JSONParser.parse(bytes, limits: Self.storedMessageLimits)
                {
                    return value
                }
                return ServerMessages.event(entry, room: room!.state)
            }
            fields.append(("events", .array(events)))
        }
        self.reply(session, .object(JSONObject(fields)))
    }

    // MARK: The log path and output

    /// Records events in the room's log, all or none, then runs `then`: in a single process at once; in a cluster
    /// once the shared log has numbered them and this node has applied them (or with the failure).
    ///
    /// - Parameters:
    ///   - events: the events, in order.
    ///   - room: the room.
    ///   - expectedSequence: append only if the log still ends at this sequence number (cluster only).
    ///   - then: what to do once the events are applied.
    func record(
        _ events: [ProposedEvent],
        in room: GatewayRoom,
        expectedSequence: UInt64? = nil,
        then: @escaping (Result<Void, LogAppendFailure>) -> Void = { _ in }
    ) {
        guard !events.isEmpty else {
            then(.success(()))
            return
        }
        guard let sharedLog = self.sharedLog else {
            let now = self.clock()
            for proposed in events {
                let entry = room.log.append(proposed.event, time: now, actor: proposed.actor, reason: proposed.reason)
                self.apply(entry, to: room)
            }
            then(.success(()))
            self.runPendingCloses(room)
            return
        }
        room.appendsInFlight += 1
        sharedLog.append(LogProposal(room: room.state.id, events: events, expectedSequence: expectedSequence)) {
            [weak self] result in
            guard let self else { return }
            switch result {
            case .success(let sequence):
                self.whenApplied(room, through: sequence) {
                    room.appendsInFlight -= 1
                    then(.success(()))
                    self.runPendingCloses(room)
                    self.runWaitingRequests(of: room)
                }
            case .failure(let failure):
                room.appendsInFlight -= 1
                if case .refused(let error) = failure, error == .unavailable { self.statistics.sharedLogFailures += 1 }
                then(.failure(failure))
                self.runPendingCloses(room)
                self.runWaitingRequests(of: room)
            }
        }
    }

    /// Runs `action` once the room's state has reached `sequence` (at once when it has).
    private func whenApplied(_ room: GatewayRoom, through sequence: UInt64, _ action: @escaping () -> Void) {
        if room.isReady && room.state.sequence >= sequence {
            action()
        } else {
            room.sequenceWaiters.append((sequence, action))
        }
    }

    /// Applies one entry of the room's log, appended here or delivered by the shared log: the reducer and the
    /// speaker hold, then the event to every subscriber whose event mode takes it (and a meeting message to every
    /// member of the group connected here), then the roster patches: at once for leaves, removals and moderation
    /// when so configured, else at the end of the coalescing window.
    private func apply(_ entry: RoomLogEntry, to room: GatewayRoom) {
        let event = entry.event
        if case .participantJoined = event, room.state.startedAt == nil {
            // A new call forgets who left the last one, and with them the names the banned view shows.
            room.dirtyUIDs.formUnion(room.state.banned)
        }
        let shownSpeakerChanges = room.replica.apply(entry, speakerHold: self.speakerHold)
        if room.replica.speakerDue != nil { self.watchDeadlines(of: room) }
        if !shownSpeakerChanges.isEmpty {
            room.dirtyUIDs.formUnion(shownSpeakerChanges)
            room.roomDirty = true
        }
        switch event {
        case .participantJoined(let uid, let deviceID, _, _, _, _), .connectionRestored(let uid, let deviceID):
            room.lostDevices[GatewayRoom.DeviceKey(uid: uid, deviceID: deviceID)] = nil
        case .participantLeft(let uid, let deviceID, let reason):
            if reason == .removed || reason == .banned {
                room.lostDevices = room.lostDevices.filter { $0.key.uid != uid }
            } else {
                room.lostDevices[GatewayRoom.DeviceKey(uid: uid, deviceID: deviceID)] = nil
            }
        case .sessionEnded:
            room.lostDevices = [:]
        default:
            break
        }
        self.statistics.events += 1
        let message = JSONWriter.bytes(ServerMessages.event(entry, room: room.state))
        room.messages[entry.sequence] = message
        self.trimLog(of: room, now: entry.time)
        var recipients: [SessionID] = []
        let modes = room.subscriberEventModes ?? self.subscriberEventModes(of: room)
        recipients.reserveCapacity(modes.count)
        for (id, events) in modes where events.includes(event) {
            recipients.append(id)
        }
        if case .meetingMessage = event {
            for id in self.groupSessions[room.state.id] ?? [] where !recipients.contains(id) { recipients.append(id) }
        }
        if !recipients.isEmpty {
            self.transport.send(message, to: recipients)
        }
        switch event {
        case .participantLeft(let uid, _, .removed):
            room.pendingCloses.append((uid, GatewayCloseCode.removed, "removed by a moderator", false))
        case .participantLeft(let uid, _, .banned), .banChanged(let uid, true):
            // A ban keeps the user out of the room entirely: observer connections go too.
            room.pendingCloses.append((uid, GatewayCloseCode.banned, "banned by a moderator", true))
        case .sessionEnded:
            room.pendingCloses.append((nil, GatewayCloseCode.sessionEnded, "the session was ended", false))
        default:
            break
        }
        room.markDirty(for: event)
        let window = self.configuration.patchWindowMilliseconds
        let now = self.clock()
        if window == 0 || (self.configuration.immediateLeaves && Self.isUrgent(event)) {
            self.flush(room)
        } else if room.flushDue == nil {
            let due = now + window
            room.flushDue = due
            self.watchDeadlines(of: room)
            self.onFlushDue?(due)
        } else {
            self.statistics.coalescedChanges += 1
        }
        if !room.sequenceWaiters.isEmpty {
            let sequence = room.state.sequence
            let ready = room.sequenceWaiters.filter { $0.sequence <= sequence }
            room.sequenceWaiters.removeAll { $0.sequence <= sequence }
            for waiter in ready { waiter.action() }
        }
    }

    /// Drops what the retention no longer keeps, moving the base replica forward over it.
    private func trimLog(of room: GatewayRoom, now: Int64) {
        for entry in room.log.trim(now: now) where entry.sequence == room.base.state.sequence + 1 {
            room.base.apply(entry, speakerHold: self.speakerHold)
        }
        self.forgetTrimmedMessages(room)
    }

    /// Builds and keeps `room.subscriberEventModes`: the subscribers that have a session and a subscription to
    /// the room, with its event mode.
    private func subscriberEventModes(of room: GatewayRoom) -> [(id: SessionID, events: EventMode)] {
        let roomID = room.state.id
        var modes: [(id: SessionID, events: EventMode)] = []
        modes.reserveCapacity(room.subscribers.count)
        for id in room.subscribers {
            guard let subscription = self.sessions[id]?.subscriptions[roomID] else { continue }
            modes.append((id, subscription.events))
        }
        room.subscriberEventModes = modes
        return modes
    }

    /// Leaves, removals and moderation: the changes that can skip the coalescing window.
    private static func isUrgent(_ event: RoomEvent) -> Bool {
        switch event {
        case .participantLeft, .mutedByModerator, .banChanged, .operatorChanged, .sessionEnded: return true
        default: return false
        }
    }

    // MARK: Roster views and patches

    /// The channel of a view in a room, created with the current roster when it does not exist yet.
    private func channel(_ spec: RosterViewSpec, in room: GatewayRoom) -> ViewChannel {
        if let channel = room.channels[spec] { return channel }
        // A new view starts from the view as sent: pending changes (and a due speaker switch) go out first, or the
        // next flush would change the new view without moving its sequence number.
        self.flush(room)
        let view = RosterView.render(
            room.state, spec: spec, speaker: room.heldSpeaker,
            capacity: self.configuration.roomCapacity)
        let channel = ViewChannel(spec: spec, view: view, sequence: room.state.sequence)
        room.channels[spec] = channel
        return channel
    }

    private func unsubscribe(_ session: GatewaySession, from room: GatewayRoom) {
        guard let subscription = session.subscriptions.removeValue(forKey: room.state.id) else { return }
        room.subscribers.removeAll { $0 == session.id }
        session.needsResync.remove(room.state.id)
        if let channel = room.channels[subscription.view] {
            channel.subscribers.removeAll { $0 == session.id }
            if channel.subscribers.isEmpty { channel.idleSince = self.clock() }
        }
    }

    /// Sends every view's patch for what changed since the last flush: computed and encoded once per view, and
    /// queued to each of the view's subscribers that is keeping up.
    private func flush(_ room: GatewayRoom) {
        let now = self.clock()
        room.flushDue = nil
        guard room.hasPendingChanges else { return }
        let state = room.state
        let capacity = self.configuration.roomCapacity
        var entries: [String: JSONObject] = [:]
        let roomEntry = RosterView.roomEntry(state, speaker: room.heldSpeaker, capacity: capacity)
        for spec in room.channels.keys.sorted(by: { $0.description < $1.description }) {
            let channel = room.channels[spec]!
            let members = RosterView.members(state, spec: spec, speaker: room.heldSpeaker)
            let memberSet = Set(members)
            var candidates = room.dirtyUIDs
            if room.everythingDirty {
                candidates.formUnion(state.participants.keys)
                candidates.formUnion(state.banned)
            }
            for uid in channel.view.participants.keys where !memberSet.contains(uid) { candidates.insert(uid) }
            for uid in members where channel.view.participants[uid] == nil { candidates.insert(uid) }
            var participantsPatch = JSONObject()
            for uid in candidates.sorted(by: Canonical.precedes) {
                var entry: JSONObject?
                if memberSet.contains(uid) {
                    if let cached = entries[uid] {
                        entry = cached
                    } else {
                        let rendered = RosterView.entry(uid, in: state)
                        entries[uid] = rendered
                        entry = rendered
                    }
                }
                if let change = channel.update(uid, to: entry) { participantsPatch[uid] = change }
            }
            var patch = JSONObject()
            if let roomPatch = channel.updateRoom(roomEntry) { patch["room"] = .object(roomPatch) }
            if !participantsPatch.isEmpty { patch["participants"] = .object(participantsPatch) }
            guard !patch.isEmpty else { continue }
            let from = channel.sequence
            let message = JSONWriter.bytes(
                .object(
                    JSONObject([
                        ("type", .string("patch")), ("room", .string(state.id)), ("from", .int(Int64(from))),
                        ("seq", .int(Int64(state.sequence))), ("patch", .object(patch)),
                        ("checksum", .string(Canonical.hex(channel.checksum))),
                    ])))
            channel.recordPatch(
                from: from, to: state.sequence, time: now, message: message,
                retention: self.configuration.history)
            var recipients: [SessionID] = []
            for id in channel.subscribers {
                guard let session = self.sessions[id] else { continue }
                if session.isWritable && !session.needsResync.contains(state.id) {
                    recipients.append(id)
                } else if !session.needsResync.contains(state.id) {
                    session.needsResync.insert(state.id)
                }
            }
            if !recipients.isEmpty {
                self.statistics.patches += 1
                self.statistics.patchBytes += message.count
                self.statistics.patchDeliveries += recipients.count
                self.transport.send(message, to: recipients)
            }
        }
        room.dirtyUIDs = []
        room.everythingDirty = false
        room.roomDirty = false
    }

    /// Sends a snapshot: the room's state, its roster view (the object patches apply to) and its checksum. The
    /// `all` view also carries the full participant list with time totals.
    private func sendSnapshot(
        to session: GatewaySession,
        room: GatewayRoom,
        view spec: RosterViewSpec,
        recovered: Bool?,
        resync: Bool
    ) {
        let channel = self.channel(spec, in: room)
        let now = self.clock()
        let isPlain = recovered == nil && !resync
        // A plain snapshot is the same bytes for everyone until the room or the view changes or a participant's
        // minute totals tick over: a crowd joining at once costs one encoding, not one each.
        if isPlain, let cached = channel.cachedSnapshot, cached.stateSequence == room.state.sequence,
            cached.viewSequence == channel.sequence, now < cached.validUntil
        {
            self.transport.send(cached.bytes, to: [session.id])
            return
        }
        var message = ServerMessages.snapshot(
            room.state, capacity: self.configuration.roomCapacity,
            now: now, recovered: recovered,
            includeParticipants: spec == .all)
        if case .object(var object) = message {
            object["seq"] = .int(Int64(channel.sequence))
            object["view"] = ServerMessages.viewSpec(spec)
            object["roster"] = channel.view.json
            object["checksum"] = .string(Canonical.hex(channel.checksum))
            if resync { object["resync"] = .bool(true) }
            message = .object(object)
        }
        let bytes = JSONWriter.bytes(message)
        if isPlain {
            let validUntil = spec == .all ? ServerMessages.nextTotalsChange(room.state, after: now) : Int64.max
            channel.cachedSnapshot = ViewChannel.CachedSnapshot(
                stateSequence: room.state.sequence, viewSequence: channel.sequence, validUntil: validUntil, bytes: bytes
            )
        }
        self.transport.send(bytes, to: [session.id])
    }

    /// Limits for reading back messages the gateway wrote itself.
    private static let storedMessageLimits = JSONParser.Limits(
        maxInputBytes: 1 << 20, maxDepth: 32, maxStringBytes: 1 << 20, maxElementsPerContainer: 1 << 16,
        maxTotalNodes: 1 << 20
    )

    /// Drops the live messages of entries the log no longer retains.
    private func forgetTrimmedMessages(_ room: GatewayRoom) {
        // The messages' sequence numbers are contiguous and end at the log's last: drop from below its first.
        var sequence = room.log.entries.first?.sequence ?? room.log.lastSequence + 1
        while room.messages.count > room.log.entries.count, sequence > 1 {
            sequence -= 1
            room.messages[sequence] = nil
        }
    }

    private func ack(_ session: GatewaySession, _ id: JSONValue?, room: GatewayRoom, changed: Bool) {
        self.reply(
            session,
            ServerMessages.ack(
                id: id,
                [
                    ("room", .string(room.state.id)), ("seq", .int(Int64(room.state.sequence))),
                    ("changed", .bool(changed)),
                ]))
    }

    private func reply(_ session: GatewaySession, _ message: JSONValue) {
        self.transport.send(JSONWriter.bytes(message), to: [session.id])
    }

    func closeSession(_ session: GatewaySession, code: UInt16, reason: String) {
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

    /// The roster view `spec` of a room as a snapshot rendered now would carry it (`{"room":...,"participants":...}`),
    /// with the held active speaker; nil when the room does not exist. For checking mirrors against the server.
    func renderedView(room id: String, spec: RosterViewSpec) -> JSONValue? {
        guard let room = self.rooms[id] else { return nil }
        return RosterView.render(
            room.state, spec: spec, speaker: room.heldSpeaker,
            capacity: self.configuration.roomCapacity
        ).json
    }

    /// Whether a room has roster changes (or a held speaker change) that have not gone out in patches yet.
    func hasPendingRosterChanges(room id: String) -> Bool {
        guard let room = self.rooms[id] else { return false }
        return room.flushDue != nil || room.replica.speakerDue != nil || room.hasPendingChanges
    }

    /// Ids of rooms that exist.
    public var roomIDs: [String] { self.rooms.keys.sorted() }

    /// Open sessions.
    public var sessionCount: Int { self.sessions.count }
}

extension Result {
    var isSuccess: Bool {
        if case .success = self { return true }
        return false
    }
}
