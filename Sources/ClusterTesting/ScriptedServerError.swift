/// Why a scripted server could not start.
public struct ScriptedServerError: Error, CustomStringConvertible {
    /// What went wrong.
    public let description: String

    /// - Parameter description: what went wrong.
    public init(description: String) {
        self.description = description
    }
}
