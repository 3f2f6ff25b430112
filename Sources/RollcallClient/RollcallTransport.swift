/// A WebSocket connection the client speaks the protocol over: one per connection attempt, made by the
/// configuration's transport factory.
///
/// The client needs little from it: open the WebSocket the request describes, hand over every text message, send
/// text, close with a code, and say how it ended. Keep-alive pings, compression and TLS are the transport's own
/// business. On Linux the default is `RollcallConnection` (EventIO's sockets and OpenSSL, zlib, and the WebSocket rules
/// of `WebSocketCore`); an app on Apple platforms supplies one over `URLSessionWebSocketTask` or Network.framework
/// (docs/CLIENT.md sketches one).
///
/// Threading: every method may be called from any thread. Events may be delivered on any thread, but one at a time
/// and in order.
public protocol RollcallTransport: AnyObject, Sendable {
    /// Starts connecting. Events go to `handler` in order: `.opened` once the WebSocket upgrade completed, `.text`
    /// for each text message, and last exactly one `.closed` (after `.opened`) or `.failed` (at any time).
    ///
    /// - Parameters:
    ///   - handler: receives the events; it returns quickly (the client queues them for its own thread).
    func start(_ handler: @escaping @Sendable (RollcallTransportEvent) -> Void)

    /// Sends a text message.
    ///
    /// - Parameters:
    ///   - text: the message.
    /// - Throws: `RollcallError` when the connection is not open or cannot take more.
    func send(text: String) throws(RollcallError)

    /// Starts the close handshake; `.closed` follows once it completes (or its timeout passes).
    ///
    /// - Parameters:
    ///   - code: the close code.
    ///   - reason: a short reason.
    func close(code: UInt16, reason: String)

    /// Drops the connection at once, without a close handshake, as a network failure would; `.closed` or `.failed`
    /// follows.
    func abort()

    /// Whether the server agreed to compress its messages (permessage-deflate); false when unknown.
    var isCompressionNegotiated: Bool { get }
}

/// What a transport reports to the client.
public enum RollcallTransportEvent: Sendable {
    /// The WebSocket is open.
    case opened
    /// A text message arrived.
    case text(String)
    /// The connection ended after it was open; the last event.
    case closed(RollcallCloseInfo)
    /// The connection could not be opened, or failed; the last event.
    case failed(RollcallError)
}

/// What a transport connects to: the endpoint (with the `token` query parameter when the client authenticates by
/// it) and extra request header fields (`Authorization` when it authenticates by header).
public struct RollcallTransportRequest: Sendable {
    /// The WebSocket endpoint, query included.
    public var endpoint: RollcallEndpoint
    /// Header fields to add to the upgrade request.
    public var headers: [(name: String, value: String)]

    /// Creates a request.
    ///
    /// - Parameters:
    ///   - endpoint: the endpoint, query included.
    ///   - headers: extra header fields.
    public init(endpoint: RollcallEndpoint, headers: [(name: String, value: String)] = []) {
        self.endpoint = endpoint
        self.headers = headers
    }

    /// The endpoint as a URL string, `ws://HOST:PORT/PATH?QUERY` or `wss://…`.
    public var url: String { self.endpoint.description }
}

/// Makes the transport for one connection attempt.
public typealias RollcallTransportFactory = @Sendable (RollcallTransportRequest) -> any RollcallTransport

/// Returns a fresh token, such as one the app's backend issues for the signed-in user. The client calls it for
/// every reconnect (so a connection lost for longer than a token lives still comes back) and shortly before the
/// current token expires. A thrown error fails that connection attempt.
public typealias RollcallTokenProvider = @Sendable () async throws -> String
