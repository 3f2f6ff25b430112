/// Why one delivery failed: the receiver could not be reached, stalled, or answered badly.
public struct WebhookDeliveryError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Kind: Hashable, Sendable {
        case failed(String)
    }

    private let kind: Kind

    init(_ message: String) {
        self.kind = .failed(message)
    }

    public var description: String {
        switch self.kind {
        case .failed(let message): return message
        }
    }
}
