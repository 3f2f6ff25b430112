import Rooms

/// Values by session id in an open-addressing table (linear probing, deletion by backward shift, no tombstones).
///
/// The transport looks up one entry per recipient of every event. Session ids are sequential numbers, so a
/// multiplicative hash spreads them evenly at a fraction of the cost of the standard library's seeded hashing,
/// which was a large part of the fan-out cost per recipient.
struct SessionTable<Value> {
    /// Occupied slots hold the id's raw value plus one; 0 marks an empty slot.
    private var keys: [UInt64]
    private var values: [Value?]
    private var shift: UInt64
    /// The number of entries.
    private(set) var count = 0

    /// - Parameter minimumCapacity: slots to start with (rounded up to a power of two, at least 16).
    init(minimumCapacity: Int = 64) {
        var capacity = 16
        while capacity < minimumCapacity { capacity *= 2 }
        self.keys = Array(repeating: 0, count: capacity)
        self.values = Array(repeating: nil, count: capacity)
        self.shift = UInt64(64 - capacity.trailingZeroBitCount)
    }

    private var mask: Int { self.keys.count - 1 }

    /// The home slot of a key: the top bits of a Fibonacci hash.
    @inline(__always)
    private func home(_ key: UInt64) -> Int {
        Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> self.shift)
    }

    /// The slot holding `key`, or nil.
    @inline(__always)
    private func slot(of key: UInt64) -> Int? {
        var index = self.home(key)
        while true {
            let found = self.keys[index]
            if found == key { return index }
            if found == 0 { return nil }
            index = (index + 1) & self.mask
        }
    }

    /// The value for `id`, or nil.
    @inline(__always)
    subscript(id: SessionID) -> Value? {
        guard let index = self.slot(of: id.rawValue &+ 1) else { return nil }
        return self.values[index]
    }

    /// Stores `value` for `id`, replacing an earlier one.
    mutating func insert(_ value: Value, for id: SessionID) {
        let key = id.rawValue &+ 1
        if let index = self.slot(of: key) {
            self.values[index] = value
            return
        }
        if (self.count + 1) * 2 > self.keys.count { self.grow() }
        self.place(key, value)
        self.count += 1
    }

    /// Removes and returns the value for `id`.
    @discardableResult
    mutating func removeValue(for id: SessionID) -> Value? {
        guard var hole = self.slot(of: id.rawValue &+ 1) else { return nil }
        let removed = self.values[hole]
        // Move later entries of the probe run back into the hole when their home slot allows it.
        var index = hole
        while true {
            index = (index + 1) & self.mask
            let key = self.keys[index]
            if key == 0 { break }
            let home = self.home(key)
            // The entry may move to the hole unless its home lies cyclically in (hole, index].
            let homeAfterHole = hole <= index ? (home > hole && home <= index) : (home > hole || home <= index)
            if !homeAfterHole {
                self.keys[hole] = key
                self.values[hole] = self.values[index]
                hole = index
            }
        }
        self.keys[hole] = 0
        self.values[hole] = nil
        self.count -= 1
        return removed
    }

    private mutating func place(_ key: UInt64, _ value: Value) {
        var index = self.home(key)
        while self.keys[index] != 0 { index = (index + 1) & self.mask }
        self.keys[index] = key
        self.values[index] = value
    }

    private mutating func grow() {
        let oldKeys = self.keys
        let oldValues = self.values
        let capacity = oldKeys.count * 2
        self.keys = Array(repeating: 0, count: capacity)
        self.values = Array(repeating: nil, count: capacity)
        self.shift -= 1
        for index in 0..<oldKeys.count where oldKeys[index] != 0 {
            self.place(oldKeys[index], oldValues[index]!)
        }
    }
}
