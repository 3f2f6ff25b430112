import EventIO
import HTTPCore

/// An HTTP/1.1 client of one origin (scheme, host and port) on an event loop: one request at a time on one
/// connection, kept open between requests (keep-alive) while the server allows it and closed after
/// `idleConnectionMilliseconds` unused. A request on a kept connection that the server had closed meanwhile (it
/// closes before any answer byte) is sent once more on a new connection. Every request is bounded by timers: the
/// connect (with the name's resolution and the TLS handshake) by the connect timeout, the whole exchange by the
/// request timeout.
///
/// The webhooks post their deliveries through it, and `rollcall ctl` calls the server API through it.
public final class HTTPOriginClient {
    /// The server.
    public let origin: HTTPOrigin
    /// Called on the loop each time a new connection is ready (connected, TLS done), for counting.
    public var onConnectionOpened: (() -> Void)?
    private let loop: EventLoop
    private let tlsContext: TLSContext?
    private let resolver: HostResolver
    private let configuration: HTTPClientConfiguration
    private var connection: HTTPConnection?
    private var idleTimer: TimerID?
    private var exchange: Exchange?
    private var nextExchangeID = 0

    /// The request in flight.
    private struct Exchange {
        var id: Int
        var request: [UInt8]
        var answerHasNoBody: Bool
        var completion: (Result<HTTPClientResponse, HTTPClientError>) -> Void
        var deadline: TimerID
        var connectTimer: TimerID?
        /// Sent on a connection kept from an earlier request.
        var reused = false
        /// Already sent again on a fresh connection after a kept one failed.
        var retriedFresh = false
    }

    /// - Parameters:
    ///   - origin: the server.
    ///   - loop: the loop; every call happens on it, and every completion runs there.
    ///   - tlsContext: the client context for `https://` (it decides how the certificate is checked); nil for
    ///     `http://`.
    ///   - resolver: finds the server's address.
    ///   - configuration: timeouts and the answer's bounds.
    public init(
        origin: HTTPOrigin, loop: EventLoop, tlsContext: TLSContext?, resolver: HostResolver,
        configuration: HTTPClientConfiguration
    ) {
        self.origin = origin
        self.loop = loop
        self.tlsContext = origin.isSecure ? tlsContext : nil
        self.resolver = resolver
        self.configuration = configuration
    }

    /// Sends one request and reports the answer (or the failure) on the loop, never inside the call. One request at
    /// a time.
    ///
    /// - Parameters:
    ///   - request: the request; a part that would break the message (a line break in a field value) fails it
    ///     unsent.
    ///   - completion: the answer, or why there is none.
    public func send(
        _ request: HTTPClientRequest, completion: @escaping (Result<HTTPClientResponse, HTTPClientError>) -> Void
    ) {
        precondition(self.exchange == nil, "one HTTP request at a time")
        let bytes: [UInt8]
        switch request.encoded(for: self.origin) {
        case .success(let encoded):
            bytes = encoded
        case .failure(let error):
            self.loop.execute { completion(.failure(error)) }
            return
        }
        let answerHasNoBody = request.answerHasNoBody
        self.nextExchangeID += 1
        let id = self.nextExchangeID
        let timeout = UInt64(max(1, self.configuration.timeoutMilliseconds)) * 1_000_000
        let deadline = self.loop.scheduleTimer(afterNanoseconds: timeout) { [weak self] in
            guard let self, self.exchange?.id == id else { return }
            self.dropConnection()
            self.finish(
                .failure(
                    HTTPClientError(
                        "\(self.origin.authority) did not answer within \(self.configuration.timeoutMilliseconds) ms")))
        }
        self.exchange = Exchange(
            id: id, request: bytes, answerHasNoBody: answerHasNoBody, completion: completion, deadline: deadline)
        if let connection = self.connection, connection.isIdle {
            self.cancelIdleTimer()
            self.exchange?.reused = true
            // Reported from the loop, never inside the call, whatever the connection does at once.
            self.loop.execute { [weak self] in
                guard let self, self.exchange?.id == id, self.connection === connection, connection.isIdle else {
                    if let self, self.exchange?.id == id { self.connectAndSend() }
                    return
                }
                connection.send(bytes, answerHasNoBody: answerHasNoBody)
            }
        } else {
            self.dropConnection()
            self.connectAndSend()
        }
    }

