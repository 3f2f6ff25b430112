/// Why a `StreamConnection` failed: the step that failed and the system's or the TLS engine's error.
public struct StreamConnectionError: Error, Sendable, CustomStringConvertible {
    /// The step that failed, with its cause.
    public enum Kind: Sendable {
        /// The TCP connect was refused or could not be made.
        case connect(IOError)
        /// The TLS handshake failed (for example, the peer's certificate did not verify).
        case tlsHandshake(TLSError)
        /// TLS failed on the established connection (a corrupt record, a fatal alert).
        case tls(TLSError)
        /// Reading from the socket failed.
        case receive(IOError)
        /// Writing to the socket failed.
        case send(IOError)
        /// The bytes kept for the delegate grew past the bound (the argument), so the peer sent a unit too large.
        case inputLimit(Int)
        /// The bytes waiting for the socket grew past the bound (the argument), so the peer does not read.
        case outputLimit(Int)
    }

    /// The step that failed.
    public let kind: Kind

    /// - Parameter kind: the step that failed.
    public init(_ kind: Kind) {
        self.kind = kind
    }

    /// The cause as the system or the TLS engine gave it, or the bound that was passed.
    public var cause: String {
        switch self.kind {
        case .connect(let error), .receive(let error), .send(let error): error.description
        case .tlsHandshake(let error), .tls(let error): error.description
        case .inputLimit(let bound): "more than \(bound) bytes received and not yet used"
        case .outputLimit(let bound): "more than \(bound) bytes waiting to be sent"
        }
    }

    public var description: String {
        switch self.kind {
        case .connect: "connect: \(self.cause)"
        case .tlsHandshake, .tls: "TLS: \(self.cause)"
        case .receive: "read: \(self.cause)"
        case .send: "write: \(self.cause)"
        case .inputLimit, .outputLimit: self.cause
        }
    }
}
