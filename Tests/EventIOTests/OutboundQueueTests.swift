import Glibc
import Testing

@testable import EventIO

/// A connected pair of non-blocking Unix stream sockets, closed by `close()`.
private struct SocketPair {
    let writer: Int32
    let reader: Int32

    init() {
        var fds: [Int32] = [0, 0]
        let created = fds.withUnsafeMutableBufferPointer {
            socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0, $0.baseAddress)
        }
        precondition(created == 0, "socketpair failed")
        self.writer = fds[0]
        self.reader = fds[1]
    }

    /// Everything readable now.
    func readAvailable() -> [UInt8] {
        var result: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(self.reader, $0.baseAddress, $0.count) }
            guard count > 0 else { return result }
            result.append(contentsOf: buffer[0..<count])
        }
    }

    func close() {
        Glibc.close(self.writer)
        Glibc.close(self.reader)
    }
}

@Suite struct OutboundQueueTests {
    @Test func sharedAndCopiedBytesGoOutInOrder() throws {
        let pair = SocketPair()
        defer { pair.close() }
        var queue = OutboundQueue()
        let shared: [UInt8] = Array("__shared__".utf8)
        Array("one ".utf8).withUnsafeBytes { queue.append(copying: $0) }
        Array("two ".utf8).withUnsafeBytes { queue.append(copying: $0) }
        queue.append(shared, range: 2..<8)
        queue.appendBytes(count: 6) { buffer in
            for (index, byte) in " three".utf8.enumerated() { buffer[index] = byte }
        }
        queue.append(Array(" four".utf8))
        #expect(queue.byteCount == 4 + 4 + 6 + 6 + 5)
        #expect(try queue.write(to: pair.writer) == .drained)
        #expect(queue.isEmpty)
        #expect(String(decoding: pair.readAvailable(), as: UTF8.self) == "one two shared three four")
    }

    @Test func bytesWrittenInPlaceUpToABoundKeepOnlyWhatWasWritten() throws {
        let pair = SocketPair()
        defer { pair.close() }
        var queue = OutboundQueue()
        queue.appendBytes(upTo: 16) { buffer in
            for (index, byte) in "four".utf8.enumerated() { buffer[index] = byte }
            return 4
        }
        queue.appendBytes(upTo: 8) { _ in 0 }
        Array(" more".utf8).withUnsafeBytes { queue.append(copying: $0) }
        #expect(queue.byteCount == 9)
        #expect(try queue.write(to: pair.writer) == .drained)
        #expect(String(decoding: pair.readAvailable(), as: UTF8.self) == "four more")
    }

    @Test func reusesItsBufferAfterDraining() throws {
        let pair = SocketPair()
        defer { pair.close() }
        var queue = OutboundQueue()
        for round in 0..<100 {
            let text = "message \(round);"
            for _ in 0..<3 { Array(text.utf8).withUnsafeBytes { queue.append(copying: $0) } }
            #expect(try queue.write(to: pair.writer) == .drained)
            #expect(String(decoding: pair.readAvailable(), as: UTF8.self) == text + text + text)
        }
        queue.releaseUnusedStorage()
        #expect(queue.isEmpty)
    }

