/// An array or map whose header the parser has read and whose elements are still arriving.
struct RESPAggregateFrame: Sendable {
    /// Whether the elements are a map's keys and values, alternating.
    let isMap: Bool
    /// How many elements the header declared (twice the entries, for a map).
    let expectedCount: Int
    /// The elements read so far.
    var elements: [RESPValue] = []

    init(isMap: Bool, expectedCount: Int) {
        self.isMap = isMap
        self.expectedCount = expectedCount
    }

    var isComplete: Bool {
        self.elements.count == self.expectedCount
    }

    /// The finished aggregate.
    var value: RESPValue {
        guard self.isMap else { return .array(self.elements) }
        var entries: [RESPMapEntry] = []
        entries.reserveCapacity(self.elements.count / 2)
        var index = 0
        while index + 1 < self.elements.count {
            entries.append(RESPMapEntry(key: self.elements[index], value: self.elements[index + 1]))
            index += 2
        }
        return .map(entries)
    }
}
