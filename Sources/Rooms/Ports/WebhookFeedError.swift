/// Why a webhook feed cannot be read or its cursor written (the store or the shared store failed), as one sentence
/// for the log; the endpoint tries again a moment later.
public struct WebhookFeedError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Kind: Hashable, Sendable {
        case unavailable(String)
    }

    private let kind: Kind

    /// - Parameter message: what failed.
    public init(_ message: String) {
        self.kind = .unavailable(message)
    }

    public var description: String {
        switch self.kind {
        case .unavailable(let message): return message
        }
    }
}
