extension JSONObject: ExpressibleByDictionaryLiteral {
    /// An object whose members keep the literal's order. Traps on a repeated key.
    ///
    /// - Parameters:
    ///   - elements: the members, in order.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(uniqueKeysWithValues: elements)
    }
}
