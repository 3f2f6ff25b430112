import Foundation
import HTTPCore
import JSONCoding

/// The client's thread: the connection loop over the transport, what arrives from the gateway, the deadlines and
/// reconnects.
extension Rollcall {
    /// Connects, runs, and reconnects until closed or out of attempts.
    func runConnections() {
        var lastClose: RollcallCloseInfo?
        while true {
            var failure: RollcallError?
            var info: RollcallCloseInfo?
            do {
                let token = try self.token(reconnecting: self.lock.withLock { self.state.isReconnectAttempt })
                (info, failure) = self.runConnection(token: token)
            } catch {
                failure = error
            }
            lastClose = info
            let (ending, requests, subscriptions) = self.lock.withLock {
                let ending = self.state.connectionEnded(code: info?.code, policy: self.configuration.reconnect)
                let requests = Array(self.pending.values)
                self.pending = [:]
                return (ending, requests, Array(self.subscriptions.values))
            }
            let closedError = failure ?? RollcallError(.connectionClosed(code: info?.code, reason: info?.reason ?? ""))
            for request in requests { request.completion(.failure(closedError)) }
            if ending.wasOpen {
                for subscription in subscriptions { subscription.connectionLost() }
            }
            ending.connectWaiter?(.failure(ending.authenticationFailure ?? closedError))
            guard case .reconnect(let attempt, let delay) = ending.next else { break }
            self.statusBroadcaster.publish(.reconnecting(attempt: attempt))
            let wakeAt = Date().addingTimeInterval(delay)
            self.sleeper.lock()
            while !self.lock.withLock({ self.state.isEnding }) && Date() < wakeAt {
                _ = self.sleeper.wait(until: wakeAt)
            }
            self.sleeper.unlock()
            guard self.lock.withLock({ self.state.beginReconnect() }) else { break }
        }
        self.finish(lastClose)
    }

    /// Opens one connection with the token and runs it until it ends: how it closed, or why it failed.
    func runConnection(token: String) -> (RollcallCloseInfo?, RollcallError?) {
        var endpoint = self.configuration.endpoint
        var headers: [(name: String, value: String)] = []
        switch self.configuration.authentication {
        case .queryParameter:
            let parameter = "token=" + PercentEncoding.encode(token)
            endpoint.query = endpoint.query.map { "\($0)&\(parameter)" } ?? parameter
        case .header:
            headers.append((name: "Authorization", value: "Bearer \(token)"))
        case .message:
            break
        }
        let request = RollcallTransportRequest(endpoint: endpoint, headers: headers)
        guard let transport = self.configuration.makeTransport(request) else {
            return (nil, RollcallError(.transport("no transport: set RollcallClientConfiguration.transport")))
        }
        let inbox = TransportInbox()
        guard self.lock.withLock({ self.state.attach(transport, inbox: inbox) }) else {
            return (nil, RollcallError(.notConnected))
        }
        transport.start { inbox.push($0) }
        let openDeadline = MonotonicClock.now() + self.configuration.connectTimeout
        var opened = false
        while true {
            for event in inbox.take(timeout: 0.1) {
                switch event {
                case .opened:
                    opened = true
                    let deadline = MonotonicClock.now() + self.configuration.requestTimeout
                    self.lock.withLock { self.state.opened(welcomeBy: deadline) }
                    guard self.configuration.authentication == .message else { continue }
                    var auth = JSONObject()
                    auth["type"] = .string(RollcallClientMessageType.auth.rawValue)
                    auth["token"] = .string(token)
                    do {
                        try transport.send(text: JSONWriter.string(.object(auth)))
                    } catch {
                        transport.abort()
                    }
                case .text(let text):
                    self.received(text)
                case .closed(let info):
                    return (info, nil)
                case .failed(let error):
                    return (nil, error)
                }
            }
            self.tick()
            if !opened && self.lock.withLock({ self.state.isEnding }) {
                transport.abort()
                return (nil, RollcallError(.notConnected))
            }
            if !opened && MonotonicClock.now() > openDeadline {
                // The transport reports its end to an inbox nobody reads any more.
                transport.abort()
                return (nil, RollcallError(.timedOut("the connection to \(self.configuration.endpoint)")))
            }
        }
    }

    /// Ends the client once its thread is done: fails a `connect()` still waiting, ends every subscription, shows
    /// the client closed, finishes the streams, and resumes the `close()` calls waiting.
    func finish(_ info: RollcallCloseInfo?) {
        let error = RollcallError(.connectionClosed(code: info?.code, reason: info?.reason ?? ""))
        let (subscriptions, waiter) = self.lock.withLock {
            let all = Array(self.subscriptions.values)
            self.subscriptions = [:]
            return (all, self.state.takeConnectWaiter())
        }
        waiter?(.failure(error))
        for subscription in subscriptions { subscription.end(error) }
        self.lock.withLock { self.state.showClosed(info) }
        self.statusBroadcaster.publish(.closed(info))
        self.statusBroadcaster.finish()
        self.meetingBroadcaster.finish()
        self.errorBroadcaster.finish()
        let waiters = self.lock.withLock { self.state.finish(info) }
        for waiter in waiters { waiter() }
    }

    /// Closes a client that never connected: shows it closed and finishes the streams.
    func finishIdle() {
        self.statusBroadcaster.publish(.closed(nil))
        self.statusBroadcaster.finish()
        self.meetingBroadcaster.finish()
        self.errorBroadcaster.finish()
    }

