import JSONCoding
import TokenAuth

/// The rooms layer: sessions, rooms, the per-room log and reducer, admission, moderation and fan-out.
///
/// The gateway is single-threaded and deterministic: it reacts to what the transport reports (a session opened,
/// sent a message, closed) and to `tick`, reads time only from the injected clock, and writes only through the
/// transport. Every change to a room goes through the same path: validate, append to the room's log (which numbers
/// it), apply the reducer, fan out the encoded event once to every subscriber.
public final class RoomsNode {
    public let configuration: RoomsConfiguration
    let verifier: TokenVerifier
    unowned let transport: any RoomsTransport
    let clock: () -> Int64
    let decoder: ClientMessageDecoder
    /// Decides when each room's roster goes out, and builds it.
    let publisher: RosterPublisher
    var sessions: [SessionID: HostedSession] = [:]
    var rooms: [String: HostedRoom] = [:]
    /// Authenticated connections per user, for `maximumConnectionsPerUser`.
    var connectionsByUser: [String: Int] = [:]
    /// Authenticated sessions by group, for meeting messages to members who are not in the room.
    var groupSessions: [String: [SessionID]] = [:]
    /// Told about every moderator action that was carried out (from a client or the server API), for the log.
    public var onModeration: ((ModerationRecord) -> Void)?
    /// Counters for metrics and tests.
    public internal(set) var statistics = RoomsStatistics()
    /// The room log every change goes through (`SharedRoomLog`): given at init, `LocalRoomLog` by default. The
    /// gateway is its delegate. Replace it only before the first session opens.
    public var log: any SharedRoomLog {
        didSet {
            if oldValue !== self.log, oldValue.delegate === self { oldValue.delegate = nil }
            self.log.delegate = self
            self.logTraits = self.log.traits
        }
    }
    /// How the log answers, read once when it is given.
    private(set) var logTraits: RoomLogTraits
    /// The log, when other gateways write to it too (a cluster's shared log); nil for a log of this process alone.
    /// Setting it replaces the log (nil: a `LocalRoomLog`); only before the first session opens.
    public var sharedLog: (any SharedRoomLog)? {
        get { self.logTraits.hasOtherWriters ? self.log : nil }
        set { self.log = newValue ?? LocalRoomLog() }
    }
    /// Where the log keeps rooms across restarts (`LocalRoomLog.store`); nil keeps them in memory only, as does a
    /// shared log, which is its own store. Setting it gives a `LocalRoomLog` the store; only before the first
    /// session opens.
    public var store: (any RoomStore)? {
        get { self.log.roomStore }
        set { (self.log as? LocalRoomLog)?.store = newValue }
    }
    /// A room's checkpoint goes to the store every this many entries (`LocalRoomLog.checkpointInterval`).
    public var storeCheckpointInterval: UInt64 {
        get { (self.log as? LocalRoomLog)?.checkpointInterval ?? 0 }
        set { (self.log as? LocalRoomLog)?.checkpointInterval = newValue }
    }
    /// Told when the store cannot be read (the request gets `ERR_UNAVAILABLE`), for the log.
    public var onStoreFailure: ((String) -> Void)?
    /// Set by the runner while the store's commits fail and the transport holds the output back: requests are
    /// refused with `ERR_UNAVAILABLE` meanwhile (`RoomsNode+Storage.swift`).
    public var storeCannotCommit = false
    /// This gateway's place when the rooms layer runs as several rooms threads, one per thread (`RoomThreadRouting.swift`); nil
    /// (the default) when it is the only one. Given at init; set it only before the first session opens.
    public var roomThread: RoomThreadPlace?
    /// Called when a room's coalescing window opens, with the moment (on `clock`) its patches are due: the runner
    /// may call `flushDueRooms()` then instead of waiting for its next `tick()`, so patches go out on time rather
    /// than up to a tick late.
    public var onFlushDue: ((Int64) -> Void)?
    /// Rooms with a deadline of their own pending (a lost device's grace period, a held speaker switch, a
    /// coalescing window): the only rooms `tick()` looks at between two rounds of housekeeping.
    var roomsWithDeadlines: [HostedRoom] = []
    /// When `tick()` next walks every room for housekeeping (history by age, idle views, forgetting rooms).
    var nextHousekeeping = Int64.min
    /// The room ids in order, kept between housekeeping rounds until a room comes or goes.
    var sortedRoomIDs: [String]?
    /// With a store: where the reading back of the stored rooms after the start has got to (the last room id read;
    /// nil before the first), and whether it is done (`RoomsNode+StoredRoomSweep.swift`).
    var storedRoomsReadAfter: String?
    var storedRoomsAllRead = false
    /// How the shown active speaker follows the reports, in log time. A hold counts from when the speaker went out to
    /// subscribers, which is up to one coalescing window after the report was logged.
    var speakerRule: SpeakerRule { Self.speakerRule(self.configuration) }

