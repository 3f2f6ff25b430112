/// Identifies one client connection to the gateway.
public struct SessionID: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt64

    public init(_ rawValue: UInt64) {
        self.rawValue = rawValue
    }

    public var description: String { "s\(self.rawValue)" }
}

/// What the gateway needs from the layer that owns the sockets. The WebSocket server implements it; tests use an
/// in-memory transport, so the whole gateway runs without sockets.
public protocol RoomsTransport: AnyObject {
    /// Sends one text message (UTF-8 JSON) to every session in `sessions`. The transport encodes the frame once and
    /// queues the same bytes to each connection.
    ///
    /// - Parameters:
    ///   - text: the message.
    ///   - sessions: the recipients; unknown or closed sessions are skipped.
    func send(_ text: [UInt8], to sessions: [SessionID])

    /// Sends a message that tells nothing of any room's state (a pong, a refusal) ahead of what the transport holds
    /// back while the store cannot commit it (`RoomsNode.storeCannotCommit`); otherwise the same as `send`.
    ///
    /// - Parameters:
    ///   - text: the message.
    ///   - sessions: the recipients; unknown or closed sessions are skipped.
    func sendAhead(_ text: [UInt8], to sessions: [SessionID])

    /// Closes a session's connection with an application close code and reason, after what was sent before.
    ///
    /// - Parameters:
    ///   - session: the session.
    ///   - code: a close code (4000-4999 for the gateway's own, see `GatewayCloseCode`).
    ///   - reason: a short reason.
    func close(_ session: SessionID, code: UInt16, reason: String)
}

extension RoomsTransport {
    /// A transport that never holds output back sends everything in order.
    public func sendAhead(_ text: [UInt8], to sessions: [SessionID]) {
        self.send(text, to: sessions)
    }
}
