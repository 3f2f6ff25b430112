import JSONCoding

extension JSONObject {
    /// An object with `pairs` in order (keys are unique by construction in this module).
    init(_ pairs: [(String, JSONValue)]) {
        self.init(uniqueKeysWithValues: pairs)
    }
}
