import Foundation
import JSONCoding

/// A Rollcall client: one authenticated connection to the gateway, the rooms joined over it, and requests.
///
/// ```swift
/// let client = Rollcall(configuration: RollcallClientConfiguration(
///     endpoint: try RollcallEndpoint(url: "wss://rollcall.example.com/v1/ws"), token: token))
/// try await client.connect()
/// let room = try await client.subscribe(room: "team-standup")
/// for await change in room.changes { render(room.participants) }
/// ```
///
/// Reconnecting: when the connection drops, the client reconnects with the backoff of its `reconnect` policy and
/// rejoins every subscription with `resume` (the roster's sequence number) and `resumeEvents` (the last event's),
/// so each either replays exactly what it missed or receives a fresh snapshot; `RoomChange.resumed(recovered:)`
/// says which. Close codes that end the session (4001–4005) do not reconnect.
///
/// Threading: the client runs one thread of its own, which does all network I/O, applies every message, and calls
/// every callback (`onChange`, `onStatusChange`, …) in order; keep callbacks short. `AsyncStream`s are fed from that
/// thread. Every public property and method is safe from any thread or task: shared state is behind a lock, which
/// is never held while a callback runs. Requests wait for their answer at most `requestTimeout` seconds.
public final class Rollcall: @unchecked Sendable {
    /// The configuration the client was created with (the token may since have been refreshed).
    public let configuration: RollcallClientConfiguration

    private let lock = NSLock()
    private let sleeper = NSCondition()
    private var currentStatus: RollcallClientStatus = .idle
    private var connection: RollcallConnection?
    private var token: String
    private var identity: (uid: String, name: String, expiresAt: Int64)?
    private var welcomed = false
    private var welcomeDeadline = 0.0
    private var authenticationFailure: RollcallError?
    private var pending: [Int64: PendingRequest] = [:]
    private var nextRequestID: Int64 = 0
    private var subscriptions: [String: RoomSubscription] = [:]
    private var stopRequested = false
    private var connectWaiter: (@Sendable (Result<Void, RollcallError>) -> Void)?
    private var finishWaiters: [@Sendable () -> Void] = []
    private var isFinished = false
    private var thread: Thread?

    private let statusBroadcaster = Broadcaster<RollcallClientStatus>()
    private let meetingBroadcaster = Broadcaster<RollcallEvent>()
    private let errorBroadcaster = Broadcaster<RollcallError>()

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
    public var status: RollcallClientStatus { self.lock.withLock { self.currentStatus } }

    /// The authenticated user's uid, from the last `welcome`.
    public var uid: String? { self.lock.withLock { self.identity?.uid } }

    /// The authenticated user's display name, from the last `welcome`.
    public var displayName: String? { self.lock.withLock { self.identity?.name } }

    /// When the token expires (seconds since the epoch), from the last `welcome`.
    public var tokenExpiresAt: Int64? { self.lock.withLock { self.identity?.expiresAt } }

