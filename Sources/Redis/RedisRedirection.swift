/// A Redis Cluster node's answer that a key's slot is served elsewhere: `MOVED slot host:port` (the slot has moved
/// for good: ask there from now on) or `ASK slot host:port` (the slot is being migrated: ask there once, after
/// `ASKING`).
public struct RedisRedirection: Hashable, Sendable {
    /// Whether the slot moved for good (`MOVED`) or is being migrated (`ASK`).
    public enum Kind: Hashable, Sendable {
        /// `MOVED`: the slot map is out of date.
        case moved
        /// `ASK`: send this one command to the target, preceded by `ASKING`.
        case ask
    }

    /// `MOVED` or `ASK`.
    public var kind: Kind
    /// The key's slot.
    public var slot: Int
    /// The node to ask.
    public var target: RedisNodeAddress

    /// Reads an error reply's text; nil when it is not a redirection.
    ///
    /// - Parameter message: the error reply, for example `MOVED 3999 127.0.0.1:6381`. An empty host (`:6381`, as
    ///   a node that does not know its own address writes it) is not accepted.
    public init?(_ message: String) {
        let parts = message.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 3, let slot = Int(parts[1]), (0..<RedisKeySlot.count).contains(slot),
            let target = RedisNodeAddress(parts[2])
        else { return nil }
        switch parts[0] {
        case "MOVED": self.kind = .moved
        case "ASK": self.kind = .ask
        default: return nil
        }
        self.slot = slot
        self.target = target
    }
}
