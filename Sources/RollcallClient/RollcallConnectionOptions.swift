// The Linux transport: EventIO's sockets and OpenSSL; Apple platforms supply a RollcallTransport of their own.
#if canImport(EventIO)

import EventIO
import WebSocketCore

/// Settings of one WebSocket client connection.
public struct RollcallConnectionOptions: Sendable {
    /// The TLS client context for `wss`; nil uses a context that verifies the server against the system's trusted
    /// certificates.
    public var tlsContext: TLSContext?
    /// The name the server certificate must match (and SNI); nil uses the endpoint's host.
    public var tlsServerName: String?
    /// Whether to offer permessage-deflate; compressed server messages are then inflated. Client messages are
    /// always sent uncompressed.
    public var offersCompression: Bool
    /// Receive limits (frame size, message size after inflation, fragments).
    public var limits: WebSocketInboundProcessor.Limits
    /// Extra request header fields, such as `Origin` or `Authorization`.
    public var extraHeaders: [(name: String, value: String)]
    /// The longest the TCP connect, the TLS handshake and the upgrade may take together, in seconds.
    public var connectTimeout: Double
    /// How long the connection may be silent before the client sends a ping, in seconds; 0 disables pings.
    public var pingInterval: Double
    /// How long to wait for the pong (or any other traffic) after a ping before the connection counts as lost.
    public var pongTimeout: Double
    /// How long to wait for the server's Close frame after sending one, and for the server to close the TCP
    /// connection after the close handshake, in seconds.
    public var closeTimeout: Double
    /// The longest a single blocked write may wait, in seconds, before the connection counts as lost.
    public var writeTimeout: Double
    /// The most bytes that may wait in the send queue; sends beyond it fail.
    public var maximumQueuedBytes: Int

    /// Creates connection settings.
    ///
    /// - Parameters:
    ///   - tlsContext: the TLS client context for `wss`; nil verifies against the system's trusted certificates.
    ///   - tlsServerName: the name the certificate must match; nil uses the endpoint's host.
    ///   - offersCompression: whether to offer permessage-deflate; default true.
    ///   - limits: receive limits; default 1 MiB messages.
    ///   - extraHeaders: extra request header fields.
    ///   - connectTimeout: seconds for connect, TLS and upgrade together; default 10.
    ///   - pingInterval: seconds of silence before a ping; default 15, 0 disables.
    ///   - pongTimeout: seconds to wait for traffic after a ping; default 10.
    ///   - closeTimeout: seconds to wait for the server's Close frame; default 2.
    ///   - writeTimeout: seconds a blocked write may wait; default 10.
    ///   - maximumQueuedBytes: the send queue bound; default 4 MiB.
    public init(
        tlsContext: TLSContext? = nil,
        tlsServerName: String? = nil,
        offersCompression: Bool = true,
        limits: WebSocketInboundProcessor.Limits = WebSocketInboundProcessor.Limits(),
        extraHeaders: [(name: String, value: String)] = [],
        connectTimeout: Double = 10,
        pingInterval: Double = 15,
        pongTimeout: Double = 10,
        closeTimeout: Double = 2,
        writeTimeout: Double = 10,
        maximumQueuedBytes: Int = 4 << 20
    ) {
        self.tlsContext = tlsContext
        self.tlsServerName = tlsServerName
        self.offersCompression = offersCompression
        self.limits = limits
        self.extraHeaders = extraHeaders
        self.connectTimeout = connectTimeout
        self.pingInterval = pingInterval
        self.pongTimeout = pongTimeout
        self.closeTimeout = closeTimeout
        self.writeTimeout = writeTimeout
        self.maximumQueuedBytes = maximumQueuedBytes
    }
}

#endif
