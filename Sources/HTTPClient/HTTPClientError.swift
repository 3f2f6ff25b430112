/// Why a request got no answer: the server could not be found or reached, stalled, or answered badly.
public struct HTTPClientError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong, naming the server.
    public let description: String

    /// - Parameter message: what went wrong, naming the server.
    public init(_ message: String) {
        self.description = message
    }
}