    /// Closes the connection and forgets the request in flight without reporting it.
    public func close() {
        if let exchange = self.exchange {
            self.loop.cancelTimer(exchange.deadline)
            if let timer = exchange.connectTimer { self.loop.cancelTimer(timer) }
        }
        self.exchange = nil
        self.dropConnection()
    }

    private func connectAndSend() {
        guard let id = self.exchange?.id else { return }
        let connectTimeout = UInt64(max(1, self.configuration.connectTimeoutMilliseconds)) * 1_000_000
        self.exchange?.connectTimer = self.loop.scheduleTimer(afterNanoseconds: connectTimeout) { [weak self] in
            guard let self, self.exchange?.id == id, self.connection?.isIdle != true else { return }
            self.dropConnection()
            self.finish(
                .failure(
                    HTTPClientError(
                        "cannot connect to \(self.origin.authority) within "
                            + "\(self.configuration.connectTimeoutMilliseconds) ms")))
        }
        self.resolver.resolve(self.origin.host, port: self.origin.port) { [weak self] result in
            guard let self, self.exchange?.id == id else { return }
            switch result {
            case .failure(let error):
                self.finish(.failure(error))
            case .success(let address):
                self.open(to: address, exchange: id)
            }
        }
    }

    private func open(to address: SocketAddress, exchange id: Int) {
        let connection: HTTPConnection
        do {
            connection = try HTTPConnection(
                loop: self.loop, tlsContext: self.tlsContext, serverName: self.origin.host,
                authority: self.origin.authority, configuration: self.configuration)
            try connection.start(to: address)
        } catch {
            self.finish(.failure(HTTPClientError("cannot connect to \(self.origin.authority): \(error)")))
            return
        }
        self.connection = connection
        connection.onOpen = { [weak self, unowned connection] in
            guard let self, self.connection === connection else { return }
            self.onConnectionOpened?()
            guard let exchange = self.exchange, exchange.id == id else {
                self.keepIdle(connection)
                return
            }
            if let timer = exchange.connectTimer { self.loop.cancelTimer(timer) }
            self.exchange?.connectTimer = nil
            connection.send(exchange.request, answerHasNoBody: exchange.answerHasNoBody)
        }
        connection.onAnswer = { [weak self, unowned connection] answer, status, keepAlive in
            guard let self, self.connection === connection else { return }
            if keepAlive {
                self.keepIdle(connection)
            } else {
                self.dropConnection()
            }
            self.finish(.success(HTTPClientResponse(status: status, head: answer.head, body: answer.body)))
        }
        connection.onClose = { [weak self, unowned connection] reason, answerStarted in
            guard let self, self.connection === connection else { return }
            self.connection = nil
            self.cancelIdleTimer()
            guard let exchange = self.exchange else { return }
            if exchange.reused, !exchange.retriedFresh, !answerStarted {
                // The server had closed the kept connection: once more on a new one.
                self.exchange?.retriedFresh = true
                self.exchange?.reused = false
                self.connectAndSend()
                return
            }
            self.finish(.failure(HTTPClientError(reason)))
        }
    }

    /// Keeps an open connection for the next request, closing it after the idle time.
    private func keepIdle(_ connection: HTTPConnection) {
        self.cancelIdleTimer()
        let idle = UInt64(max(1, self.configuration.idleConnectionMilliseconds)) * 1_000_000
        self.idleTimer = self.loop.scheduleTimer(afterNanoseconds: idle) { [weak self] in
            guard let self, self.connection === connection, connection.isIdle, self.exchange == nil else { return }
            self.idleTimer = nil
            self.dropConnection()
        }
    }

    private func cancelIdleTimer() {
        if let timer = self.idleTimer { self.loop.cancelTimer(timer) }
        self.idleTimer = nil
    }

    private func dropConnection() {
        self.cancelIdleTimer()
        self.connection?.close()
        self.connection = nil
    }

    private func finish(_ result: Result<HTTPClientResponse, HTTPClientError>) {
        guard let exchange = self.exchange else { return }
        self.exchange = nil
        self.loop.cancelTimer(exchange.deadline)
        if let timer = exchange.connectTimer { self.loop.cancelTimer(timer) }
        exchange.completion(result)
    }
}

@available(*, unavailable) extension HTTPOriginClient: Sendable {}
