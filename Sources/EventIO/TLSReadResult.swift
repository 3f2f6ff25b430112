/// The outcome of ``TLSConnection/readPlaintext(into:)``.
public enum TLSReadResult: Hashable, Sendable {
    /// This many plaintext bytes were written to the start of the buffer.
    case bytes(Int)
    /// No complete record is buffered; feed more ciphertext and try again.
    case wouldBlock
    /// The peer sent close_notify; no more plaintext will arrive.
    case closed
}
