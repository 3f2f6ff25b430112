/// Why a Redis command, or the connection that carries it, failed.
///
/// Compare with the static members (`error == .timedOut`); an error reply from the server is `.server(message)`
/// and its text is `serverMessage`.
public struct RedisError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Kind: Hashable, Sendable {
        case notConnected
        case timedOut
        case connectionLost
        case tooManyPendingCommands
        case outputBufferFull
        case invalidCommand(String)
        case server(String)
        case protocolError(String)
        case invalidURL(String)
        case connectFailed(String)
        case handshakeFailed(String)
        case notPrimary(String)
    }

    private let kind: Kind

    private init(_ kind: Kind) {
        self.kind = kind
    }

    /// The client is not connected (stopped, connecting, or waiting to reconnect); the command was not sent.
    public static let notConnected = RedisError(.notConnected)
    /// The command's deadline passed without a reply; the connection was reset, since later replies could no
    /// longer be matched to their commands.
    public static let timedOut = RedisError(.timedOut)
    /// The connection closed, or was reset, while the command waited for its reply; the command may or may not
    /// have run.
    public static let connectionLost = RedisError(.connectionLost)
    /// `maximumPendingCommands` commands already wait for replies; the command was not sent.
    public static let tooManyPendingCommands = RedisError(.tooManyPendingCommands)
    /// `maximumOutputBytes` bytes already wait to be written to the socket; the command was not sent.
    public static let outputBufferFull = RedisError(.outputBufferFull)

    /// An error reply from the server, such as `NOSCRIPT No matching script`.
    ///
    /// - Parameter message: the reply's text, error code first.
    public static func server(_ message: String) -> RedisError {
        RedisError(.server(message))
    }

    /// The command cannot be sent, for example because it has no arguments.
    ///
    /// - Parameter detail: what is wrong with it.
    public static func invalidCommand(_ detail: String) -> RedisError {
        RedisError(.invalidCommand(detail))
    }

    /// The server sent bytes that are not RESP, or a reply nothing waited for; the connection was reset.
    ///
    /// - Parameter detail: what was wrong with the bytes.
    public static func protocolError(_ detail: String) -> RedisError {
        RedisError(.protocolError(detail))
    }

    /// A `redis://` URL could not be used.
    ///
    /// - Parameter detail: what is wrong with it.
    public static func invalidURL(_ detail: String) -> RedisError {
        RedisError(.invalidURL(detail))
    }

    /// The TCP connection could not be established (refused, unreachable, timed out, bad host).
    ///
    /// - Parameter detail: the address and the cause.
    public static func connectFailed(_ detail: String) -> RedisError {
        RedisError(.connectFailed(detail))
    }

    /// The server refused the connection's setup: `AUTH` (a wrong password) or `SELECT` (a bad database).
    ///
    /// - Parameter detail: the refused command and the server's error reply.
    public static func handshakeFailed(_ detail: String) -> RedisError {
        RedisError(.handshakeFailed(detail))
    }

    /// The server connected to is not, or no longer, the primary the Sentinels name (it answered `ROLE` as a
    /// replica, refused a write with `READONLY`, or the Sentinels name another server now); the client leaves it
    /// and asks the Sentinels again.
    ///
    /// - Parameter detail: what showed it.
    public static func notPrimary(_ detail: String) -> RedisError {
        RedisError(.notPrimary(detail))
    }

    /// The error reply's text when this is an error reply from the server, else nil.
    public var serverMessage: String? {
        if case .server(let message) = self.kind { return message }
        return nil
    }

    /// Whether the error is about the connection (not connected, timed out, lost, connect, setup or protocol
    /// failures) rather than about the command itself.
    public var isConnectionFailure: Bool {
        switch self.kind {
        case .notConnected, .timedOut, .connectionLost, .protocolError, .connectFailed, .handshakeFailed,
            .notPrimary:
            return true
        case .tooManyPendingCommands, .outputBufferFull, .invalidCommand, .server, .invalidURL:
            return false
        }
    }

    /// Whether the server sent something that is not RESP, or a reply nothing waited for.
    var isProtocolError: Bool {
        if case .protocolError = self.kind { return true }
        return false
    }

    /// A one-line explanation, for logs.
    public var description: String {
        switch self.kind {
        case .notConnected: return "not connected to Redis"
        case .timedOut: return "the Redis command timed out"
        case .connectionLost: return "the Redis connection was lost"
        case .tooManyPendingCommands: return "too many Redis commands are waiting for replies"
        case .outputBufferFull: return "too many bytes are waiting to be sent to Redis"
        case .invalidCommand(let detail): return "invalid Redis command: \(detail)"
        case .server(let message): return "Redis error reply: \(message)"
        case .protocolError(let detail): return "Redis protocol error: \(detail)"
        case .invalidURL(let detail): return "invalid Redis URL: \(detail)"
        case .connectFailed(let detail): return "cannot connect to Redis: \(detail)"
        case .handshakeFailed(let detail): return "Redis refused the connection setup: \(detail)"
        case .notPrimary(let detail): return "the Redis server is not the primary: \(detail)"
        }
    }
}
