/// Where a TLS handshake stands after ``TLSConnection/advanceHandshake()``.
public enum TLSHandshakeState: Hashable, Sendable {
    /// The handshake finished; application data can flow.
    case complete
    /// The engine waits for more ciphertext from the peer, or has ciphertext to send first.
    case inProgress
}
