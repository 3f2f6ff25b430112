import Rooms

/// Why the store cannot be used, as one sentence for the operator (wrapped into `RoomStoreError` at the port).
public struct RoomStoreFailure: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Kind: Hashable, Sendable {
        case message(String)
    }

    private let kind: Kind

    init(_ message: String) {
        self.kind = .message(message)
    }

    public var description: String {
        switch self.kind {
        case .message(let text): return text
        }
    }

    var roomStoreError: RoomStoreError { RoomStoreError(self.description) }
}