    static func speakerRule(_ configuration: RoomsConfiguration) -> SpeakerRule {
        switch configuration.speakerRuleKind {
        case .stable: return .stable(milliseconds: configuration.speakerStableMilliseconds)
        case .hold:
            return .hold(milliseconds: configuration.speakerHoldMilliseconds + configuration.patchWindowMilliseconds)
        }
    }
    /// The earliest deadline of any session (authentication, token expiry, slow subscriber): `tick` looks at the
    /// sessions only from then on.
    var nextSessionDeadline = Int64.min
    /// Most requests that may wait for one room on this node in a cluster; beyond it a request gets `ERR_BUSY`.
    static let maximumWaitingRequests = 1024

    /// - Parameters:
    ///   - configuration: capacity, grace period, limits.
    ///   - verifier: checks tokens.
    ///   - transport: where messages go.
    ///   - clock: now, in milliseconds since the epoch.
    ///   - log: the room log; nil (the default) for a `LocalRoomLog` without a store.
    ///   - rooms thread: this gateway's place among several rooms threads; nil (the default) when it is the only one.
    public init(
        configuration: RoomsConfiguration,
        verifier: TokenVerifier,
        transport: any RoomsTransport,
        clock: @escaping () -> Int64,
        log: (any SharedRoomLog)? = nil,
        roomThread: RoomThreadPlace? = nil
    ) {
        let log = log ?? LocalRoomLog()
        self.log = log
        self.logTraits = log.traits
        self.roomThread = roomThread
        self.configuration = configuration
        self.verifier = verifier
        self.transport = transport
        self.clock = clock
        self.decoder = ClientMessageDecoder(configuration: configuration)
        self.publisher = RosterPublisher(
            configuration: configuration, transport: transport, clock: clock,
            speakerRule: Self.speakerRule(configuration))
        self.publisher.session = { [unowned self] id in self.sessions[id] }
        self.publisher.windowOpened = { [unowned self] room, due in
            self.watchDeadlines(of: room)
            self.onFlushDue?(due)
        }
        self.publisher.count = { [unowned self] count in
            switch count {
            case .coalescedChange: self.statistics.coalescedChanges += 1
            case .resyncSnapshot: self.statistics.resyncSnapshots += 1
            case .patch(let bytes, let deliveries):
                self.statistics.patches += 1
                self.statistics.patchBytes += bytes
                self.statistics.patchDeliveries += deliveries
            }
        }
        log.delegate = self
    }

    // MARK: Transport events

    /// A connection opened; `token` is the bearer token from the upgrade request (header or query), if any.
    ///
    /// - Parameters:
    ///   - id: the new session's id.
    ///   - token: a token sent with the upgrade request, or nil to wait for an `auth` message.
    public func sessionOpened(_ id: SessionID, token: String?) {
        let deadline = self.clock() + self.configuration.authenticationTimeoutMilliseconds
        let session = HostedSession(id: id, auth: .awaiting(deadline: deadline))
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
        switch self.decoder.read(text) {
        case .request(let request): self.received(request, from: session)
        case .refused(let requestID, let error): self.reply(session, ServerMessages.error(id: requestID, error))
        }
    }

