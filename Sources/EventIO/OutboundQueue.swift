/// A connection's queue of bytes waiting for the socket, written with `send` (one chunk) or `sendmsg` (several).
///
/// Two kinds of bytes are queued, in order. Shared chunks are copy-on-write arrays: a frame encoded once for a room
/// is queued to every subscriber without a copy, as one reference and a range. Bytes meant for this connection
/// only (an echoed frame) can be copied into the queue's own buffer, which is reused once everything is written, so
/// a steady stream of small frames costs no allocation; consecutive copied bytes go out as one vector. The queue
/// counts its bytes so the layer above can apply watermarks and limits.
///
/// The queue value is one reference (a word): its slots, buffer and counts (`Storage`) are attached by the first
/// write and given back by `removeAll` and `releaseUnusedStorage`, so an idle connection holds a nil word.
public struct OutboundQueue {
    /// The outcome of a write attempt.
    public enum WriteOutcome: Sendable {
        /// Everything queued was written.
        case drained
        /// The socket's buffer is full; wait for writability.
        case pending
    }

    /// The slots, the buffer and the counts; nil while the queue holds nothing.
    private var storage: Storage?

    public init() {}

    /// Bytes queued and not yet written.
    public var byteCount: Int {
        guard let storage = self.storage else { return 0 }
        return storage.byteCount
    }

    /// Whether nothing is queued.
    public var isEmpty: Bool { self.byteCount == 0 }

    /// Whether the queue holds storage (chunk slots, or its own buffer kept for reuse); an idle connection's holds
    /// none once `releaseUnusedStorage` has run.
    public var holdsStorage: Bool { self.storage != nil }

    /// The storage, attached if there is none, and copied first when another queue value shares it.
    @inline(__always)
    private mutating func uniqueStorage() -> Storage {
        if self.storage == nil {
            self.storage = Storage()
        } else if !isKnownUniquelyReferenced(&self.storage) {
            self.storage = self.storage.unsafelyUnwrapped.copy()
        }
        return self.storage.unsafelyUnwrapped
    }

    /// Queues `bytes[range]` (the array is shared, not copied).
    ///
    /// - Parameters:
    ///   - bytes: the storage.
    ///   - range: the part of it to send.
    @inline(__always)
    public mutating func append(_ bytes: [UInt8], range: Range<Int>) {
        guard !range.isEmpty else { return }
        self.uniqueStorage().append(bytes, range: range)
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
        guard bytes.baseAddress != nil, bytes.count > 0 else { return }
        self.uniqueStorage().append(copying: bytes)
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
        self.uniqueStorage().appendBytes(count: count, body)
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
        self.uniqueStorage().appendBytes(upTo: maximumCount, body)
    }

    /// Drops everything queued (the connection is going away), and the storage with it.
    public mutating func removeAll() {
        self.storage = nil
    }

    /// Drops what is queued except the rest of a chunk the socket took only part of, so the peer never receives a
    /// unit cut short. Every append is a whole unit (a frame, a handshake answer) and consecutive copied bytes are
    /// whole units too, so what stays ends on a unit boundary and what is queued next follows it intact.
    ///
    /// - Returns: how many bytes stay queued.
    @discardableResult
    public mutating func removeAllButPartlyWrittenChunk() -> Int {
        guard self.storage != nil else { return 0 }
        let kept = self.uniqueStorage().removeAllButPartlyWrittenChunk()
        if kept == 0 { self.storage = nil }
        return kept
    }

    /// Releases the buffers kept for reuse when nothing is queued, so an idle connection holds none.
    public mutating func releaseUnusedStorage() {
        guard let storage = self.storage, storage.byteCount == 0 else { return }
        self.storage = nil
    }

    /// Writes as much as the socket takes.
    ///
    /// - Parameter fd: the socket.
    public mutating func write(to fd: Int32) throws(IOError) -> WriteOutcome {
        guard self.storage != nil else { return .drained }
        return try self.uniqueStorage().write(to: fd)
    }
}
