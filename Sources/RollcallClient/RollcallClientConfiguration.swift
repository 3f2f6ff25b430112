/// Everything a `Rollcall` needs: where to connect, the token, and how to behave.
public struct RollcallClientConfiguration: Sendable {
    /// The gateway URL.
    public var endpoint: RollcallEndpoint
    /// The JWT the application's backend issued.
    public var token: String
    /// How the token is presented.
    public var authentication: RollcallAuthentication
    /// The device id sent with every participant join (one user may join from several devices).
    public var device: String
    /// The WebSocket settings (TLS, compression, limits, timeouts, pings).
    public var connection: RollcallConnectionOptions
    /// Reconnecting after a drop.
    public var reconnect: RollcallReconnectPolicy
    /// How long a request waits for its answer, in seconds.
    public var requestTimeout: Double

    /// Creates a configuration.
    ///
    /// - Parameters:
    ///   - endpoint: the gateway URL.
    ///   - token: the JWT.
    ///   - authentication: how the token is presented; default the `token` query parameter.
    ///   - device: the device id; default `default`.
    ///   - connection: the WebSocket settings.
    ///   - reconnect: the reconnect policy.
    ///   - requestTimeout: seconds a request waits for its answer; default 10.
    public init(
        endpoint: RollcallEndpoint,
        token: String,
        authentication: RollcallAuthentication = .queryParameter,
        device: String = "default",
        connection: RollcallConnectionOptions = RollcallConnectionOptions(),
        reconnect: RollcallReconnectPolicy = RollcallReconnectPolicy(),
        requestTimeout: Double = 10
    ) {
        self.endpoint = endpoint
        self.token = token
        self.authentication = authentication
        self.device = device
        self.connection = connection
        self.reconnect = reconnect
        self.requestTimeout = requestTimeout
    }
}
