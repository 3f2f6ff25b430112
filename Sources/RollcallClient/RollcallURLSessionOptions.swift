/// The settings of `RollcallURLSessionTransport`, the transport over `URLSessionWebSocketTask`.
///
/// URLSession sends no WebSocket pings by itself, so the transport sends one after `pingInterval` seconds and takes
/// the connection for lost when its pong does not come within `pongTimeout`; that keeps a quiet connection open
/// through proxies and notices a dead network well before TCP would.
public struct RollcallURLSessionOptions: Hashable, Sendable {
    /// Seconds between keep-alive pings; 0 sends none.
    public var pingInterval: Double
    /// Seconds a ping's pong may take before the connection counts as lost.
    public var pongTimeout: Double
    /// Seconds the close handshake may take after `close(code:reason:)` before the transport reports the close
    /// without it.
    public var closeTimeout: Double
    /// The largest message the transport accepts, in bytes (URLSession's own default is 1 MiB too).
    public var maximumMessageSize: Int

    /// Creates the settings.
    ///
    /// - Parameters:
    ///   - pingInterval: seconds between keep-alive pings; default 25, 0 for none.
    ///   - pongTimeout: seconds a pong may take; default 10.
    ///   - closeTimeout: seconds the close handshake may take; default 5.
    ///   - maximumMessageSize: the largest message accepted, in bytes; default 1 MiB, the gateway's default
    ///     `limits.max_message_bytes`.
    public init(
        pingInterval: Double = 25,
        pongTimeout: Double = 10,
        closeTimeout: Double = 5,
        maximumMessageSize: Int = 1 << 20
    ) {
        self.pingInterval = pingInterval
        self.pongTimeout = pongTimeout
        self.closeTimeout = closeTimeout
        self.maximumMessageSize = maximumMessageSize
    }
}
