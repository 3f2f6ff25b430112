/// Everything a `Rollcall` needs: where to connect, the token, the transport, and how to behave.
public struct RollcallClientConfiguration: Sendable {
    /// The gateway URL.
    public var endpoint: RollcallEndpoint
    /// The JWT the application's backend issued; may be empty when `tokenProvider` is set (it is asked then).
    public var token: String
    /// Returns fresh tokens: asked for every reconnect and `tokenRefreshMargin` seconds before the token expires.
    public var tokenProvider: RollcallTokenProvider?
    /// How long before the token expires the provider's new token is sent, in seconds.
    public var tokenRefreshMargin: Double
    /// How the token is presented.
    public var authentication: RollcallAuthentication
    /// The device id sent with every participant join (one user may join from several devices).
    public var device: String
    /// Makes the WebSocket transport of each connection attempt; nil uses the platform's: on Linux a
    /// `RollcallConnection` with `connection`'s settings, elsewhere a `RollcallURLSessionTransport` with
    /// `urlSession`'s.
    public var transport: RollcallTransportFactory?
    /// The longest opening a connection may take (TCP, TLS and the upgrade), in seconds.
    public var connectTimeout: Double
    /// Reconnecting after a drop.
    public var reconnect: RollcallReconnectPolicy
    /// How long a request waits for its answer, in seconds.
    public var requestTimeout: Double

    #if canImport(EventIO)
    /// The settings of the Linux transport (TLS, compression, limits, timeouts, pings).
    public var connection: RollcallConnectionOptions = RollcallConnectionOptions()
    #endif
    /// The settings of the URLSession transport, the default where the Linux transport does not exist (pings, the
    /// close timeout, the largest message).
    public var urlSession: RollcallURLSessionOptions = RollcallURLSessionOptions()

    /// Creates a configuration.
    ///
    /// - Parameters:
    ///   - endpoint: the gateway URL.
    ///   - token: the JWT; empty to ask `tokenProvider` for the first one too.
    ///   - tokenProvider: returns fresh tokens for reconnects and before expiry; nil keeps `token`.
    ///   - authentication: how the token is presented; default the `token` query parameter.
    ///   - device: the device id; default `default`.
    ///   - transport: makes each connection's transport; nil uses the platform's.
    ///   - reconnect: the reconnect policy.
    ///   - requestTimeout: seconds a request waits for its answer; default 10.
    ///   - connectTimeout: seconds opening a connection may take; default 10.
    ///   - tokenRefreshMargin: seconds before expiry to refresh the token with the provider's; default 60.
    public init(
        endpoint: RollcallEndpoint,
        token: String,
        tokenProvider: RollcallTokenProvider? = nil,
        authentication: RollcallAuthentication = .queryParameter,
        device: String = "default",
        transport: RollcallTransportFactory? = nil,
        reconnect: RollcallReconnectPolicy = RollcallReconnectPolicy(),
        requestTimeout: Double = 10,
        connectTimeout: Double = 10,
        tokenRefreshMargin: Double = 60
    ) {
        self.endpoint = endpoint
        self.token = token
        self.tokenProvider = tokenProvider
        self.authentication = authentication
        self.device = device
        self.transport = transport
        self.reconnect = reconnect
        self.requestTimeout = requestTimeout
        self.connectTimeout = connectTimeout
        self.tokenRefreshMargin = tokenRefreshMargin
    }

    #if canImport(EventIO)
    /// Creates a configuration for the Linux transport with its settings.
    ///
    /// - Parameters:
    ///   - endpoint: the gateway URL.
    ///   - token: the JWT; empty to ask `tokenProvider` for the first one too.
    ///   - tokenProvider: returns fresh tokens for reconnects and before expiry; nil keeps `token`.
    ///   - authentication: how the token is presented; default the `token` query parameter.
    ///   - device: the device id; default `default`.
    ///   - connection: the WebSocket settings of `RollcallConnection`.
    ///   - reconnect: the reconnect policy.
    ///   - requestTimeout: seconds a request waits for its answer; default 10.
    ///   - tokenRefreshMargin: seconds before expiry to refresh the token with the provider's; default 60.
    public init(
        endpoint: RollcallEndpoint,
        token: String,
        tokenProvider: RollcallTokenProvider? = nil,
        authentication: RollcallAuthentication = .queryParameter,
        device: String = "default",
        connection: RollcallConnectionOptions,
        reconnect: RollcallReconnectPolicy = RollcallReconnectPolicy(),
        requestTimeout: Double = 10,
        tokenRefreshMargin: Double = 60
    ) {
        self.init(
            endpoint: endpoint, token: token, tokenProvider: tokenProvider, authentication: authentication,
            device: device, reconnect: reconnect, requestTimeout: requestTimeout,
            connectTimeout: connection.connectTimeout, tokenRefreshMargin: tokenRefreshMargin
        )
        self.connection = connection
    }
    #endif

    /// The transport for one connection attempt: the configured factory's, or the platform's.
    func makeTransport(_ request: RollcallTransportRequest) -> (any RollcallTransport)? {
        if let factory = self.transport { return factory(request) }
        #if canImport(EventIO)
        return self.socketTransport(request)
        #else
        return RollcallURLSessionTransport(
            request: request, options: self.urlSession, connectTimeout: self.connectTimeout)
        #endif
    }
}
