import Foundation
import JSONCoding

/// A Rollcall client: one authenticated connection to the gateway, the rooms joined over it, and requests.
///
/// ```swift
/// let client = Rollcall(configuration: RollcallClientConfiguration(
///     endpoint: try RollcallEndpoint(url: "wss://rollcall.example.com/v1/ws"), token: token))
/// try await client.connect()
/// let room = try await client.join(room: "team-standup")
/// for await change in room.changes { render(room.participants) }
/// ```
///
/// Reconnecting: when the connection drops, the client reconnects with the backoff of its `reconnect` policy and
/// rejoins every subscription with `resume` (the roster's sequence number) and `resumeEvents` (the highest one it
/// received on any message of the room), so each either replays exactly what it missed or receives a fresh
/// snapshot; `RoomChange.resumed(recovered:)` says which. Close codes that end the session (4001–4005) do not reconnect.
///
/// Threading: the client runs one thread of its own, which does all network I/O, applies every message, and calls
/// every callback (`onChange`, `onStatusChange`, …) in order; keep callbacks short. `AsyncStream`s are fed from that
/// thread. Every public property and method is safe from any thread or task: shared state is behind a lock, which
/// is never held while a callback runs. Requests wait for their answer at most `requestTimeout` seconds.
public final class Rollcall: @unchecked Sendable {
    /// The configuration the client was created with (the token may since have been refreshed).
    public let configuration: RollcallClientConfiguration

    // Under `lock`.
    let lock = NSLock()
    /// Where the connection stands: idle, connecting, open, waiting to reconnect, closing or closed.
    var state = ConnectionState.idle
    var token: String
    var identity: (uid: String, name: String, expiresAt: Int64)?
    var pending: [Int64: PendingRequest] = [:]
    var nextRequestID: Int64 = 0
    var subscriptions: [String: RoomSubscription] = [:]
    var refreshInFlight = false

    /// Where the client's thread waits before a reconnect; `close()` wakes it.
    let sleeper = NSCondition()

    let statusBroadcaster = Broadcaster<RollcallClientStatus>()
    let meetingBroadcaster = Broadcaster<RollcallEvent>()
    let errorBroadcaster = Broadcaster<RollcallError>()

    /// Creates a client; nothing happens on the network until `connect()`.
    ///
    /// - Parameters:
    ///   - configuration: where to connect, the token, and the policies.
    public init(configuration: RollcallClientConfiguration) {
        self.configuration = configuration
        self.token = configuration.token
    }

    // MARK: State

    /// Where the connection stands.
    public var status: RollcallClientStatus { self.lock.withLock { self.state.status } }

    /// The authenticated user's uid, from the last `welcome`.
    public var uid: String? { self.lock.withLock { self.identity?.uid } }

    /// The authenticated user's display name, from the last `welcome`.
    public var displayName: String? { self.lock.withLock { self.identity?.name } }

    /// When the token expires (seconds since the epoch), from the last `welcome`.
    public var tokenExpiresAt: Int64? { self.lock.withLock { self.identity?.expiresAt } }

    /// Whether the client is connected and authenticated now, and the server agreed to compression.
    public var isCompressionNegotiated: Bool {
        self.lock.withLock { self.state.welcomedTransport?.isCompressionNegotiated ?? false }
    }

    /// The subscriptions, by room id.
    public var rooms: [String: RoomSubscription] { self.lock.withLock { self.subscriptions } }

    /// A new stream of every status change from now on; it finishes when the client closes.
    public var statusChanges: AsyncStream<RollcallClientStatus> { self.statusBroadcaster.stream() }

    /// A new stream of group meeting messages for groups the client has no subscription to (those of subscribed
    /// rooms arrive as the subscription's events).
    public var meetingMessages: AsyncStream<RollcallEvent> { self.meetingBroadcaster.stream() }

    /// A new stream of errors the server sent without a request to answer (such as `ERR_TOKEN_EXPIRED`).
    public var serverErrors: AsyncStream<RollcallError> { self.errorBroadcaster.stream() }

    /// Adds a callback for every status change, called on the client's thread.
    ///
    /// - Parameters:
    ///   - handler: the callback.
    public func onStatusChange(_ handler: @escaping @Sendable (RollcallClientStatus) -> Void) {
        self.statusBroadcaster.add(handler)
    }

    /// Adds a callback for meeting messages of groups without a subscription, called on the client's thread.
    ///
    /// - Parameters:
    ///   - handler: the callback.
    public func onMeetingMessage(_ handler: @escaping @Sendable (RollcallEvent) -> Void) {
        self.meetingBroadcaster.add(handler)
    }

    // MARK: Lifecycle

