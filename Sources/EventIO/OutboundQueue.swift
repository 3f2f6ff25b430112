internal import CWebSocket

#if canImport(Glibc)
internal import Glibc
#endif

/// A connection's queue of bytes waiting for the socket, written with `send` (one chunk) or `sendmsg` (several).
///
/// Two kinds of bytes are queued, in order. Shared chunks are copy-on-write arrays: a frame encoded once for a room
/// is queued to every subscriber without a copy, as one reference and a range. Bytes meant for this connection
/// only (an echoed frame) can be copied into the queue's own buffer, which is reused once everything is written, so
/// a steady stream of small frames costs no allocation; consecutive copied bytes go out as one vector. The queue
/// counts its bytes so the layer above can apply watermarks and limits.
public struct OutboundQueue {
    private struct Chunk {
        /// The shared storage, or nil for bytes in the queue's own buffer.
        var shared: [UInt8]?
        var start: Int
        var end: Int

        static let empty = Chunk(shared: nil, start: 0, end: 0)
    }

    /// The growable buffer of copied bytes. Owned by one queue (copied on write when a queue value was copied).
    private final class OwnedBytes {
        private(set) var base: UnsafeMutableRawPointer
        private(set) var capacity: Int
        var count = 0

        init(capacity: Int) {
            self.base = .allocate(byteCount: capacity, alignment: 16)
            self.capacity = capacity
        }

        deinit {
            self.base.deallocate()
        }

        func copy() -> OwnedBytes {
            let copy = OwnedBytes(capacity: self.capacity)
            copy.base.copyMemory(from: self.base, byteCount: self.count)
            copy.count = self.count
            return copy
        }

        /// Makes room for at least `needed` bytes in total, keeping the bytes written so far.
        func grow(toFit needed: Int) {
            let capacity = max(needed, self.capacity * 2)
            let base = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
            base.copyMemory(from: self.base, byteCount: self.count)
            self.base.deallocate()
            self.base = base
            self.capacity = capacity
        }
    }

    /// The outcome of a write attempt.
    public enum WriteOutcome: Sendable {
        /// Everything queued was written.
        case drained
        /// The socket's buffer is full; wait for writability.
        case pending
    }

    /// How many chunks go into one `writev`.
    private static let vectorsPerCall = 16
    /// The first allocation of the copied-bytes buffer.
    private static let minimumOwnedCapacity = 256
    /// Buffers above these sizes are released once drained instead of being kept for reuse.
    private static let retainedOwnedCapacity = 64 * 1024
    private static let retainedChunkCapacity = 64

    /// Chunk slots; `chunks[head..<tail]` are queued, slots outside that range hold no storage.
    private var chunks: [Chunk] = []
    private var head = 0
    private var tail = 0
    private var owned: OwnedBytes?
    /// Bytes queued and not yet written.
    public private(set) var byteCount = 0
    /// Whether the socket took only part of the chunk at `head`: its rest must go out before anything else can.
    private var headIsPartlyWritten = false

    public init() {}

    /// Whether nothing is queued.
    public var isEmpty: Bool { self.byteCount == 0 }

    /// Whether the queue holds storage (chunk slots, or its own buffer kept for reuse); an idle connection's holds
    /// none once `releaseUnusedStorage` has run.
    public var holdsStorage: Bool { self.chunks.capacity > 0 || self.owned != nil }

    /// Queues `bytes[range]` (the array is shared, not copied).
    ///
    /// - Parameters:
    ///   - bytes: the storage.
    ///   - range: the part of it to send.
    @inline(__always)
    public mutating func append(_ bytes: [UInt8], range: Range<Int>) {
        guard !range.isEmpty else { return }
        self.push(Chunk(shared: bytes, start: range.lowerBound, end: range.upperBound))
        self.byteCount += range.count
    }

    /// Queues a whole array (shared, not copied).
    @inline(__always)
    public mutating func append(_ bytes: [UInt8]) {
        self.append(bytes, range: 0..<bytes.count)
    }

    /// Queues a copy of `bytes` in the queue's own buffer.
    ///
    /// - Parameter bytes: the bytes; they may be reused by the caller as soon as this returns.
    @inline(__always)
    public mutating func append(copying bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress else { return }
        self.appendBytes(count: bytes.count) { $0.baseAddress!.copyMemory(from: source, byteCount: bytes.count) }
    }

