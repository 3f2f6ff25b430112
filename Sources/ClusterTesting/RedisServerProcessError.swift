/// Why a `RedisServerProcess` could not be started or stopped; the description says what to do about it.
public struct RedisServerProcessError: Error, CustomStringConvertible {
    /// A readable explanation, with the tail of the server's log when it has one.
    public let description: String

    /// - Parameter description: a readable explanation.
    public init(_ description: String) {
        self.description = description
    }
}
