#if canImport(Glibc)
internal import Glibc
#endif
internal import CWebSocket

/// A connection's queue of bytes waiting for the socket, written with `writev`.
///
/// Chunks are shared copy-on-write arrays: a frame encoded once for a room is queued to every subscriber without a
/// copy. The queue counts its bytes so the layer above can apply watermarks and limits.
public struct OutboundQueue {
    private struct Chunk {
        var bytes: [UInt8]
        var start: Int
        var end: Int
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

    private var chunks: [Chunk] = []
    private var head = 0
    /// Bytes queued and not yet written.
    public private(set) var byteCount = 0

    public init() {}

    /// Whether nothing is queued.
    public var isEmpty: Bool { self.byteCount == 0 }

    /// Queues `bytes[range]` (the array is shared, not copied).
    ///
    /// - Parameters:
    ///   - bytes: the storage.
    ///   - range: the part of it to send.
    @inline(__always)
    public mutating func append(_ bytes: [UInt8], range: Range<Int>) {
        guard !range.isEmpty else { return }
        self.chunks.append(Chunk(bytes: bytes, start: range.lowerBound, end: range.upperBound))
        self.byteCount += range.count
    }

    /// Queues a whole array.
    @inline(__always)
    public mutating func append(_ bytes: [UInt8]) {
        self.append(bytes, range: 0..<bytes.count)
    }

    /// Drops everything queued (the connection is going away).
    public mutating func removeAll() {
        self.chunks = []
        self.head = 0
        self.byteCount = 0
    }

    /// Writes as much as the socket takes.
    ///
    /// - Parameter fd: the socket.
    public mutating func write(to fd: Int32) throws(IOError) -> WriteOutcome {
        while self.head < self.chunks.count {
            let vectorCount = min(Self.vectorsPerCall, self.chunks.count - self.head)
            let result = withUnsafeTemporaryAllocation(of: iovec.self, capacity: vectorCount) { vectors in
                self.writeVectors(fd, vectors, first: self.head, filled: 0, count: vectorCount)
            }
            guard case .processed(var written) = try result.get() else { return .pending }
            self.byteCount -= written
            while written > 0 {
                let available = self.chunks[self.head].end - self.chunks[self.head].start
                if written >= available {
                    written -= available
                    self.chunks[self.head] = Chunk(bytes: [], start: 0, end: 0)
                    self.head += 1
                } else {
                    self.chunks[self.head].start += written
                    written = 0
                }
            }
            self.compact()
        }
        return .drained
    }

    /// Pins each chunk's storage with `withUnsafeBytes` (recursively, so every pointer stays valid during the
    /// one `writev` call), then writes them together.
    private func writeVectors(
        _ fd: Int32,
        _ vectors: UnsafeMutableBufferPointer<iovec>,
        first: Int,
        filled: Int,
        count: Int
    ) -> Result<IOResult<Int>, IOError> {
        if filled == count {
            return Result { () throws(IOError) in
                try Socket.writev(fd, UnsafePointer(vectors.baseAddress!), count: Int32(count))
            }
        }
        let chunk = self.chunks[first + filled]
        return chunk.bytes.withUnsafeBytes { bytes in
            vectors[filled] = iovec(
                iov_base: UnsafeMutableRawPointer(mutating: bytes.baseAddress! + chunk.start),
                iov_len: chunk.end - chunk.start
            )
            return self.writeVectors(fd, vectors, first: first, filled: filled + 1, count: count)
        }
    }

    private mutating func compact() {
        if self.head == self.chunks.count {
            self.chunks.removeAll(keepingCapacity: self.chunks.capacity <= 64)
            self.head = 0
        } else if self.head > 32 && self.head * 2 > self.chunks.count {
            self.chunks.removeFirst(self.head)
            self.head = 0
        }
    }
}