    /// Queues `count` bytes written in place by `body` into the queue's own buffer, so a frame can be encoded
    /// straight into the queue without an intermediate allocation.
    ///
    /// - Parameters:
    ///   - count: how many bytes to queue.
    ///   - body: writes exactly `count` bytes into the buffer it is given; it must not touch this queue.
    @inline(__always)
    public mutating func appendBytes(count: Int, _ body: (UnsafeMutableRawBufferPointer) -> Void) {
        guard count > 0 else { return }
        self.reserveOwned(count)
        let start = self.owned.unsafelyUnwrapped.count
        body(UnsafeMutableRawBufferPointer(start: self.owned.unsafelyUnwrapped.base + start, count: count))
        self.commitOwned(from: start, count: count)
    }

    /// Queues up to `maximumCount` bytes written in place by `body` into the queue's own buffer, keeping as many as
    /// `body` says it wrote (for a source that may give fewer bytes than it announced).
    ///
    /// - Parameters:
    ///   - maximumCount: the most bytes `body` may write.
    ///   - body: writes into the buffer it is given and returns how many bytes it wrote, from the start; it must not
    ///     touch this queue.
    public mutating func appendBytes(upTo maximumCount: Int, _ body: (UnsafeMutableRawBufferPointer) -> Int) {
        guard maximumCount > 0 else { return }
        self.reserveOwned(maximumCount)
        let start = self.owned.unsafelyUnwrapped.count
        let written = body(
            UnsafeMutableRawBufferPointer(start: self.owned.unsafelyUnwrapped.base + start, count: maximumCount))
        precondition(written >= 0 && written <= maximumCount, "wrote more bytes than there was room for")
        guard written > 0 else { return }
        self.commitOwned(from: start, count: written)
    }

    /// Queues the `count` bytes just written at `start` of the queue's own buffer.
    @inline(__always)
    private mutating func commitOwned(from start: Int, count: Int) {
        self.owned.unsafelyUnwrapped.count = start + count
        self.byteCount += count
        // Copied bytes always end the buffer, so they extend the last chunk when it is copied bytes too.
        if self.tail > self.head && self.chunks[self.tail - 1].shared == nil {
            self.chunks[self.tail - 1].end = start + count
        } else {
            self.push(Chunk(shared: nil, start: start, end: start + count))
        }
    }

    /// Drops everything queued (the connection is going away).
    public mutating func removeAll() {
        self.chunks = []
        self.head = 0
        self.tail = 0
        self.owned = nil
        self.byteCount = 0
        self.headIsPartlyWritten = false
    }

    /// Drops what is queued except the rest of a chunk the socket took only part of, so the peer never receives a
    /// unit cut short. Every append is a whole unit (a frame, a handshake answer) and consecutive copied bytes are
    /// whole units too, so what stays ends on a unit boundary and what is queued next follows it intact.
    ///
    /// - Returns: how many bytes stay queued.
    @discardableResult
    public mutating func removeAllButPartlyWrittenChunk() -> Int {
        guard self.headIsPartlyWritten, self.head < self.tail else {
            self.removeAll()
            return 0
        }
        let rest = self.chunks[self.head]
        for index in self.head..<self.tail { self.chunks[index] = .empty }
        self.chunks[0] = rest
        self.head = 0
        self.tail = 1
        if rest.shared != nil {
            self.owned = nil
        } else {
            // The dropped copied bytes followed the kept chunk at the end of the buffer; new ones go right after it.
            if !isKnownUniquelyReferenced(&self.owned) { self.owned = self.owned?.copy() }
            self.owned.unsafelyUnwrapped.count = rest.end
        }
        self.byteCount = rest.end - rest.start
        return self.byteCount
    }

    /// Releases the buffers kept for reuse when nothing is queued, so an idle connection holds none.
    public mutating func releaseUnusedStorage() {
        guard self.head == self.tail else { return }
        self.removeAll()
    }

    /// Writes as much as the socket takes.
    ///
    /// - Parameter fd: the socket.
    public mutating func write(to fd: Int32) throws(IOError) -> WriteOutcome {
        while self.head < self.tail {
            let result: Result<IOResult<Int>, IOError>
            if self.tail - self.head == 1 {
                // One chunk (a fan-out frame, or a connection's copied frames): a plain send, no vectors.
                result = self.writeSingle(fd)
            } else {
                let vectorCount = min(Self.vectorsPerCall, self.tail - self.head)
                result = withUnsafeTemporaryAllocation(of: iovec.self, capacity: vectorCount) { vectors in
                    self.writeVectors(fd, vectors, first: self.head, filled: 0, count: vectorCount)
                }
            }
            guard case .processed(var written) = try result.get() else { return .pending }
            self.byteCount -= written
            while written > 0 {
                let available = self.chunks[self.head].end - self.chunks[self.head].start
                if written >= available {
                    written -= available
                    self.chunks[self.head] = .empty
                    self.head += 1
                    self.headIsPartlyWritten = false
                } else {
                    self.chunks[self.head].start += written
                    self.headIsPartlyWritten = true
                    written = 0
                }
            }
            self.compact()
        }
        return .drained
    }

