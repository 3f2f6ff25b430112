import Dispatch
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A `RollcallTransport` over `URLSessionWebSocketTask`: the default transport where `RollcallConnection` does not
/// exist (Apple platforms), and one an app may choose anywhere URLSession speaks WebSocket.
///
/// It reports `.opened` when the upgrade completed, every text message, and one end: `.closed` with the server's
/// close code (the gateway's own codes keep their number, so 4001–4005 end the client as they should) or `.failed`
/// when the connection could not be opened. It sends a ping every `pingInterval` seconds and drops a connection
/// whose pong does not come in time. Compression and TLS are URLSession's: `isCompressionNegotiated` is false,
/// since URLSession does not say.
///
/// On Linux, FoundationNetworking has the same API over libcurl, which (in the builds Debian's Swift toolchains
/// ship) has no WebSocket support: there a task fails at once with "WebSockets not supported by libcurl", which
/// this transport reports as `.failed`. Linux apps use `RollcallConnection`, the default there.
public final class RollcallURLSessionTransport: NSObject, RollcallTransport, @unchecked Sendable {
    /// Where it connects.
    public let request: RollcallTransportRequest
    /// Its settings.
    public let options: RollcallURLSessionOptions

    private let connectTimeout: Double
    private let queue = DispatchQueue(label: "rollcall-urlsession")
    private let lock = NSLock()
    private var handler: (@Sendable (RollcallTransportEvent) -> Void)?
    private var session: URLSession?
    private var task: URLSessionWebSocketTask?
    private var opened = false
    private var closeRequested = false
    private var pingTimer: (any DispatchSourceTimer)?
    private var pingSentAt: Double?

    /// Creates a transport for one connection attempt.
    ///
    /// - Parameters:
    ///   - request: the endpoint and header fields.
    ///   - options: pings, close timeout and message size.
    ///   - connectTimeout: seconds opening the connection may take; default 10.
    public init(
        request: RollcallTransportRequest, options: RollcallURLSessionOptions = RollcallURLSessionOptions(),
        connectTimeout: Double = 10
    ) {
        self.request = request
        self.options = options
        self.connectTimeout = connectTimeout
    }

    /// False: URLSession does not say whether it negotiated permessage-deflate.
    public var isCompressionNegotiated: Bool { false }

    /// Opens the WebSocket; events follow on URLSession's delegate queue, one at a time.
    ///
    /// - Parameters:
    ///   - handler: receives `.opened`, each `.text`, then `.closed` or `.failed`.
    public func start(_ handler: @escaping @Sendable (RollcallTransportEvent) -> Void) {
        guard let url = URL(string: self.request.url) else {
            handler(.failed(RollcallError.transport("not a URL: \(self.request.url)")))
            return
        }
        var urlRequest = URLRequest(url: url, timeoutInterval: self.connectTimeout)
        for field in self.request.headers { urlRequest.setValue(field.value, forHTTPHeaderField: field.name) }
        let delegateQueue = OperationQueue()
        delegateQueue.maxConcurrentOperationCount = 1
        delegateQueue.underlyingQueue = self.queue
        let session = URLSession(configuration: .ephemeral, delegate: self, delegateQueue: delegateQueue)
        let task = session.webSocketTask(with: urlRequest)
        task.maximumMessageSize = self.options.maximumMessageSize
        self.lock.withLock { (self.handler, self.session, self.task) = (handler, session, task) }
        task.resume()
    }

    /// Sends a text message.
    ///
    /// - Parameters:
    ///   - text: the message.
    /// - Throws: `RollcallError.notConnected` before the WebSocket opened or after it ended. A send that fails
    ///   later ends the connection through the receive loop.
    public func send(text: String) throws(RollcallError) {
        let task: URLSessionWebSocketTask? = self.lock.withLock { self.opened ? self.task : nil }
        guard let task else { throw RollcallError.notConnected }
        task.send(.string(text)) { _ in }
    }

    /// Sends a Close frame; `.closed` follows when the task ends, at the latest after `closeTimeout`.
    ///
    /// - Parameters:
    ///   - code: the close code.
    ///   - reason: a short reason.
    public func close(code: UInt16, reason: String) {
        let task: URLSessionWebSocketTask? = self.lock.withLock {
            self.closeRequested = true
            return self.task
        }
        guard let task else { return }
        task.cancel(with: Self.closeCode(for: code), reason: Data(reason.utf8))
        self.queue.asyncAfter(deadline: .now() + self.options.closeTimeout) { [weak self] in
            self?.end(.closed(RollcallCloseInfo(code: code, reason: reason, wasClean: false, initiatedLocally: true)))
        }
    }

