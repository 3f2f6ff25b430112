import Synchronization

/// Whether a shared log's node can trust what it receives, readable from any thread: the gateway's `/readyz`
/// answers 503 with the reason while there is one. The log sets it on its own thread.
public final class SharedLogHealth: Sendable {
    private let reason = Mutex<String?>(nil)

    /// Ready, until the log says otherwise.
    public init() {}

    /// Why the node should get no new clients now (for example: its subscription stopped delivering and it
    /// resubscribes); nil while it is ready.
    public var notReadyReason: String? { self.reason.withLock { $0 } }

    /// Says the node is not ready, and why; nil says it is ready again.
    ///
    /// - Parameter reason: one line for `/readyz`; nil when ready.
    public func setNotReady(_ reason: String?) {
        self.reason.withLock { $0 = reason }
    }
}
