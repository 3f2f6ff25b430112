import Gateway
import WebSocketServer

/// Everything `rollcall serve` is configured with: the transport, the rooms layer and token verification.
public struct RollcallConfiguration: Sendable {
    /// Listeners, TLS, loops, timeouts and transport limits.
    public var server = ServerConfiguration()
    /// Capacity, grace period, history and per-connection limits of rooms.
    public var rooms = GatewayConfiguration()
    /// Token verification.
    public var auth = AuthSettings()
    /// The WebSocket path of the rooms protocol.
    public var gatewayPath = "/v1/ws"
    /// Whether `/dashboard` serves the live dashboard page.
    public var dashboardEnabled = true
    /// Keys of the server API.
    public var api = APISettings()
    /// The log level.
    public var log = LogSettings()
    /// On SIGTERM or SIGINT, how long `/readyz` answers 503 while everything else keeps running, before the
    /// listeners close, in milliseconds.
    public var drainDelayMilliseconds: Int = 0

    public init() {}
}

/// How tokens are checked.
public struct AuthSettings: Sendable {
    /// HS256 keys as `kid:secret` (or a bare secret for tokens without `kid`). The first key signs `rollcall token`.
    public var keys: [String] = []
    /// Required `iss`, if set.
    public var issuer: String?
    /// Required `aud`, if set.
    public var audience: String?
    /// Clock leeway for `exp`, `nbf` and `iat`, in seconds.
    public var leewaySeconds: Int = 30

    public init() {}

    /// The key shipped in config/rollcall.conf for development; the server warns when it is in use.
    public static let developmentKey = "dev:rollcall-development-key-change-me"
}
