/// A room store that cannot be opened, read or written: the message says which file or record and why.
public struct RoomStoreError: Error, Hashable, Sendable, CustomStringConvertible {
    public let description: String

    /// - Parameter description: what failed, for the operator.
    public init(_ description: String) {
        self.description = description
    }
}
