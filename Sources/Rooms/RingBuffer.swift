/// A double-ended queue of values in one circular buffer: appending at the back and removing from the front cost
/// O(1) (appending amortized), whatever the number of elements, and no element moves while the buffer has room.
///
/// The buffer grows by doubling when full and shrinks by half when less than a quarter of it is used (never below
/// `minimumCapacity`), so its capacity stays within a constant factor of the most elements it held at once. It is a
/// value with copy-on-write storage, like `Array`; elements removed from the front are released at once. Indices
/// are offsets from the front (`0..<count`).
public struct RingBuffer<Element> {
    /// The smallest buffer allocated.
    static var minimumCapacity: Int { 8 }

    /// The slots; `slots[(head + i) % slots.count]` holds element `i`, and every other slot is nil.
    private var slots: [Element?] = []
    /// Where the front element is.
    private var head = 0
    /// How many elements there are.
    public private(set) var count = 0
    /// Elements moved into a new buffer (when it grew or shrank) since this value was made: what the buffer costs
    /// beyond one write per append, for tests that appending and trimming stay O(1).
    public private(set) var relocatedElements = 0

    /// An empty buffer.
    public init() {}

    /// The slots allocated.
    public var capacity: Int { self.slots.count }

    /// Appends an element at the back.
    ///
    /// - Parameter element: the element.
    public mutating func append(_ element: Element) {
        if self.count == self.slots.count { self.relocate(capacity: Swift.max(Self.minimumCapacity, self.count * 2)) }
        self.slots[self.slot(self.count)] = element
        self.count += 1
    }

    /// Removes the front element and returns it, or nil when the buffer is empty.
    @discardableResult
    public mutating func popFirst() -> Element? {
        guard self.count > 0 else { return nil }
        let element = self.slots[self.head].take()
        self.head = self.head + 1 == self.slots.count ? 0 : self.head + 1
        self.count -= 1
        if self.count == 0 { self.head = 0 }
        if self.slots.count > Self.minimumCapacity && self.count * 4 < self.slots.count {
            self.relocate(capacity: Swift.max(Self.minimumCapacity, self.slots.count / 2))
        }
        return element
    }

    /// Removes every element and releases the buffer.
    public mutating func removeAll() {
        self.slots = []
        self.head = 0
        self.count = 0
    }

    @inline(__always)
    private func slot(_ offset: Int) -> Int {
        let slot = self.head + offset
        return slot < self.slots.count ? slot : slot - self.slots.count
    }

    /// Moves the elements, in order, to the front of a new buffer of `capacity` slots.
    private mutating func relocate(capacity: Int) {
        var slots = [Element?](repeating: nil, count: capacity)
        for offset in 0..<self.count {
            slots[offset] = self.slots[self.slot(offset)].take()
        }
        self.relocatedElements += self.count
        self.slots = slots
        self.head = 0
    }
}

extension RingBuffer: RandomAccessCollection {
    public var startIndex: Int { 0 }
    public var endIndex: Int { self.count }

    /// The element at `position`, counted from the front.
    public subscript(position: Int) -> Element {
        precondition(position >= 0 && position < self.count, "ring buffer index out of range")
        return self.slots[self.slot(position)].unsafelyUnwrapped
    }
}

extension RingBuffer: Equatable where Element: Equatable {
    /// Equal when they hold equal elements in the same order, whatever their capacity or head.
    public static func == (lhs: RingBuffer, rhs: RingBuffer) -> Bool {
        lhs.count == rhs.count && lhs.elementsEqual(rhs)
    }
}

extension RingBuffer: Sendable where Element: Sendable {}
