/// Why a client operation failed.
///
/// Server refusals carry the protocol's error code (`serverCode`, such as `ERR_NOT_GROUP_MEMBER`); connection
/// failures carry the close code when the server sent one.
public struct RollcallError: Error, Hashable, Sendable, CustomStringConvertible {
    enum Kind: Hashable, Sendable {
        /// The URL could not be used.
        case invalidEndpoint(String)
        /// TCP connect, TLS or socket I/O failed.
        case transport(String)
        /// The server did not accept the WebSocket upgrade.
        case handshake(String)
        /// The server answered a request with an `error` message.
        case server(code: String, message: String)
        /// No answer within the request timeout.
        case timedOut(String)
        /// The connection is closed or not yet open.
        case notConnected
        /// The connection closed while the request waited; the close code when one was received.
        case connectionClosed(code: UInt16?, reason: String)
        /// Too many bytes are waiting to be sent.
        case sendQueueFull
        /// The server sent something the client cannot use.
        case protocolError(String)
        /// The token provider failed or gave no token.
        case tokenProvider(String)
    }

    let kind: Kind

    init(_ kind: Kind) {
        self.kind = kind
    }

    /// A connection failure, for transports: connect, TLS or I/O failed.
    ///
    /// - Parameters:
    ///   - detail: what failed.
    public static func transport(_ detail: String) -> RollcallError {
        RollcallError(.transport(detail))
    }

    /// A refused WebSocket upgrade, for transports.
    ///
    /// - Parameters:
    ///   - detail: what the server answered.
    public static func handshake(_ detail: String) -> RollcallError {
        RollcallError(.handshake(detail))
    }

    /// A step that took too long, for transports.
    ///
    /// - Parameters:
    ///   - what: what did not happen in time.
    public static func timedOut(_ what: String) -> RollcallError {
        RollcallError(.timedOut(what))
    }

    /// The connection is not open (not yet, or not any more), for transports.
    public static var notConnected: RollcallError { RollcallError(.notConnected) }

    /// The protocol's error code when the server refused the request (`ERR_NOT_GROUP_MEMBER`, `ERR_FORBIDDEN`, …).
    public var serverCode: String? {
        if case .server(let code, _) = self.kind { return code }
        return nil
    }

    /// The server's code as the client knows it; nil for another kind of error, or a code from a newer gateway
    /// (`serverCode` still has it).
    public var serverErrorCode: RollcallServerErrorCode? {
        self.serverCode.flatMap(RollcallServerErrorCode.init(rawValue:))
    }

    /// The close code, when the error is a connection that closed (4001 for failed authentication, 4003 when
    /// removed, …); nil when no Close frame was received or the error is of another kind.
    public var closeCode: UInt16? {
        if case .connectionClosed(let code, _) = self.kind { return code }
        return nil
    }

    /// Whether the connection closed with a code that ends the session for good (`RollcallCloseCode.isFinal`).
    public var isFinal: Bool {
        self.closeCode.flatMap(RollcallCloseCode.init(rawValue:))?.isFinal ?? false
    }

    /// Whether the request got no answer in time.
    public var isTimeout: Bool {
        if case .timedOut = self.kind { return true }
        return false
    }

    /// Whether the error comes from the connection (connect, TLS, upgrade, I/O, closed, not connected) rather than
    /// from the server refusing a request.
    public var isConnectionFailure: Bool {
        switch self.kind {
        case .transport, .handshake, .notConnected, .connectionClosed, .invalidEndpoint, .tokenProvider: return true
        default: return false
        }
    }

    /// A readable summary.
    public var description: String {
        switch self.kind {
        case .invalidEndpoint(let detail): return "invalid endpoint: \(detail)"
        case .transport(let detail): return "connection failed: \(detail)"
        case .handshake(let detail): return "WebSocket handshake failed: \(detail)"
        case .server(let code, let message): return "\(code): \(message)"
        case .timedOut(let what): return "timed out waiting for \(what)"
        case .notConnected: return "not connected"
        case .connectionClosed(let code, let reason):
            return "connection closed" + (code.map { " with \($0)" } ?? "") + (reason.isEmpty ? "" : ": \(reason)")
        case .sendQueueFull: return "too many bytes waiting to be sent"
        case .protocolError(let detail): return "protocol error: \(detail)"
        case .tokenProvider(let detail): return "the token provider failed: \(detail)"
        }
    }
}
