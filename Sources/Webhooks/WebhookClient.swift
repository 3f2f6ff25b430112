import EventIO

/// One endpoint's HTTP/1.1 client on the delivery loop: one connection at a time, kept open between deliveries
/// (keep-alive) while the receiver allows it and closed after `idleMilliseconds` unused; a delivery on a kept
/// connection that the receiver had closed meanwhile (it closes before any answer byte) is sent once more on a
/// new connection. Every request is bounded by timers: the connect by the connect timeout, the whole exchange by
/// the delivery timeout.
final class WebhookClient {
    private let url: WebhookURL
    private let loop: EventLoop
    private let tlsContext: TLSContext?
    private let resolver: WebhookResolver
    private let configuration: WebhookConfiguration
    private let statistics: WebhookStatistics
    private var connection: WebhookConnection?
    private var idleTimer: TimerID?
    private var exchange: Exchange?
    private var nextExchangeID = 0

    /// The request in flight.
    private struct Exchange {
        var id: Int
        var request: [UInt8]
        var completion: (Result<Int, WebhookDeliveryError>) -> Void
        var deadline: TimerID
        var connectTimer: TimerID?
        /// Sent on a connection kept from an earlier delivery.
        var reused = false
        /// Already sent again on a fresh connection after a kept one failed.
        var retriedFresh = false
    }

    /// - Parameters:
    ///   - url: the receiver.
    ///   - loop: the delivery loop; every call happens on it.
    ///   - tlsContext: the client context for `https://`; nil for `http://`.
    ///   - resolver: finds the receiver's address.
    ///   - configuration: timeouts and answer bounds.
    ///   - statistics: where connections opened are counted.
    init(
        url: WebhookURL, loop: EventLoop, tlsContext: TLSContext?, resolver: WebhookResolver,
        configuration: WebhookConfiguration, statistics: WebhookStatistics
    ) {
        self.url = url
        self.loop = loop
        self.tlsContext = tlsContext
        self.resolver = resolver
        self.configuration = configuration
        self.statistics = statistics
    }

    /// Sends one request and reports the answer's status (or the failure) on the loop, never inside the call. One
    /// request at a time.
    ///
    /// - Parameters:
    ///   - request: the whole request, head and body.
    ///   - completion: the status code, or why there is none.
    func post(_ request: [UInt8], completion: @escaping (Result<Int, WebhookDeliveryError>) -> Void) {
        precondition(self.exchange == nil, "one webhook request at a time")
        self.nextExchangeID += 1
        let id = self.nextExchangeID
        let timeout = UInt64(max(1, self.configuration.timeoutMilliseconds)) * 1_000_000
        let deadline = self.loop.scheduleTimer(afterNanoseconds: timeout) { [weak self] in
            guard let self, self.exchange?.id == id else { return }
            self.dropConnection()
            self.finish(
                .failure(
                    WebhookDeliveryError(
                        "\(self.url.authority) did not answer within \(self.configuration.timeoutMilliseconds) ms")))
        }
        self.exchange = Exchange(id: id, request: request, completion: completion, deadline: deadline)
        if let connection = self.connection, connection.isIdle {
            self.cancelIdleTimer()
            self.exchange?.reused = true
            // Reported from the loop, never inside the call, whatever the connection does at once.
            self.loop.execute { [weak self] in
                guard let self, self.exchange?.id == id, self.connection === connection, connection.isIdle else {
                    if let self, self.exchange?.id == id { self.connectAndSend() }
                    return
                }
                connection.send(request)
            }
        } else {
            self.dropConnection()
            self.connectAndSend()
        }
    }

    /// Closes the connection and forgets the request in flight without reporting it.
    func close() {
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
                    WebhookDeliveryError(
                        "cannot connect to \(self.url.authority) within "
                            + "\(self.configuration.connectTimeoutMilliseconds) ms")))
        }
        self.resolver.resolve(self.url.host, port: self.url.port) { [weak self] result in
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
        let connection: WebhookConnection
        do {
            connection = try WebhookConnection(
                loop: self.loop, tlsContext: self.tlsContext, serverName: self.url.host, authority: self.url.authority,
                maximumHeadBytes: self.configuration.maximumResponseHeadBytes,
                maximumBodyBytes: self.configuration.maximumResponseBodyBytes)
            try connection.start(to: address)
        } catch {
            self.finish(.failure(WebhookDeliveryError("cannot connect to \(self.url.authority): \(error)")))
            return
        }
        self.connection = connection
        connection.onOpen = { [weak self, unowned connection] in
            guard let self, self.connection === connection else { return }
            self.statistics.connectionsOpened.add(1, ordering: .relaxed)
            guard let exchange = self.exchange, exchange.id == id else {
                self.keepIdle(connection)
                return
            }
            if let timer = exchange.connectTimer { self.loop.cancelTimer(timer) }
            self.exchange?.connectTimer = nil
            connection.send(exchange.request)
        }
        connection.onAnswer = { [weak self, unowned connection] status, keepAlive in
            guard let self, self.connection === connection else { return }
            if keepAlive {
                self.keepIdle(connection)
            } else {
                self.dropConnection()
            }
            self.finish(.success(status))
        }
        connection.onClose = { [weak self, unowned connection] reason, answerStarted in
            guard let self, self.connection === connection else { return }
            self.connection = nil
            self.cancelIdleTimer()
            guard let exchange = self.exchange else { return }
            if exchange.reused, !exchange.retriedFresh, !answerStarted {
                // The receiver had closed the kept connection: once more on a new one.
                self.exchange?.retriedFresh = true
                self.exchange?.reused = false
                self.connectAndSend()
                return
            }
            self.finish(.failure(WebhookDeliveryError(reason)))
        }
    }

    /// Keeps an open connection for the next delivery, closing it after the idle time.
    private func keepIdle(_ connection: WebhookConnection) {
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

    private func finish(_ result: Result<Int, WebhookDeliveryError>) {
        guard let exchange = self.exchange else { return }
        self.exchange = nil
        self.loop.cancelTimer(exchange.deadline)
        if let timer = exchange.connectTimer { self.loop.cancelTimer(timer) }
        exchange.completion(result)
    }
}

@available(*, unavailable) extension WebhookClient: Sendable {}
