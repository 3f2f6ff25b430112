/// Where the members of a JSON object go as they are produced: into a `JSONObject`, or as JSON text straight into
/// bytes (`JSONByteWriter`). A message defined once against a sink can be built as a tree or written without one,
/// with the same members in the same order.
public protocol JSONMemberSink {
    /// Adds a member (a name already present keeps its position and takes the new value in a `JSONObject`; the
    /// byte writer expects every name once).
    ///
    /// - Parameters:
    ///   - key: the member name.
    ///   - value: the value.
    mutating func member(_ key: String, _ value: JSONValue)

    /// Adds a member whose value is an object whose members `build` adds.
    ///
    /// - Parameters:
    ///   - key: the member name.
    ///   - build: adds the inner object's members to the sink it is given.
    mutating func member(_ key: String, object build: (inout Self) -> Void)
}

extension JSONObject: JSONMemberSink {
    /// Sets the member named `key` (see `updateValue(_:forKey:)`).
    ///
    /// - Parameters:
    ///   - key: the member name.
    ///   - value: the value.
    public mutating func member(_ key: String, _ value: JSONValue) {
        self.updateValue(value, forKey: key)
    }

    /// Sets the member named `key` to the object `build` fills.
    ///
    /// - Parameters:
    ///   - key: the member name.
    ///   - build: adds the inner object's members.
    public mutating func member(_ key: String, object build: (inout JSONObject) -> Void) {
        var inner = JSONObject()
        build(&inner)
        self.updateValue(.object(inner), forKey: key)
    }
}