    /// Every client request comes in here, read by the gateway (`sessionReceived(_:text:)`) or by the rooms thread router
    /// (`sessionReceived(_:routed:)`): handled, or answered with the error.
    @inline(__always)
    func received(_ request: ClientRequest, from session: HostedSession) {
        do {
            try self.dispatch(request, from: session)
        } catch {
            self.reply(session, ServerMessages.error(id: request.id, error))
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
        self.roomThread?.authority.connectionEnded(id)
        self.endSession(id, cleanly: cleanly)
    }

    /// The session is gone for this gateway: its rooms see it go (its connection may still be closing).
    func endSession(_ id: SessionID, cleanly: Bool) {
        guard let session = self.sessions.removeValue(forKey: id) else { return }
        // The session is gone: no event from here on goes to it, whichever room's subscribers still list it.
        for roomID in session.subscriptions.keys { self.rooms[roomID]?.subscriberEventModes = nil }
        if let claims = session.claims {
            self.removeFromGroups(session.id, claims: claims)
            if self.roomThread == nil { self.countConnection(of: claims.subject, by: -1) }
        }
        self.roomThread?.authority.releaseRooms(of: id, count: session.subscriptions.count)
        let now = self.clock()
        for (roomID, subscription) in session.subscriptions.sorted(by: { $0.key < $1.key }) {
            guard let room = self.rooms[roomID], let claims = session.claims else { continue }
            room.subscribers.removeAll { $0 == id }
            room.countSubscription(of: claims.subject, by: -1)
            guard subscription.kind == .participant else { continue }
            let uid = claims.subject
            guard
                room.state.participants[uid]?.devices.contains(where: { $0.deviceID == subscription.deviceID })
                    == true
            else { continue }
            room.lostDevices[HostedRoom.DeviceKey(uid: uid, deviceID: subscription.deviceID)] =
                HostedRoom.LostDevice(
                    deadline: now + self.configuration.reconnectGraceMilliseconds, closedCleanly: cleanly)
            self.watchDeadlines(of: room)
            let event: RoomEvent =
                cleanly
                ? .participantConnectionClosed(uid: uid, deviceID: subscription.deviceID)
                : .connectionLost(uid: uid, deviceID: subscription.deviceID)
            self.record([ProposedEvent(event, actor: nil, requiresDeviceOwnership: true)], in: room)
        }
        for (roomID, subscription) in session.subscriptions {
            guard let room = self.rooms[roomID] else { continue }
            self.publisher.unsubscribe(id, from: subscription.view, in: room)
        }
        for roomID in session.waitingIn.sorted() {
            guard let room = self.rooms[roomID] else { continue }
            self.endWaits(of: id, in: room, leaving: false)
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
            self.publisher.resync(session, view: subscription.view, in: room)
        }
        session.needsResync = []
    }

    // MARK: Requests

    /// Handles a request, or, with a log that answers later, queues it behind the loading of its room and this
    /// gateway's previous change to the room, so that each request is checked against the room as this gateway's
    /// own changes left it.
    func dispatch(
        _ request: ClientRequest,
        from session: HostedSession,
        resuming resumedRoom: HostedRoom? = nil
    ) throws(GatewayError) {
        if self.storeCannotCommit, self.refusedWhileTheStoreCannotCommit(request, from: session) { return }
        if self.log.roomStore != nil { try self.loadStoredRooms(for: request, claims: session.claims) }
        if self.logTraits.answersLater, let claims = session.claims {
            var roomIDs = request.message.roomIDs
            if case .query(.rooms) = request.message {
                roomIDs = Set(claims.groups + Array(claims.rooms.keys)).sorted()
            }
            for roomID in roomIDs where self.role(of: claims, in: roomID) != nil {
                let room = self.room(roomID)
                // Meeting messages do not depend on the room's state: they go out behind the appends in flight
                // (the shared log keeps their order), only not ahead of requests that wait.
                let othersWait = room !== resumedRoom && !room.backlog.waiting.isEmpty
                let mustWait =
                    !room.isReady || othersWait
                    || (room.backlog.appendsInFlight > 0 && !request.message.isIndependentOfRoomState)
                guard mustWait else { continue }
                guard room.backlog.waiting.count < Self.maximumWaitingRequests else { throw .busy }
                if room === resumedRoom {
                    room.backlog.waiting.insert(.request(session.id, request), at: 0)
                } else {
                    room.backlog.waiting.append(.request(session.id, request))
                }
                return
            }
        }
        try self.handle(request, from: session)
    }

    private func handle(_ request: ClientRequest, from session: HostedSession) throws(GatewayError) {
        if case .authenticate(let token) = request.message {
            if self.authenticate(session, token: token, requestID: request.id) {
                // Already answered with a welcome.
            }
            return
        }
        if case .ping = request.message {
            self.reply(session, ServerMessages.pong(id: request.id))
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
            try Self.checkMayOpen(
                view, as: RoomActor(claims: claims, role: self.role(of: claims, in: roomID)), in: room.state)
            self.publisher.move(session.id, from: subscription.view, to: view, in: room)
            if subscription.view != view {
                subscription.view = view
                session.subscriptions[roomID] = subscription
                room.subscriberEventModes = nil
            }
            self.ack(session, request.id, room: room, changed: true)
            self.publisher.sendSnapshot(to: session, room: room, view: view, recovered: nil, resync: false)
        case .leave(let roomID):
            try self.leave(session, claims: claims, roomID: roomID, requestID: request.id)
        case .command(let roomID, let command):
            let role = self.role(of: claims, in: roomID)
            let room = try self.room(for: command, roomID, from: session, role: role)
            try self.perform(
                command, in: room, by: RoomActor(claims: claims, role: role),
                answer: .client(session, requestID: request.id))
        case .query(let query):
            try self.answer(query, session: session, claims: claims, requestID: request.id)
        case .signal(let roomID, let signal):
            try self.send(signal, to: roomID, from: session, claims: claims, requestID: request.id)
        }
    }

    func ack(_ session: HostedSession, _ id: JSONValue?, room: HostedRoom, changed: Bool) {
        let message = ServerMessages.ack(
            id: id, room: room.state.id, sequence: room.state.sequence, changed: changed)
        self.transport.send(message, to: [session.id])
    }

    func reply(_ session: HostedSession, _ message: JSONValue) {
        self.transport.send(JSONWriter.bytes(message), to: [session.id])
    }

    func closeSession(_ session: HostedSession, code: UInt16, reason: String) {
        // The session leaves cleanly from the gateway's point of view: its rooms see it go now.
        self.endSession(session.id, cleanly: true)
        self.transport.close(session.id, code: code, reason: reason)
    }

}
