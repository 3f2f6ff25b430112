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

    /// The buffer; nil while nothing was ever appended (or after `removeAll`).
    private var storage: RingStorage<Element>?
    /// Elements moved into a new buffer (when it grew, shrank or was copied before a change) since this value was
    /// made: what the buffer costs beyond one write per append, for tests that appending and trimming stay O(1).
    public private(set) var relocatedElements = 0

    /// An empty buffer.
    public init() {}

    /// How many elements there are.
    public var count: Int { self.storage?.header.count ?? 0 }

    /// The slots allocated.
    public var capacity: Int { self.storage?.header.capacity ?? 0 }

    /// Appends an element at the back.
    ///
    /// - Parameter element: the element.
    public mutating func append(_ element: Element) {
        let count = self.count
        if count == self.capacity {
            self.relocate(capacity: Swift.max(Self.minimumCapacity, count * 2))
        } else if !isKnownUniquelyReferenced(&self.storage) {
            self.relocate(capacity: self.capacity)
        }
        let storage = self.storage.unsafelyUnwrapped
        storage.withUnsafeMutablePointers { header, elements in
            (elements + header.pointee.slot(header.pointee.count)).initialize(to: element)
            header.pointee.count += 1
        }
    }

    /// Removes the front element and returns it, or nil when the buffer is empty.
    @discardableResult
    public mutating func popFirst() -> Element? {
        guard self.count > 0 else { return nil }
        if !isKnownUniquelyReferenced(&self.storage) { self.relocate(capacity: self.capacity) }
        let storage = self.storage.unsafelyUnwrapped
        let element = storage.withUnsafeMutablePointers { header, elements in
            let element = (elements + header.pointee.head).move()
            header.pointee.head = header.pointee.slot(1)
            header.pointee.count -= 1
            if header.pointee.count == 0 { header.pointee.head = 0 }
            return element
        }
        let (count, capacity) = (self.count, self.capacity)
        if capacity > Self.minimumCapacity && count * 4 < capacity {
            self.relocate(capacity: Swift.max(Self.minimumCapacity, capacity / 2))
        }
        return element
    }

    /// Removes every element and releases the buffer.
    public mutating func removeAll() {
        self.storage = nil
    }

    /// Moves (or, when the buffer is shared, copies) the elements, in order, to the front of a new buffer of
    /// `capacity` slots.
    private mutating func relocate(capacity: Int) {
        let count = self.count
        let new = RingStorage<Element>.make(capacity: capacity)
        let unique = isKnownUniquelyReferenced(&self.storage)
        if let old = self.storage {
            old.withUnsafeMutablePointers { oldHeader, oldElements in
                new.withUnsafeMutablePointers { _, newElements in
                    for offset in 0..<count {
                        let source = oldElements + oldHeader.pointee.slot(offset)
                        if unique {
                            (newElements + offset).moveInitialize(from: source, count: 1)
                        } else {
                            (newElements + offset).initialize(to: source.pointee)
                        }
                    }
                }
                // Moved out: the old buffer has nothing left to release.
                if unique { oldHeader.pointee.count = 0 }
            }
        }
        new.header.count = count
        self.relocatedElements += count
        self.storage = new
    }
}

extension RingBuffer: RandomAccessCollection {
    public var startIndex: Int { 0 }
    public var endIndex: Int { self.count }

    /// The element at `position`, counted from the front. Read in place: `ring[0].time` copies the time, not the
    /// element.
    public subscript(position: Int) -> Element {
        unsafeAddress {
            precondition(position >= 0 && position < self.count, "ring buffer index out of range")
            // The elements live inside the buffer object, which `self` keeps alive while the access lasts.
            return self.storage.unsafelyUnwrapped.withUnsafeMutablePointers { header, elements in
                UnsafePointer(elements + header.pointee.slot(position))
            }
        }
    }
}

extension RingBuffer: Equatable where Element: Equatable {
    /// Equal when they hold equal elements in the same order, whatever their capacity or head.
    public static func == (lhs: RingBuffer, rhs: RingBuffer) -> Bool {
        lhs.count == rhs.count && lhs.elementsEqual(rhs)
    }
}

// The storage is only mutated through a uniquely referenced buffer (copy on write), like `Array`'s.
extension RingBuffer: @unchecked Sendable where Element: Sendable {}

/// Where a ring's elements are: `count` of them from `head`, wrapping at `capacity`.
struct RingStorageHeader {
    let capacity: Int
    var head = 0
    var count = 0

    /// The slot of the element `offset` places from the front.
    @inline(__always)
    func slot(_ offset: Int) -> Int {
        let slot = self.head + offset
        return slot < self.capacity ? slot : slot - self.capacity
    }
}

/// A ring's buffer; it releases the elements it still holds when it goes away.
final class RingStorage<Element>: ManagedBuffer<RingStorageHeader, Element> {
    /// A buffer of `capacity` slots, empty.
    static func make(capacity: Int) -> RingStorage<Element> {
        let buffer = self.create(minimumCapacity: capacity) { _ in RingStorageHeader(capacity: capacity) }
        return unsafeDowncast(buffer, to: RingStorage<Element>.self)
    }

    deinit {
        self.withUnsafeMutablePointers { header, elements in
            let front = Swift.min(header.pointee.count, header.pointee.capacity - header.pointee.head)
            (elements + header.pointee.head).deinitialize(count: front)
            elements.deinitialize(count: header.pointee.count - front)
        }
    }
}