    /// Drops the connection without a close handshake.
    public func abort() {
        let task: URLSessionWebSocketTask? = self.lock.withLock {
            self.closeRequested = true
            return self.task
        }
        task?.cancel()
        self.end(.closed(RollcallCloseInfo(code: nil, reason: "aborted", wasClean: false, initiatedLocally: true)))
    }

    // MARK: Receiving

    private func receive(_ task: URLSessionWebSocketTask) {
        task.receive { [weak self] result in
            guard let self else { return }
            switch result {
            case .success(let message):
                if let event = Self.event(for: message) { self.emit(event) }
                self.receive(task)
            case .failure(let error):
                self.ended(task, error: error)
            }
        }
    }

    /// The task ended with an error: with the close code it saw when a Close frame came, as a drop otherwise.
    private func ended(_ task: URLSessionWebSocketTask, error: (any Error)?) {
        let (opened, local) = self.lock.withLock { (self.opened, self.closeRequested) }
        let rawCode = task.closeCode.rawValue
        if opened || rawCode != 0 {
            self.end(.closed(Self.closeInfo(rawCode: rawCode, reason: task.closeReason, initiatedLocally: local)))
        } else {
            self.end(.failed(error.map(Self.failure) ?? RollcallError.transport("URLSession: the connection closed")))
        }
    }

    // MARK: Keep-alive

    private func startPinging() {
        guard self.options.pingInterval > 0 else { return }
        let timer = DispatchSource.makeTimerSource(queue: self.queue)
        let interval = self.options.pingInterval
        timer.schedule(deadline: .now() + interval, repeating: min(interval, max(0.05, self.options.pongTimeout / 2)))
        timer.setEventHandler { [weak self] in self?.pingTick() }
        self.lock.withLock { self.pingTimer = timer }
        timer.resume()
    }

    private func pingTick() {
        let now = MonotonicClock.now()
        let (task, due): (URLSessionWebSocketTask?, Bool) = self.lock.withLock {
            if let sentAt = self.pingSentAt {
                if now - sentAt > self.options.pongTimeout { return (self.task, false) }
                return (nil, false)
            }
            self.pingSentAt = now
            return (self.task, true)
        }
        guard let task else { return }
        guard due else {
            task.cancel()
            self.end(.closed(RollcallCloseInfo(code: nil, reason: "no pong", wasClean: false, initiatedLocally: true)))
            return
        }
        task.sendPing { [weak self] error in
            guard let self, error == nil else { return }
            self.lock.withLock { self.pingSentAt = nil }
        }
    }

    // MARK: Reporting

    private func emit(_ event: RollcallTransportEvent) {
        self.lock.withLock { self.handler }?(event)
    }

    /// Reports the end once, and lets go of the session (which holds its delegate until invalidated).
    private func end(_ event: RollcallTransportEvent) {
        let (handler, session, timer) = self.lock.withLock {
            defer {
                self.handler = nil
                self.session = nil
                self.pingTimer = nil
            }
            return (self.handler, self.session, self.pingTimer)
        }
        guard let handler else { return }
        timer?.cancel()
        session?.invalidateAndCancel()
        handler(event)
    }
}

extension RollcallURLSessionTransport: URLSessionWebSocketDelegate {
    /// The upgrade completed: report it, start reading and pinging.
    public func urlSession(
        _ session: URLSession, webSocketTask: URLSessionWebSocketTask, didOpenWithProtocol protocol: String?
    ) {
        let first: Bool = self.lock.withLock {
            defer { self.opened = true }
            return !self.opened && self.handler != nil
        }
        guard first else { return }
        self.emit(.opened)
        self.receive(webSocketTask)
        self.startPinging()
    }

    /// The server's Close frame arrived (or the client's was answered).
    public func urlSession(
        _ session: URLSession, webSocketTask: URLSessionWebSocketTask,
        didCloseWith closeCode: URLSessionWebSocketTask.CloseCode, reason: Data?
    ) {
        let local = self.lock.withLock { self.closeRequested }
        self.end(.closed(Self.closeInfo(rawCode: closeCode.rawValue, reason: reason, initiatedLocally: local)))
    }

    /// The task ended: a failed upgrade, a dropped connection, or the end after a close.
    public func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let webSocketTask = task as? URLSessionWebSocketTask else { return }
        self.ended(webSocketTask, error: error)
    }
}
