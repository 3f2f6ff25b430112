/// A webhook setting that cannot be used, with the reason.
public struct WebhookConfigurationError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Kind: Hashable, Sendable {
        case invalid(String)
    }

    private let kind: Kind

    init(_ message: String) {
        self.kind = .invalid(message)
    }

    public var description: String {
        switch self.kind {
        case .invalid(let message): return message
        }
    }
}
