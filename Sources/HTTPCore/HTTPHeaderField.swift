/// One header field of a parsed HTTP head, as ranges into the head's bytes (the value without surrounding
/// whitespace).
public struct HTTPHeaderField: Hashable, Sendable {
    /// The field name's bytes.
    public var name: Range<Int>
    /// The field value's bytes, without leading and trailing spaces and tabs.
    public var value: Range<Int>
}
