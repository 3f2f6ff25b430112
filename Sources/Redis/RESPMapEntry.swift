/// One key and its value in a RESP3 map.
public struct RESPMapEntry: Hashable, Sendable {
    /// The entry's key.
    public var key: RESPValue
    /// The entry's value.
    public var value: RESPValue

    /// - Parameters:
    ///   - key: the entry's key.
    ///   - value: the entry's value.
    public init(key: RESPValue, value: RESPValue) {
        self.key = key
        self.value = value
    }
}
