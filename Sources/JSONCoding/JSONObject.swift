/// The members of a JSON object, in insertion order, with lookup by name.
///
/// Names are unique: the parser rejects a repeated name, `init(uniqueKeysWithValues:)` traps on one, and setting
/// an existing name replaces its value in place. Small objects are searched linearly; larger ones keep a name
/// index, so lookups stay fast without costing small objects an allocation.
///
/// Two objects are equal when they have the same names with equal values, whatever their order; `entries` and
/// `keys` expose the order, and the writer follows it. Names compare as Swift strings do, by canonical
/// equivalence, so two spellings of the same text (say, precomposed and decomposed `é`) are one name.
public struct JSONObject: Hashable, Sendable {
    /// The member count above which lookups go through `index`.
    static let indexThreshold = 8

    /// The members, in order.
    public private(set) var entries: [(key: String, value: JSONValue)]
    // Positions in `entries` by name; nil while the object is small.
    private var index: [String: Int]?

    /// An empty object.
    public init() {
        self.entries = []
        self.index = nil
    }

    /// An object with the given members, in the given order. Traps on a repeated name.
    ///
    /// - Parameters:
    ///   - pairs: the members, in order.
    public init(uniqueKeysWithValues pairs: some Sequence<(String, JSONValue)>) {
        self.init()
        for (key, value) in pairs {
            precondition(self.position(of: key) == nil, "duplicate JSON object key")
            self.appendNew(key: key, value: value)
        }
    }

    /// The number of members.
    public var count: Int { self.entries.count }

    /// Whether the object has no members.
    public var isEmpty: Bool { self.entries.isEmpty }

    /// The member names, in order.
    public var keys: [String] { self.entries.map(\.key) }

    /// The member values, in order.
    public var values: [JSONValue] { self.entries.map(\.value) }

    /// The value of the member named `key`; setting `nil` removes the member, setting a new name appends it.
    ///
    /// - Parameters:
    ///   - key: the member name.
    public subscript(key: String) -> JSONValue? {
        get {
            self.position(of: key).map { self.entries[$0].value }
        }
        set {
            if let newValue {
                self.updateValue(newValue, forKey: key)
            } else {
                self.removeValue(forKey: key)
            }
        }
    }

    /// Whether a member is named `key`.
    ///
    /// - Parameters:
    ///   - key: the member name.
    public func contains(key: String) -> Bool {
        self.position(of: key) != nil
    }

    /// Sets the member named `key`, keeping its position if it exists and appending it otherwise.
    ///
    /// - Parameters:
    ///   - value: the new value.
    ///   - key: the member name.
    /// - Returns: the value it replaced, if any.
    @discardableResult
    public mutating func updateValue(_ value: JSONValue, forKey key: String) -> JSONValue? {
        if let position = self.position(of: key) {
            let old = self.entries[position].value
            self.entries[position].value = value
            return old
        }
        self.appendNew(key: key, value: value)
        return nil
    }

    /// Removes the member named `key`; the members after it keep their order.
    ///
    /// - Parameters:
    ///   - key: the member name.
    /// - Returns: the removed value, if the member existed.
    @discardableResult
    public mutating func removeValue(forKey key: String) -> JSONValue? {
        guard let position = self.position(of: key) else { return nil }
        let removed = self.entries.remove(at: position).value
        if self.index != nil {
            self.index![key] = nil
            for later in position..<self.entries.count {
                self.index![self.entries[later].key] = later
            }
        }
        return removed
    }

    /// The position of the member named `key` in `entries`.
    func position(of key: String) -> Int? {
        if let index = self.index {
            return index[key]
        }
        return self.entries.firstIndex { $0.key == key }
    }

    /// Appends a member whose name the caller has checked is not present.
    mutating func appendNew(key: String, value: JSONValue) {
        self.entries.append((key: key, value: value))
        if self.index != nil {
            self.index![key] = self.entries.count - 1
        } else if self.entries.count > JSONObject.indexThreshold {
            var index = [String: Int](minimumCapacity: self.entries.count * 2)
            for (position, entry) in self.entries.enumerated() {
                index[entry.key] = position
            }
            self.index = index
        }
    }

    /// Whether both objects have the same names with equal values, in any order.
    ///
    /// - Parameters:
    ///   - lhs: an object.
    ///   - rhs: another object.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for (key, value) in lhs.entries {
            guard let other = rhs[key], other == value else { return false }
        }
        return true
    }

    /// Hashes the members without regard to their order, consistently with `==`.
    ///
    /// - Parameters:
    ///   - hasher: the hasher to feed.
    public func hash(into hasher: inout Hasher) {
        // Order-independent, to agree with `==`: a commutative sum of per-member hashes.
        var sum: UInt = 0
        for (key, value) in self.entries {
            var member = Hasher()
            member.combine(key)
            member.combine(value)
            sum &+= UInt(bitPattern: member.finalize())
        }
        hasher.combine(self.count)
        hasher.combine(sum)
    }
}
