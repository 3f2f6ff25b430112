/// An array or object the parser has opened and not yet closed.
struct JSONContainerFrame {
    /// Whether this is an object (otherwise an array).
    let isObject: Bool
    /// The elements so far, for an array.
    var elements: [JSONValue] = []
    /// The members so far, for an object.
    var object = JSONObject()
    /// The name of the member whose value is being parsed, for an object.
    var pendingKey = ""
    /// The elements or members started so far, counting the one being parsed.
    var started = 0

    init(isObject: Bool) {
        self.isObject = isObject
    }

    /// The byte that closes this container.
    var closingByte: UInt8 {
        self.isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
    }

    /// Stores a finished element, or the value of the pending member.
    mutating func append(_ value: JSONValue) {
        if self.isObject {
            self.object.appendNew(key: self.pendingKey, value: value)
        } else {
            self.elements.append(value)
        }
    }

    /// The finished container.
    consuming func finish() -> JSONValue {
        self.isObject ? .object(self.object) : .array(self.elements)
    }
}
