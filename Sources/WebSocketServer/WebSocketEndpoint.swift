import HTTPCore
import WebSocketCore

/// The application side of a WebSocket route: what runs when clients connect to its path.
///
/// One endpoint instance is made per event loop (see `WebSocketRoute`), and every call happens on that loop's
/// thread, so an endpoint needs no locks for state that stays on its loop.
public protocol WebSocketEndpoint: AnyObject {
    /// A client completed the handshake.
    ///
    /// - Parameter connection: the new connection; keep it to send later.
    func connectionDidOpen(_ connection: WebSocketConnection)

    /// A whole message arrived.
    ///
    /// - Parameters:
    ///   - connection: who sent it.
    ///   - message: the message; its bytes are valid only during the call.
    func connection(_ connection: WebSocketConnection, didReceive message: WebSocketMessage)

    /// The connection ended (after a close handshake, a failure or a dropped socket). It takes no more sends.
    ///
    /// - Parameters:
    ///   - connection: the connection.
    ///   - reason: how it ended.
    func connectionDidClose(_ connection: WebSocketConnection, reason: WebSocketCloseReason)

    /// The connection's write queue crossed its high (false) or low (true) watermark.
    func connection(_ connection: WebSocketConnection, writabilityDidChange isWritable: Bool)
}

extension WebSocketEndpoint {
    public func connectionDidOpen(_ connection: WebSocketConnection) {}
    public func connectionDidClose(_ connection: WebSocketConnection, reason: WebSocketCloseReason) {}
    public func connection(_ connection: WebSocketConnection, writabilityDidChange isWritable: Bool) {}
}

/// A received message, borrowed from the connection's buffers for the duration of a callback.
public enum WebSocketMessage {
    /// A text message, already validated as UTF-8.
    case text(UnsafeRawBufferPointer)
    /// A binary message.
    case binary(UnsafeRawBufferPointer)
}

/// How a connection ended.
public struct WebSocketCloseReason: Sendable, CustomStringConvertible {
    /// The close code: the peer's, ours, or 1006 when the socket dropped without a close handshake.
    public var code: WebSocketCloseCode
    /// Who started the close: true when the server did.
    public var initiatedByServer: Bool
    /// A short explanation.
    public var detail: String

    public var description: String {
        "\(self.code.rawValue) (\(self.initiatedByServer ? "server" : "client")): \(self.detail)"
    }
}

/// A path served over WebSocket, with a factory that makes one endpoint per event loop.
public struct WebSocketRoute {
    /// The exact request path, e.g. `/echo`.
    public var path: String
    /// Makes the endpoint for one loop.
    public var makeEndpoint: (_ loopIndex: Int) -> any WebSocketEndpoint

    /// - Parameters:
    ///   - path: the exact request path.
    ///   - makeEndpoint: called once per event loop at start.
    public init(path: String, makeEndpoint: @escaping (_ loopIndex: Int) -> any WebSocketEndpoint) {
        self.path = path
        self.makeEndpoint = makeEndpoint
    }
}

/// A plain HTTP route on the same port (health checks, metrics, APIs).
///
/// The handler runs on the connection's event loop once the whole request (head and `Content-Length` body) has
/// arrived; it may answer at once or later, from any thread, through the `HTTPResponder`.
public struct HTTPRoute {
    /// The exact request path, or the path prefix when `matchesSubpaths` is set.
    public var path: String
    /// The methods it answers (and `HEAD` with `GET`); others get 405.
    public var methods: [String]
    /// Whether the route also serves every path below `path` (`/v1/api` serves `/v1/api/rooms`).
    public var matchesSubpaths: Bool
    /// Handles a complete request. Runs on the connection's loop; must not block it.
    public var handle: (HTTPRequest, HTTPResponder) -> Void

    /// An asynchronous route.
    ///
    /// - Parameters:
    ///   - path: the exact request path, or a prefix with `matchesSubpaths`.
    ///   - methods: the methods it answers.
    ///   - matchesSubpaths: whether paths below `path` go to this route too.
    ///   - handle: called with the request and a responder to complete, now or later, from any thread.
    public init(
        path: String,
        methods: [String] = ["GET"],
        matchesSubpaths: Bool = false,
        handle: @escaping (HTTPRequest, HTTPResponder) -> Void
    ) {
        self.path = path
        self.methods = methods
        self.matchesSubpaths = matchesSubpaths
        self.handle = handle
    }

    /// A synchronous route: the response is built on the connection's loop from the request head.
    ///
    /// - Parameters:
    ///   - path: the exact request path.
    ///   - methods: the methods it answers.
    ///   - respond: builds the full HTTP response bytes.
    public init(path: String, methods: [String] = ["GET"], respond: @escaping (HTTPRequestHead) -> [UInt8]) {
        self.init(path: path, methods: methods) { request, responder in responder.respond(respond(request.head)) }
    }

    /// The methods it answers, with `HEAD` wherever it answers `GET`: HTTP asks every resource that answers `GET` to
    /// answer `HEAD` too, with the same status and fields and no body (RFC 9110, 9.3.2), which the connection
    /// takes care of.
    public var allowedMethods: [String] {
        self.methods.contains("GET") && !self.methods.contains("HEAD") ? self.methods + ["HEAD"] : self.methods
    }

    /// Whether the route answers `method`.
    func answers(_ method: String) -> Bool {
        self.methods.contains(method) || (method == "HEAD" && self.methods.contains("GET"))
    }

    /// Whether the route serves `path`.
    func serves(_ requestPath: String) -> Bool {
        guard self.matchesSubpaths else { return requestPath == self.path }
        let prefix = self.path.hasSuffix("/") ? self.path : self.path + "/"
        return requestPath == self.path || requestPath.hasPrefix(prefix)
    }
}