    /// Whether the client is connected and authenticated now, and the server agreed to compression.
    public var isCompressionNegotiated: Bool {
        self.lock.withLock { self.connection?.isCompressionNegotiated ?? false }
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
            let error: RollcallError? = self.lock.withLock {
                guard case .idle = self.currentStatus else {
                    return RollcallError(.protocolError("connect() was already called"))
                }
                self.currentStatus = .connecting
                self.connectWaiter = { continuation.resume(returning: $0) }
                let thread = Thread { [self] in self.runConnections() }
                thread.name = "rollcall-client"
                self.thread = thread
                thread.start()
                return nil
            }
            if let error { continuation.resume(returning: .failure(error)) }
        }
        try result.get()
    }

    /// Closes the connection (close code 1000) and ends every subscription; returns once the client's thread has
    /// stopped. Idempotent.
    public func close() async {
        let needsWait: Bool = self.lock.withLock {
            self.stopRequested = true
            self.connection?.close(code: 1000, reason: "")
            return self.thread != nil && !self.isFinished
        }
        self.wakeSleeper()
        guard needsWait else {
            self.finishIfIdle()
            return
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let finished = self.lock.withLock {
                if self.isFinished { return true }
                self.finishWaiters.append { continuation.resume() }
                return false
            }
            if finished { continuation.resume() }
        }
    }

    private func wakeSleeper() {
        self.sleeper.lock()
        self.sleeper.broadcast()
        self.sleeper.unlock()
    }

    /// Drops the connection as a network failure would (no close handshake); the client then reconnects by its
    /// policy and resumes every subscription. Useful when the app learns that the network changed.
    public func dropConnection() {
        self.lock.withLock { self.connection }?.abort()
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
    /// - Returns: the subscription.
    /// - Throws: `RollcallError`: `ERR_NOT_GROUP_MEMBER`, `ERR_BANNED`, `ERR_CALL_FULL`, `ERR_TOO_MANY_ROOMS`, …
    public func subscribe(
        room: String,
        as kind: RollcallJoinKind = .participant,
        view: RollcallView = .all,
        events: RollcallEventMode = .all,
        callType: String? = nil
    ) async throws(RollcallError) -> RoomSubscription {
        let subscription = RoomSubscription(
            client: self, room: room, kind: kind, device: self.configuration.device, view: view, events: events,
            callType: callType
        )
        let taken = self.lock.withLock {
            guard self.subscriptions[room] == nil else { return true }
            self.subscriptions[room] = subscription
            return false
        }
        if taken { throw RollcallError(.protocolError("already subscribed to \(room)")) }
        do {
            _ = try await self.request(
                "join", subscription.joinFields(resume: false), room: room, completesOnRoster: true)
        } catch {
            self.removeSubscription(subscription)
            subscription.end(error)
            throw error
        }
        return subscription
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
        return RollcallAcknowledgement(message: try await self.request("meeting", fields))
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
        try await self.request("query", [("query", .string(query))] + parameters.entries.map { ($0.key, $0.value) })
    }

    /// Sends a protocol-level `ping` and waits for the `pong`.
    public func ping() async throws(RollcallError) {
        _ = try await self.request("ping", [])
    }

    /// Replaces the token before it expires; later reconnects use the new one.
    ///
    /// - Parameters:
    ///   - token: a token for the same user.
    /// - Throws: `ERR_FORBIDDEN` for another user's token, `ERR_UNAUTHORIZED` for one that fails verification; the
    ///   connection stays on the old token either way.
    public func refreshToken(_ token: String) async throws(RollcallError) {
        _ = try await self.request("auth", [("token", .string(token))])
        self.lock.withLock { self.token = token }
    }

    /// Sends a request and waits for its answer (`ack`, `result`, `pong`, `welcome`; or the room's roster).
    func request(
        _ type: String,
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
    private func send(
        _ type: String,
        _ fields: [(String, JSONValue)],
        room: String?,
        completesOnRoster: Bool,
        completion: @escaping @Sendable (Result<JSONValue, RollcallError>) -> Void
    ) {
        let outcome: (RollcallConnection, String, Int64)? = self.lock.withLock {
            guard let connection = self.connection, self.welcomed else { return nil }
            self.nextRequestID += 1
            let id = self.nextRequestID
            self.pending[id] = PendingRequest(
                what: "the answer to \(type)", deadline: MonotonicClock.now() + self.configuration.requestTimeout,
                room: room, completesOnRoster: completesOnRoster, acknowledgement: nil, completion: completion
            )
            var object = JSONObject()
            object["type"] = .string(type)
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
    func sendUnanswered(_ type: String, _ fields: [(String, JSONValue)]) throws(RollcallError) {
        guard let connection = self.lock.withLock({ self.welcomed ? self.connection : nil }) else {
            throw RollcallError(.notConnected)
        }
        var object = JSONObject()
        object["type"] = .string(type)
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

    // MARK: The client's thread

    private func setStatus(_ status: RollcallClientStatus) {
        self.lock.withLock { self.currentStatus = status }
        self.statusBroadcaster.publish(status)
    }

    /// Connects, runs, and reconnects until closed or out of attempts.
    private func runConnections() {
        var attempt = 0
        var hasConnected = false
        var lastClose: RollcallCloseInfo?
        while !self.lock.withLock({ self.stopRequested }) {
            var options = self.configuration.connection
            var endpoint = self.configuration.endpoint
            let token = self.lock.withLock { self.token }
            switch self.configuration.authentication {
            case .queryParameter:
                let parameter = "token=" + Self.percentEncoded(token)
                endpoint.query = endpoint.query.map { "\($0)&\(parameter)" } ?? parameter
            case .header:
                options.extraHeaders.append((name: "Authorization", value: "Bearer \(token)"))
            case .message:
                break
            }
            let connection = RollcallConnection(endpoint: endpoint, options: options)
            self.lock.withLock {
                self.connection = connection
                self.welcomed = false
                self.authenticationFailure = nil
                self.welcomeDeadline = MonotonicClock.now() + self.configuration.requestTimeout
            }
            var failure: RollcallError?
            var info: RollcallCloseInfo?
            do {
                try connection.open()
                if self.configuration.authentication == .message {
                    var auth = JSONObject()
                    auth["type"] = "auth"
                    auth["token"] = .string(token)
                    try connection.send(text: JSONWriter.string(.object(auth)))
                }
                info = connection.run(onText: { self.received($0) }, onTick: { self.tick() })
            } catch {
                failure = error
                connection.finish()
            }
            lastClose = info
            let (wasWelcomed, authFailure, requests, subscriptions) = self.lock.withLock {
                self.connection = nil
                let requests = Array(self.pending.values)
                self.pending = [:]
                return (self.welcomed, self.authenticationFailure, requests, Array(self.subscriptions.values))
            }
            let closedError = failure ?? RollcallError(.connectionClosed(code: info?.code, reason: info?.reason ?? ""))
            for request in requests { request.completion(.failure(closedError)) }
            if wasWelcomed {
                hasConnected = true
                attempt = 0
                for subscription in subscriptions { subscription.connectionLost() }
            }
            if self.lock.withLock({ self.stopRequested }) { break }
            if !hasConnected {
                let waiter = self.lock.withLock {
                    defer { self.connectWaiter = nil }
                    return self.connectWaiter
                }
                waiter?(.failure(authFailure ?? closedError))
                break
            }
            if let code = info?.code, (4001...4005).contains(code) { break }
            attempt += 1
            guard attempt <= self.configuration.reconnect.maximumAttempts else { break }
            self.setStatus(.reconnecting(attempt: attempt))
            let wakeAt = Date().addingTimeInterval(self.configuration.reconnect.delay(beforeAttempt: attempt))
            self.sleeper.lock()
            while !self.lock.withLock({ self.stopRequested }) && Date() < wakeAt {
                _ = self.sleeper.wait(until: wakeAt)
            }
            self.sleeper.unlock()
        }
        self.finish(lastClose)
    }

    private func finish(_ info: RollcallCloseInfo?) {
        let (subscriptions, waiter) = self.lock.withLock {
            let all = Array(self.subscriptions.values)
            self.subscriptions = [:]
            defer { self.connectWaiter = nil }
            return (all, self.connectWaiter)
        }
        waiter?(.failure(RollcallError(.connectionClosed(code: info?.code, reason: info?.reason ?? ""))))
        let error = RollcallError(.connectionClosed(code: info?.code, reason: info?.reason ?? ""))
        for subscription in subscriptions { subscription.end(error) }
        self.setStatus(.closed(info))
        self.statusBroadcaster.finish()
        self.meetingBroadcaster.finish()
        self.errorBroadcaster.finish()
        let waiters = self.lock.withLock {
            self.isFinished = true
            defer { self.finishWaiters = [] }
            return self.finishWaiters
        }
        for waiter in waiters { waiter() }
    }

    /// Closes a client that never connected.
    private func finishIfIdle() {
        let idle = self.lock.withLock {
            guard case .idle = self.currentStatus, !self.isFinished else { return false }
            self.isFinished = true
            return true
        }
        if idle {
            self.setStatus(.closed(nil))
            self.statusBroadcaster.finish()
            self.meetingBroadcaster.finish()
            self.errorBroadcaster.finish()
        }
    }

    /// Times out requests and a missing welcome.
    private func tick() {
        let now = MonotonicClock.now()
        let (expired, lateWelcome, connection) = self.lock.withLock {
            var expired: [PendingRequest] = []
            for (id, request) in self.pending where request.deadline < now {
                expired.append(request)
                self.pending[id] = nil
            }
            let late = !self.welcomed && now > self.welcomeDeadline
            if late { self.welcomeDeadline = .infinity }
            return (expired, late, self.connection)
        }
        for request in expired { request.completion(.failure(RollcallError(.timedOut(request.what)))) }
        if lateWelcome {
            self.lock.withLock { self.authenticationFailure = RollcallError(.timedOut("the welcome")) }
            connection?.close(code: 1000, reason: "no welcome")
        }
    }

    /// Handles one text message from the gateway.
    private func received(_ text: String) {
        guard let message = try? JSONParser.parse(text), let type = message["type"]?.stringValue else { return }
        let id = message["id"]?.intValue
        switch type {
        case "welcome":
            self.welcome(message, id: id)
        case "ack":
            guard let id else { return }
            let completeNow = self.lock.withLock { () -> Bool in
                guard var request = self.pending[id] else { return false }
                guard request.completesOnRoster else { return true }
                request.acknowledgement = message
                self.pending[id] = request
                return false
            }
            if completeNow { self.complete(id, .success(message)) }
        case "result", "pong":
            if let id { self.complete(id, .success(message)) }
        case "error":
            let error = RollcallError(
                .server(
                    code: message["code"]?.stringValue ?? "ERR_UNKNOWN", message: message["message"]?.stringValue ?? ""
                ))
            if let id, self.complete(id, .failure(error)) { return }
            self.lock.withLock { if !self.welcomed { self.authenticationFailure = error } }
            self.errorBroadcaster.publish(error)
        case "snapshot", "patch", "event", "resumed":
            guard let room = message["room"]?.stringValue else { return }
            guard let subscription = self.lock.withLock({ self.subscriptions[room] }) else {
                if type == "event", let event = RollcallEvent(message: message), event.name == "meeting.message" {
                    self.meetingBroadcaster.publish(event)
                }
                return
            }
            let followUp = subscription.handle(message)
            if type == "snapshot" || type == "resumed" {
                self.completeRoster(room: room)
            }
            if case .rejoin(let resume) = followUp {
                self.rejoin(subscription, resume: resume)
            }
        default:
            break
        }
    }

    private func welcome(_ message: JSONValue, id: Int64?) {
        let identity = (
            uid: message["uid"]?.stringValue ?? "", name: message["name"]?.stringValue ?? "",
            expiresAt: message["expiresAt"]?.intValue ?? 0
        )
        let (first, waiter, subscriptions) = self.lock.withLock {
            self.identity = identity
            let first = !self.welcomed
            self.welcomed = true
            defer { self.connectWaiter = nil }
            return (first, self.connectWaiter, Array(self.subscriptions.values))
        }
        if let id, !first {
            self.complete(id, .success(message))
            return
        }
        guard first else { return }
        self.setStatus(.connected)
        if let waiter {
            waiter(.success(()))
        } else {
            for subscription in subscriptions { self.rejoin(subscription, resume: true) }
        }
    }

    /// Joins a subscription's room again: after a reconnect or drift.
    private func rejoin(_ subscription: RoomSubscription, resume: Bool) {
        self.send(
            "join", subscription.joinFields(resume: resume), room: subscription.room, completesOnRoster: true
        ) { [weak self, weak subscription] result in
            guard case .failure(let error) = result, let subscription else { return }
            // A connection that dropped meanwhile rejoins again on the next welcome.
            if error.isConnectionFailure || error.isTimeout { return }
            self?.removeSubscription(subscription)
            subscription.end(error)
        }
    }

    /// Completes a request; false when no request had that id.
    @discardableResult
    private func complete(_ id: Int64, _ result: Result<JSONValue, RollcallError>) -> Bool {
        guard let request = self.lock.withLock({ self.pending.removeValue(forKey: id) }) else { return false }
        request.completion(result)
        return true
    }

    /// Completes the join or view request waiting for a room's roster.
    private func completeRoster(room: String) {
        let request: PendingRequest? = self.lock.withLock {
            guard
                let (id, _) = self.pending.first(where: {
                    $0.value.room == room && $0.value.completesOnRoster && $0.value.acknowledgement != nil
                })
            else { return nil }
            return self.pending.removeValue(forKey: id)
        }
        if let request { request.completion(.success(request.acknowledgement ?? .null)) }
    }

    private static func percentEncoded(_ text: String) -> String {
        var result = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."),
                UInt8(ascii: "~"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                result += "%" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
            }
        }
        return result
    }
}
