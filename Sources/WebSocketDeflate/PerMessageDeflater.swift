import CWebSocket
import WebSocketCore

/// Compresses whole messages for permessage-deflate (RFC 7692 §7.2.1) with zlib.
///
/// The zlib stream is allocated on the first non-empty message, so a connection that never sends one costs nothing.
public final class PerMessageDeflater: WebSocketMessageDeflater {
    /// The most input bytes handed to zlib per call (its counters are 32-bit).
    private static let maximumInputPiece = 1 << 30
    /// The most output bytes reserved per zlib call.
    private static let maximumStep = 1 << 20

    private let zlibWindowBits: Int
    private let compressionLevel: Int
    private let memoryLevel: Int
    private let resetsAfterEachMessage: Bool
    /// Allocated on first use; zlib keeps a pointer back to it, so it must never move.
    private var stream: UnsafeMutablePointer<z_stream>?
    /// Whether the window holds earlier messages that the next one may refer back to.
    private var windowHoldsHistory = false

    /// Creates a deflater; no zlib memory is allocated until the first message.
    ///
    /// - Parameters:
    ///   - windowBits: the base-2 logarithm of the largest window the peer may need to inflate our output, 8...15.
    ///     zlib cannot write raw deflate with an 8-bit window, so 8 compresses with a 9-bit window: zlib never emits
    ///     a match farther back than `(1 << windowBits) - 262` bytes (its window less the minimum lookahead), which
    ///     for 9 bits is 250 bytes, within the 256 bytes of an 8-bit window.
    ///   - compressionLevel: the zlib level, 0...9.
    ///   - memoryLevel: the zlib memory level, 1...9.
    ///   - resetsAfterEachMessage: whether to start every message with an empty window (`no_context_takeover`).
    public init(windowBits: Int, compressionLevel: Int, memoryLevel: Int, resetsAfterEachMessage: Bool) {
        precondition((8...15).contains(windowBits), "deflate windowBits must be in 8...15")
        precondition((0...9).contains(compressionLevel), "deflate compressionLevel must be in 0...9")
        precondition((1...9).contains(memoryLevel), "deflate memoryLevel must be in 1...9")
        self.zlibWindowBits = max(windowBits, 9)
        self.compressionLevel = compressionLevel
        self.memoryLevel = memoryLevel
        self.resetsAfterEachMessage = resetsAfterEachMessage
    }

    deinit {
        if let stream = self.stream {
            deflateEnd(stream)
            stream.deinitialize(count: 1)
            stream.deallocate()
        }
    }

    /// Compresses one message and appends the payload to send, without the trailing `00 00 FF FF`.
    ///
    /// - Parameters:
    ///   - message: the message payload.
    ///   - output: where the compressed bytes are appended; existing bytes are left alone.
    public func deflate(_ message: UnsafeRawBufferPointer, into output: inout [UInt8]) {
        guard let base = message.baseAddress?.assumingMemoryBound(to: Bytef.self), message.count > 0 else {
            // RFC 7692 §7.2.3.6: an empty message is a single 0x00 byte.
            output.append(0x00)
            return
        }
        guard let stream = self.openStream() else {
            // zlib could not allocate its state: send the message in stored blocks, which are valid deflate data
            // and leave the peer's window consistent with a compressor that starts fresh later.
            Self.appendStoredBlocks(message, into: &output)
            return
        }
        let start = output.count
        var offset = 0
        while offset < message.count {
            let piece = min(message.count - offset, Self.maximumInputPiece)
            let isLastPiece = offset + piece == message.count
            let flush = isLastPiece ? Z_SYNC_FLUSH : Z_NO_FLUSH
            stream.pointee.next_in = UnsafeMutablePointer(mutating: base + offset)
            stream.pointee.avail_in = uInt(piece)
            repeat {
                // Room for the whole remaining input in one call when it is small, and always well over the six
                // bytes zlib asks for, so that a flush is not repeated when the output fills up.
                let bound = Int(deflateBound(stream, uLong(stream.pointee.avail_in))) + 16
                let step = min(max(bound, 64), Self.maximumStep)
                output.append(contentsOf: repeatElement(0, count: step))
                let status = output.withUnsafeMutableBufferPointer { buffer in
                    stream.pointee.next_out = buffer.baseAddress! + (buffer.count - step)
                    stream.pointee.avail_out = uInt(step)
                    return CWebSocket.deflate(stream, flush)
                }
                output.removeLast(Int(stream.pointee.avail_out))
                // Z_BUF_ERROR only means that no progress was possible, which ends this loop too.
                precondition(status == Z_OK || status == Z_BUF_ERROR, "zlib deflate failed: \(status)")
            } while stream.pointee.avail_out == 0
            offset += piece
        }
        stream.pointee.next_in = nil
        stream.pointee.next_out = nil
        // A sync flush ends with an empty stored block, 00 00 FF FF, which RFC 7692 §7.2.1 removes.
        let count = output.count
        precondition(
            count - start >= 4 && output[count - 4] == 0x00 && output[count - 3] == 0x00
                && output[count - 2] == 0xFF && output[count - 1] == 0xFF,
            "zlib sync flush did not end with 00 00 FF FF"
        )
        output.removeLast(4)
        if self.resetsAfterEachMessage {
            deflateReset(stream)
        } else {
            self.windowHoldsHistory = true
        }
    }

    /// Empties the window, so the next message refers to nothing sent before it.
    ///
    /// Call it when a message compressed elsewhere (without context, such as one compressed once for many
    /// connections) was sent on this connection: the peer's inflater now holds that message in its window, and a
    /// match into this deflater's own history would decode against the wrong bytes.
    public func resetWindow() {
        guard self.windowHoldsHistory, let stream = self.stream else { return }
        deflateReset(stream)
        self.windowHoldsHistory = false
    }

    private func openStream() -> UnsafeMutablePointer<z_stream>? {
        if let stream = self.stream {
            return stream
        }
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        // Negative window bits: a raw deflate stream, without zlib header or checksum.
        let status = CWebSocket_deflateInit2(
            stream,
            Int32(self.compressionLevel),
            Z_DEFLATED,
            -Int32(self.zlibWindowBits),
            Int32(self.memoryLevel),
            Z_DEFAULT_STRATEGY
        )
        guard status == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            return nil
        }
        self.stream = stream
        return stream
    }

    /// Appends `message` as non-final stored (uncompressed) deflate blocks of at most 65535 bytes each.
    private static func appendStoredBlocks(_ message: UnsafeRawBufferPointer, into output: inout [UInt8]) {
        var offset = 0
        while offset < message.count {
            let length = min(message.count - offset, 0xFFFF)
            // BFINAL 0, BTYPE 00, padding to the byte boundary, then LEN and NLEN in little-endian order.
            output.append(0x00)
            output.append(UInt8(truncatingIfNeeded: length))
            output.append(UInt8(truncatingIfNeeded: length >> 8))
            output.append(UInt8(truncatingIfNeeded: ~length))
            output.append(UInt8(truncatingIfNeeded: ~length >> 8))
            output.append(contentsOf: UnsafeRawBufferPointer(rebasing: message[offset..<(offset + length)]))
            offset += length
        }
    }
}