    /// Connects and authenticates; returns after the server's `welcome`.
    ///
    /// - Throws: `RollcallError`: a connection failure, or `ERR_UNAUTHORIZED` for a token the gateway refused.
    ///   A failed first connection is not retried.
    public func connect() async throws(RollcallError) {
        let result: Result<Void, RollcallError> = await withCheckedContinuation { continuation in
            let started = self.lock.withLock { self.state.start { continuation.resume(returning: $0) } }
            guard started else {
                continuation.resume(returning: .failure(RollcallError(.protocolError("connect() was already called"))))
                return
            }
            let thread = Thread { [self] in self.runConnections() }
            thread.name = "rollcall-client"
            thread.start()
        }
        try result.get()
    }

    /// Closes the connection (close code 1000) and ends every subscription; returns once the client's thread has
    /// stopped. Idempotent.
    public func close() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let request = self.lock.withLock { self.state.requestClose { continuation.resume() } }
            switch request {
            case .closedIdle:
                self.finishIdle()
                continuation.resume()
            case .closedAlready:
                continuation.resume()
            case .wait(let transport, let inbox):
                transport?.close(code: 1000, reason: "")
                inbox?.wake()
                self.wakeSleeper()
            }
        }
    }

    func wakeSleeper() {
        self.sleeper.lock()
        self.sleeper.broadcast()
        self.sleeper.unlock()
    }

    /// Drops the connection as a network failure would (no close handshake); the client then reconnects by its
    /// policy and resumes every subscription. Useful when the app learns that the network changed.
    public func dropConnection() {
        self.lock.withLock { self.state.transport }?.abort()
    }

    // MARK: Rooms and requests

    /// Joins a room (or watches it as an observer) and returns once its first snapshot is applied.
    ///
    /// - Parameters:
    ///   - room: the room id (a group's room is the group id).
    ///   - kind: join the call (`participant`, default) or watch it (`observer`).
    ///   - view: the roster view to mirror; default the whole roster.
    ///   - events: the events to receive besides patches; default all.
    ///   - callType: `audio` or `video`, taken from the join that starts the call.
    ///   - onWaiting: told the join's position (from 1) each time it changes while the join waits in the room's
    ///     waiting room; the join returns once a moderator admits it.
    /// - Returns: the subscription.
    /// - Throws: `RollcallError`: `ERR_NOT_GROUP_MEMBER`, `ERR_BANNED`, `ERR_CALL_FULL`, `ERR_TOO_MANY_ROOMS`,
    ///   `ERR_ADMISSION_DENIED`, `ERR_WAIT_EXPIRED`, …
    public func join(
        room: String,
        as kind: RollcallJoinKind = .participant,
        view: RollcallView = .all,
        events: RollcallEventMode = .all,
        callType: String? = nil,
        onWaiting: (@Sendable (_ position: Int) -> Void)? = nil
    ) async throws(RollcallError) -> RoomSubscription {
        let subscription = RoomSubscription(
            client: self, room: room, kind: kind, device: self.configuration.device, view: view, events: events,
            callType: callType
        )
        subscription.waitingHandler = onWaiting
        let taken = self.lock.withLock {
            guard self.subscriptions[room] == nil else { return true }
            self.subscriptions[room] = subscription
            return false
        }
        if taken { throw RollcallError(.protocolError("already subscribed to \(room)")) }
        do {
            let acknowledgement = try await self.request(
                .join, subscription.joinFields(resume: false), room: room, completesOnRoster: true)
            subscription.joined(acknowledgement)
        } catch {
            self.removeSubscription(subscription)
            subscription.end(error)
            throw error
        }
        return subscription
    }

    /// Joins a room: the name of `join(room:as:view:events:callType:)` before it was called `join`, as in the
    /// JavaScript and Python clients.
    ///
    /// - Parameters:
    ///   - room: the room id.
    ///   - kind: join the call (`participant`, default) or watch it (`observer`).
    ///   - view: the roster view to mirror; default the whole roster.
    ///   - events: the events to receive besides patches; default all.
    ///   - callType: `audio` or `video`, taken from the join that starts the call.
    /// - Returns: the subscription.
    @available(*, deprecated, renamed: "join(room:as:view:events:callType:)")
    public func subscribe(
        room: String,
        as kind: RollcallJoinKind = .participant,
        view: RollcallView = .all,
        events: RollcallEventMode = .all,
        callType: String? = nil
    ) async throws(RollcallError) -> RoomSubscription {
        try await self.join(room: room, as: kind, view: view, events: events, callType: callType)
    }

    /// Tells every member of a group that a meeting is on or over.
    ///
    /// - Parameters:
    ///   - group: the group id.
    ///   - sessionID: the calls SDK's session id.
    ///   - callType: `audio` or `video`.
    ///   - text: a short text, such as the meeting's title.
    ///   - active: true when the meeting starts, false when it ends.
    @discardableResult
    public func sendMeeting(
        group: String,
        sessionID: String,
        callType: String = "video",
        text: String? = nil,
        active: Bool = true
    ) async throws(RollcallError) -> RollcallAcknowledgement {
        var fields: [(String, JSONValue)] = [
            ("group", .string(group)), ("sessionId", .string(sessionID)), ("callType", .string(callType)),
            ("active", .bool(active)),
        ]
        if let text { fields.append(("text", .string(text))) }
        return RollcallAcknowledgement(message: try await self.request(.meeting, fields))
    }

    /// Asks the gateway a question (`rooms`, `active_meeting`, `members`, `operators`, `muted`, `banned`,
    /// `history`).
    ///
    /// - Parameters:
    ///   - query: the query's name.
    ///   - parameters: its parameters, such as `room`, `group`, `after`, `limit`.
    /// - Returns: the whole `result` message, parsed.
    public func query(_ query: String, _ parameters: JSONObject = JSONObject()) async throws(RollcallError) -> JSONValue
    {
        try await self.request(.query, [("query", .string(query))] + parameters.entries.map { ($0.key, $0.value) })
    }

    /// Sends a protocol-level `ping` and waits for the `pong`.
    public func ping() async throws(RollcallError) {
        _ = try await self.request(.ping, [])
    }

    /// Replaces the token before it expires; later reconnects use the new one.
    ///
    /// - Parameters:
    ///   - token: a token for the same user.
    /// - Throws: `ERR_FORBIDDEN` for another user's token, `ERR_UNAUTHORIZED` for one that fails verification; the
    ///   connection stays on the old token either way.
    public func refreshToken(_ token: String) async throws(RollcallError) {
        _ = try await self.request(.auth, [("token", .string(token))])
        self.lock.withLock { self.token = token }
    }

    /// Sends a request and waits for its answer (`ack`, `result`, `pong`, `welcome`; or the room's roster).
    func request(
        _ type: RollcallClientMessageType,
        _ fields: [(String, JSONValue)],
        room: String? = nil,
        completesOnRoster: Bool = false
    ) async throws(RollcallError) -> JSONValue {
        let result: Result<JSONValue, RollcallError> = await withCheckedContinuation { continuation in
            self.send(type, fields, room: room, completesOnRoster: completesOnRoster) {
                continuation.resume(returning: $0)
            }
        }
        return try result.get()
    }

    /// Sends a request with an id; `completion` gets the answer on the client's thread (or at once on failure).
    func send(
        _ type: RollcallClientMessageType,
        _ fields: [(String, JSONValue)],
        room: String?,
        completesOnRoster: Bool,
        completion: @escaping @Sendable (Result<JSONValue, RollcallError>) -> Void
    ) {
        let outcome: (any RollcallTransport, String, Int64)? = self.lock.withLock {
            guard let connection = self.state.welcomedTransport else { return nil }
            self.nextRequestID += 1
            let id = self.nextRequestID
            self.pending[id] = PendingRequest(
                what: "the answer to \(type.rawValue)",
                deadline: MonotonicClock.now() + self.configuration.requestTimeout,
                room: room, completesOnRoster: completesOnRoster, acknowledgement: nil, completion: completion
            )
            var object = JSONObject()
            object["type"] = .string(type.rawValue)
            object["id"] = .int(id)
            for (key, value) in fields { object[key] = value }
            return (connection, JSONWriter.string(.object(object)), id)
        }
        guard let (connection, text, id) = outcome else {
            completion(.failure(RollcallError(.notConnected)))
            return
        }
        do {
            try connection.send(text: text)
        } catch {
            if let request = self.lock.withLock({ self.pending.removeValue(forKey: id) }) {
                request.completion(.failure(error))
            }
        }
    }

    /// Sends a message without an id, for which no answer comes.
    func sendUnanswered(_ type: RollcallClientMessageType, _ fields: [(String, JSONValue)]) throws(RollcallError) {
        guard let connection = self.lock.withLock({ self.state.welcomedTransport }) else {
            throw RollcallError(.notConnected)
        }
        var object = JSONObject()
        object["type"] = .string(type.rawValue)
        for (key, value) in fields { object[key] = value }
        try connection.send(text: JSONWriter.string(.object(object)))
    }

    func removeSubscription(_ subscription: RoomSubscription) {
        self.lock.withLock {
            if self.subscriptions[subscription.room] === subscription {
                self.subscriptions[subscription.room] = nil
            }
        }
    }

}
