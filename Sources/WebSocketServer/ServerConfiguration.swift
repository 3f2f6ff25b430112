import EventIO
import HTTPCore
import WebSocketCore
import WebSocketDeflate

/// Everything that shapes the transport: listeners, TLS, loops, timeouts and limits. The defaults are safe for a
/// public server; `rollcall serve` fills this from `config/rollcall.conf`, the environment and flags.
public struct ServerConfiguration: Sendable {
    /// Plain `ws://` listeners.
    public var listen: [SocketAddress] = [SocketAddress(parsing: "127.0.0.1:8080")!]
    /// `wss://` listeners (need a certificate and key).
    public var tlsListen: [SocketAddress] = []
    /// PEM certificate chain for `wss://`.
    public var tlsCertificatePath: String?
    /// PEM private key for `wss://`.
    public var tlsPrivateKeyPath: String?
    /// Event loops (threads); 0 means one per core.
    public var eventLoopCount: Int = 0

    /// Open connections the whole server accepts; more are closed at once.
    public var maximumConnections: Int = 100_000
    /// Open connections one client address (IP, without the port) may hold; more are closed at once.
    public var maximumConnectionsPerAddress: Int = 1_000
    /// Connections still in their TLS or HTTP handshake, over the whole server; a connection accepted beyond it is
    /// closed at once (the newest goes, the handshakes already running keep their chance).
    public var maximumPendingHandshakes: Int = 10_000
    /// Time a client has to complete the TLS and HTTP handshakes, in milliseconds.
    public var handshakeTimeoutMilliseconds: Int = 10_000
    /// A ping is sent after this long without any frame from the client, in milliseconds (0 turns pings off).
    public var pingIntervalMilliseconds: Int = 30_000
    /// The client must send something within this long after a ping, or it is taken for gone, in milliseconds.
    public var pongTimeoutMilliseconds: Int = 20_000
    /// Connections that send no message for this long are closed with 1001, in milliseconds (0 turns it off).
    public var idleTimeoutMilliseconds: Int = 0
    /// Time allowed for the peer to answer our Close frame before the socket is closed, in milliseconds.
    public var closeTimeoutMilliseconds: Int = 5_000
    /// On SIGTERM or SIGINT, time allowed for clients to finish the close handshake, in milliseconds.
    public var shutdownGracePeriodMilliseconds: Int = 10_000

    /// Limits on request heads.
    public var httpLimits = HTTPRequestParser.Limits()
    /// Largest body of a plain HTTP request (`Content-Length`), in bytes; larger requests get 413.
    public var maximumHTTPBodySize: Int = 64 * 1024
    /// Limits on received frames and messages.
    public var messageLimits = WebSocketInboundProcessor.Limits()
    /// Write queue size above which a connection reports itself not writable, in bytes.
    public var writeQueueHighWatermark: Int = 256 * 1024
    /// Write queue size below which it is writable again, in bytes.
    public var writeQueueLowWatermark: Int = 64 * 1024
    /// Write queue size at which a connection that does not read is closed, in bytes.
    public var writeQueueLimit: Int = 4 * 1024 * 1024
    /// Messages (and control frames) a connection may send per second on average, as a token bucket; a connection
    /// over it is closed with 1008 ("rate limit"). 0 turns the limit off.
    public var maximumMessagesPerSecond: Int = 100
    /// The bucket's size: how many messages may come at once after a quiet spell.
    public var messageBurst: Int = 200

    /// Origins allowed to upgrade (exact match of the `Origin` header); empty allows any. Requests without an
    /// `Origin` header (non-browser clients) are always allowed.
    public var allowedOrigins: [String] = []
    /// Subprotocols the server speaks, in the server's order; the first one the client also offers is chosen.
    public var subprotocols: [String] = []
    /// permessage-deflate settings.
    public var compression = PerMessageDeflateConfiguration()

    /// Whether `/echo` echoes messages (for conformance and load testing).
    public var echoEnabled: Bool = false
    /// The echo endpoint's path.
    public var echoPath: String = "/echo"

    public init() {}

    /// The number of loops to run: `eventLoopCount`, or the number of online cores.
    public var effectiveEventLoopCount: Int {
        self.eventLoopCount > 0 ? self.eventLoopCount : max(1, System.coreCount)
    }
}
