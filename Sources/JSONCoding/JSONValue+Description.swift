extension JSONValue: CustomStringConvertible {
    /// The compact JSON text of the value, as `JSONWriter` writes it.
    public var description: String {
        JSONWriter.string(self)
    }
}
