import EventIO
import HTTPClient

/// One endpoint's HTTP/1.1 client on the delivery loop: `HTTPOriginClient` with the delivery timeouts and answer
/// bounds of `WebhookConfiguration`, its connections counted in the endpoint's statistics, and its answers reduced
/// to their status (bodies are read past and discarded).
final class WebhookClient {
    private let client: HTTPOriginClient

    /// - Parameters:
    ///   - url: the receiver.
    ///   - loop: the delivery loop; every call happens on it.
    ///   - tlsContext: the client context for `https://`; nil for `http://`.
    ///   - resolver: finds the receiver's address.
    ///   - configuration: timeouts and answer bounds.
    ///   - statistics: where connections opened are counted.
    init(
        url: HTTPURL, loop: EventLoop, tlsContext: TLSContext?, resolver: HostResolver,
        configuration: WebhookConfiguration, statistics: WebhookStatistics
    ) {
        self.client = HTTPOriginClient(
            origin: url.origin, loop: loop,
            tlsContext: tlsContext, resolver: resolver,
            configuration: HTTPClientConfiguration(
                timeoutMilliseconds: configuration.timeoutMilliseconds,
                connectTimeoutMilliseconds: configuration.connectTimeoutMilliseconds,
                idleConnectionMilliseconds: configuration.idleConnectionMilliseconds,
                maximumResponseHeadBytes: configuration.maximumResponseHeadBytes,
                maximumResponseBodyBytes: configuration.maximumResponseBodyBytes))
        self.client.onConnectionOpened = { statistics.connectionsOpened.add(1, ordering: .relaxed) }
    }

    /// Sends one request and reports the answer's status (or the failure) on the loop, never inside the call. One
    /// request at a time.
    ///
    /// - Parameters:
    ///   - request: the request.
    ///   - completion: the status code, or why there is none.
    func post(_ request: HTTPClientRequest, completion: @escaping (Result<Int, WebhookDeliveryError>) -> Void) {
        self.client.send(request) { result in
            completion(result.map(\.status).mapError { WebhookDeliveryError($0.description) })
        }
    }

    /// Closes the connection and forgets the request in flight without reporting it.
    func close() {
        self.client.close()
    }
}

@available(*, unavailable) extension WebhookClient: Sendable {}
