extension JSONValue: ExpressibleByNilLiteral {
    /// `null`.
    ///
    /// - Parameters:
    ///   - nilLiteral: the `nil` literal.
    public init(nilLiteral: ()) {
        self = .null
    }
}

extension JSONValue: ExpressibleByBooleanLiteral {
    /// A Boolean.
    ///
    /// - Parameters:
    ///   - value: `true` or `false`.
    public init(booleanLiteral value: Bool) {
        self = .bool(value)
    }
}

extension JSONValue: ExpressibleByIntegerLiteral {
    /// An exact integer.
    ///
    /// - Parameters:
    ///   - value: the integer.
    public init(integerLiteral value: Int64) {
        self = .int(value)
    }
}

extension JSONValue: ExpressibleByFloatLiteral {
    /// A floating-point number.
    ///
    /// - Parameters:
    ///   - value: the number.
    public init(floatLiteral value: Double) {
        self = .double(value)
    }
}

extension JSONValue: ExpressibleByStringLiteral {
    /// A string.
    ///
    /// - Parameters:
    ///   - value: the string.
    public init(stringLiteral value: String) {
        self = .string(value)
    }
}

extension JSONValue: ExpressibleByArrayLiteral {
    /// An array.
    ///
    /// - Parameters:
    ///   - elements: the elements, in order.
    public init(arrayLiteral elements: JSONValue...) {
        self = .array(elements)
    }
}

extension JSONValue: ExpressibleByDictionaryLiteral {
    /// An object whose members keep the literal's order. Traps on a repeated key.
    ///
    /// - Parameters:
    ///   - elements: the members, in order.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(uniqueKeysWithValues: elements))
    }
}