    @inline(__always)
    private mutating func push(_ chunk: Chunk) {
        if self.tail < self.chunks.count {
            self.chunks[self.tail] = chunk
        } else {
            self.chunks.append(chunk)
        }
        self.tail += 1
    }

    /// Makes the copied-bytes buffer unique to this queue, with room for `count` more bytes.
    @inline(__always)
    private mutating func reserveOwned(_ count: Int) {
        if !isKnownUniquelyReferenced(&self.owned) {
            self.owned = self.owned?.copy() ?? OwnedBytes(capacity: max(count, Self.minimumOwnedCapacity))
        }
        if self.owned.unsafelyUnwrapped.capacity - self.owned.unsafelyUnwrapped.count < count {
            self.owned.unsafelyUnwrapped.grow(toFit: self.owned.unsafelyUnwrapped.count + count)
        }
    }

    /// Writes the chunk at `head` on its own.
    @inline(__always)
    private func writeSingle(_ fd: Int32) -> Result<IOResult<Int>, IOError> {
        let start = self.chunks[self.head].start
        let length = self.chunks[self.head].end - start
        if self.chunks[self.head].shared == nil {
            let bytes = UnsafeRawBufferPointer(start: self.owned.unsafelyUnwrapped.base + start, count: length)
            return Result { () throws(IOError) in try Socket.send(fd, bytes) }
        }
        return self.chunks[self.head].shared.unsafelyUnwrapped.withUnsafeBytes { bytes in
            let range = UnsafeRawBufferPointer(start: bytes.baseAddress! + start, count: length)
            return Result { () throws(IOError) in try Socket.send(fd, range) }
        }
    }

    /// Fills the vectors, pinning each shared chunk's storage with `withUnsafeBytes` (recursively, so every
    /// pointer stays valid during the one `writev` call), then writes them together. Copied bytes need no pinning:
    /// their buffer is not touched until the write returns.
    private func writeVectors(
        _ fd: Int32,
        _ vectors: UnsafeMutableBufferPointer<iovec>,
        first: Int,
        filled: Int,
        count: Int
    ) -> Result<IOResult<Int>, IOError> {
        var filled = filled
        while filled < count {
            let start = self.chunks[first + filled].start
            let length = self.chunks[first + filled].end - start
            if self.chunks[first + filled].shared != nil {
                let index = filled
                return self.chunks[first + filled].shared.unsafelyUnwrapped.withUnsafeBytes { bytes in
                    vectors[index] = iovec(
                        iov_base: UnsafeMutableRawPointer(mutating: bytes.baseAddress! + start),
                        iov_len: length
                    )
                    return self.writeVectors(fd, vectors, first: first, filled: index + 1, count: count)
                }
            }
            vectors[filled] = iovec(iov_base: self.owned.unsafelyUnwrapped.base + start, iov_len: length)
            filled += 1
        }
        return Result { () throws(IOError) in
            try Socket.writev(fd, UnsafePointer(vectors.baseAddress!), count: Int32(count))
        }
    }

    private mutating func compact() {
        if self.head == self.tail {
            // Everything is written: reuse the slots and the copied-bytes buffer from the start.
            self.head = 0
            self.tail = 0
            if self.chunks.count > Self.retainedChunkCapacity { self.chunks = [] }
            if isKnownUniquelyReferenced(&self.owned)
                && self.owned.unsafelyUnwrapped.capacity <= Self.retainedOwnedCapacity
            {
                self.owned.unsafelyUnwrapped.count = 0
            } else {
                self.owned = nil
            }
        } else if self.head > 32 && self.head * 2 > self.tail {
            // Move the queued slots to the front; the copied bytes keep their positions.
            let queued = self.tail - self.head
            for index in 0..<queued {
                self.chunks[index] = self.chunks[self.head + index]
            }
            for index in queued..<self.tail {
                self.chunks[index] = .empty
            }
            self.head = 0
            self.tail = queued
        }
    }
}