    @Test func keepsOrderAcrossPartialWritesAndManyChunks() throws {
        let pair = SocketPair()
        defer { pair.close() }
        var small: Int32 = 4096
        setsockopt(pair.writer, SOL_SOCKET, SO_SNDBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        var queue = OutboundQueue()
        var expected: [UInt8] = []
        // More than the socket buffer, alternating shared and copied chunks, more chunks than one writev takes.
        let frame = [UInt8](repeating: 0x41, count: 3000)
        for index in 0..<400 {
            if index % 2 == 0 {
                queue.append(frame, range: 0..<(1000 + index))
                expected.append(contentsOf: frame[0..<(1000 + index)])
            } else {
                let bytes = [UInt8](repeating: UInt8(index & 0x3F) + 0x30, count: 500 + index)
                bytes.withUnsafeBytes { queue.append(copying: $0) }
                expected.append(contentsOf: bytes)
            }
        }
        var received: [UInt8] = []
        var rounds = 0
        while try queue.write(to: pair.writer) == .pending {
            received.append(contentsOf: pair.readAvailable())
            // More bytes queued while a write is pending go after what is already queued.
            if rounds < 3 {
                let bytes = [UInt8](repeating: 0x7A, count: 777)
                bytes.withUnsafeBytes { queue.append(copying: $0) }
                expected.append(contentsOf: bytes)
            }
            rounds += 1
        }
        received.append(contentsOf: pair.readAvailable())
        #expect(rounds > 0)
        #expect(queue.isEmpty)
        #expect(received == expected)
    }

    @Test func aCopiedQueueDoesNotShareItsBuffer() throws {
        let pair = SocketPair()
        defer { pair.close() }
        var first = OutboundQueue()
        Array("abc".utf8).withUnsafeBytes { first.append(copying: $0) }
        var second = first
        Array("def".utf8).withUnsafeBytes { second.append(copying: $0) }
        Array("xyz".utf8).withUnsafeBytes { first.append(copying: $0) }
        #expect(try second.write(to: pair.writer) == .drained)
        #expect(String(decoding: pair.readAvailable(), as: UTF8.self) == "abcdef")
        #expect(try first.write(to: pair.writer) == .drained)
        #expect(String(decoding: pair.readAvailable(), as: UTF8.self) == "abcxyz")
    }

    @Test func removeAllDropsEverything() throws {
        var queue = OutboundQueue()
        Array("abc".utf8).withUnsafeBytes { queue.append(copying: $0) }
        queue.append(Array("def".utf8))
        queue.removeAll()
        #expect(queue.isEmpty)
        #expect(queue.byteCount == 0)
    }

    /// Fills the socket until a write is cut short inside one of `units`, then drops the rest of the queue.
    private func cutShort(
        _ units: [[UInt8]], shared: Bool, _ pair: SocketPair
    ) throws -> (queue: OutboundQueue, kept: Int, received: [UInt8]) {
        var small: Int32 = 4096
        setsockopt(pair.writer, SOL_SOCKET, SO_SNDBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        var queue = OutboundQueue()
        for unit in units {
            if shared { queue.append(unit) } else { unit.withUnsafeBytes { queue.append(copying: $0) } }
        }
        #expect(try queue.write(to: pair.writer) == .pending)
        let kept = queue.removeAllButPartlyWrittenChunk()
        return (queue, kept, pair.readAvailable())
    }

    /// Shared chunks hold one unit each, so only the rest of the one cut short stays; copied units share one chunk,
    /// so every unit after the cut stays, whole.
    @Test(
        "Dropping the backlog keeps the rest of a partly written chunk and writes new bytes after it",
        arguments: [true, false])
    func droppingTheBacklogKeepsThePartlyWrittenChunk(shared: Bool) throws {
        let pair = SocketPair()
        defer { pair.close() }
        let units = (0..<64).map { [UInt8](repeating: UInt8($0), count: 10_000) }
        var (queue, kept, received) = try self.cutShort(units, shared: shared, pair)
        #expect(kept > 0)
        if shared { #expect(kept < 10_000) }
        Array("CLOSE".utf8).withUnsafeBytes { queue.append(copying: $0) }
        while try queue.write(to: pair.writer) == .pending { received += pair.readAvailable() }
        received += pair.readAvailable()
        // Whole units, then the bytes queued after the drop: nothing cut short, nothing out of order.
        #expect((received.count - 5) % 10_000 == 0)
        let whole = (received.count - 5) / 10_000
        #expect(Array(received.prefix(whole * 10_000)) == Array(units.prefix(whole).joined()))
        #expect(String(decoding: received.suffix(5), as: UTF8.self) == "CLOSE")
    }

    @Test func droppingTheBacklogBeforeAnyPartialWriteDropsEverything() throws {
        var queue = OutboundQueue()
        Array("abc".utf8).withUnsafeBytes { queue.append(copying: $0) }
        queue.append(Array("def".utf8))
        #expect(queue.removeAllButPartlyWrittenChunk() == 0)
        #expect(queue.isEmpty)
    }
}
