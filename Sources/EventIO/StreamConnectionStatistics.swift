import Synchronization

/// Bytes moved by a group of `StreamConnection`s on the wire (over TLS, ciphertext), written by their loop's thread
/// and read from anywhere.
public final class StreamConnectionStatistics: Sendable {
    private let sent = Atomic<Int>(0)
    private let received = Atomic<Int>(0)

    public init() {}

    /// Bytes written to the sockets.
    public var bytesSent: Int { self.sent.load(ordering: .relaxed) }

    /// Bytes read from the sockets.
    public var bytesReceived: Int { self.received.load(ordering: .relaxed) }

    @inline(__always)
    func recordSent(_ count: Int) {
        self.sent.wrappingAdd(count, ordering: .relaxed)
    }

    @inline(__always)
    func recordReceived(_ count: Int) {
        self.received.wrappingAdd(count, ordering: .relaxed)
    }
}