    /// Times out requests and a missing welcome.
    func tick() {
        let now = MonotonicClock.now()
        let (expired, unwelcomed) = self.lock.withLock {
            var expired: [PendingRequest] = []
            for (id, request) in self.pending where request.deadline < now {
                expired.append(request)
                self.pending[id] = nil
            }
            return (expired, self.state.overdueWelcome(now: now))
        }
        for request in expired { request.completion(.failure(RollcallError(.timedOut(request.what)))) }
        self.refreshTokenIfDue()
        unwelcomed?.close(code: 1000, reason: "no welcome")
    }

    /// Handles one text message from the gateway.
    func received(_ text: String) {
        guard let message = try? JSONParser.parse(text),
            let type = message["type"]?.stringValue.flatMap(RollcallServerMessageType.init(rawValue:))
        else { return }
        let id = message["id"]?.intValue
        switch type {
        case .welcome:
            self.welcome(message, id: id)
        case .ack:
            guard let id else { return }
            let completeNow = self.lock.withLock { () -> Bool in
                guard var request = self.pending[id] else { return false }
                guard request.completesOnRoster else { return true }
                request.acknowledgement = message
                self.pending[id] = request
                return false
            }
            if completeNow { self.complete(id, .success(message)) }
        case .result, .pong:
            if let id { self.complete(id, .success(message)) }
        case .error:
            let error = RollcallError(
                .server(
                    code: message["code"]?.stringValue ?? "ERR_UNKNOWN", message: message["message"]?.stringValue ?? ""
                ))
            if let id, self.complete(id, .failure(error)) { return }
            self.lock.withLock { self.state.refused(error) }
            self.errorBroadcaster.publish(error)
        case .waiting:
            // The join waits in the room's waiting room: it stays open until the answer, however long the room
            // lets it wait, and the room hears of its position.
            guard let id, let room = message["room"]?.stringValue else { return }
            let subscription = self.lock.withLock { () -> RoomSubscription? in
                if var request = self.pending[id] {
                    request.deadline = .infinity
                    self.pending[id] = request
                }
                return self.subscriptions[room]
            }
            subscription?.waiting(position: Int(message["position"]?.intValue ?? 0))
        case .unsubscribed:
            // Taken out of the room (another connection holds the device now): forgotten first, so no reconnect
            // joins it again.
            guard let room = message["room"]?.stringValue,
                let subscription = self.lock.withLock({ self.subscriptions[room] })
            else { return }
            self.removeSubscription(subscription)
            subscription.unsubscribed(RollcallUnsubscribeReason(wireValue: message["reason"]?.stringValue ?? ""))
        case .signal:
            guard let signal = RollcallSignal(message: message),
                let subscription = self.lock.withLock({ self.subscriptions[signal.room] })
            else { return }
            subscription.signalled(signal)
        case .snapshot, .patch, .event, .resumed:
            guard let room = message["room"]?.stringValue else { return }
            guard let subscription = self.lock.withLock({ self.subscriptions[room] }) else {
                if type == .event, let event = RollcallEvent(message: message), event.knownName == .meetingMessage {
                    self.meetingBroadcaster.publish(event)
                }
                return
            }
            let rejoin = subscription.handle(message)
            if type == .snapshot || type == .resumed {
                self.completeRoster(room: room)
            }
            if let rejoin {
                self.rejoin(subscription, resume: rejoin.resume)
            }
        }
    }

    /// A `welcome`: opens the connection (resuming `connect()`, or rejoining every room after a reconnect), or
    /// answers a token refresh.
    func welcome(_ message: JSONValue, id: Int64?) {
        let identity = (
            uid: message["uid"]?.stringValue ?? "", name: message["name"]?.stringValue ?? "",
            expiresAt: message["expiresAt"]?.intValue ?? 0
        )
        let refreshAt = self.refreshTime(expiresAt: identity.expiresAt)
        let (welcome, subscriptions) = self.lock.withLock {
            self.identity = identity
            return (self.state.welcomed(refreshAt: refreshAt), Array(self.subscriptions.values))
        }
        guard let welcome, welcome.isFirst else {
            if let id { self.complete(id, .success(message)) }
            return
        }
        self.statusBroadcaster.publish(.connected)
        if let waiter = welcome.connectWaiter {
            waiter(.success(()))
        } else {
            for subscription in subscriptions { self.rejoin(subscription, resume: true) }
        }
    }

    /// Joins a subscription's room again: after a reconnect or drift.
    func rejoin(_ subscription: RoomSubscription, resume: Bool) {
        self.send(
            .join, subscription.joinFields(resume: resume), room: subscription.room, completesOnRoster: true
        ) { [weak self, weak subscription] result in
            guard let subscription else { return }
            if case .success(let acknowledgement) = result { subscription.joined(acknowledgement) }
            guard case .failure(let error) = result else { return }
            // A connection that dropped meanwhile rejoins again on the next welcome.
            if error.isConnectionFailure || error.isTimeout { return }
            self?.removeSubscription(subscription)
            subscription.end(error)
        }
    }

    /// Completes a request; false when no request had that id.
    @discardableResult
    func complete(_ id: Int64, _ result: Result<JSONValue, RollcallError>) -> Bool {
        guard let request = self.lock.withLock({ self.pending.removeValue(forKey: id) }) else { return false }
        request.completion(result)
        return true
    }

    /// Completes the join or view request waiting for a room's roster.
    func completeRoster(room: String) {
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
}
