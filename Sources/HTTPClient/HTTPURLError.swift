/// A URL the HTTP client cannot use, with the reason.
public struct HTTPURLError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong, quoting the URL.
    public let description: String

    /// - Parameter message: what is wrong, quoting the URL.
    init(_ message: String) {
        self.description = message
    }
}
