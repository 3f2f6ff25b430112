import CWebSocket
import WebSocketCore

/// Inflates permessage-deflate messages (RFC 7692 §7.2.2) with zlib, one fragment at a time.
///
/// The zlib stream is allocated on the first compressed fragment, so a connection that never receives one costs
/// nothing. zlib writes at most 16 KiB at a time into a temporary buffer, and the output never grows past the
/// caller's limit, so a small frame that would inflate to gigabytes costs at most `limit` bytes plus that buffer
/// before it is rejected.
///
/// After an error the stream is reset and the output holds a partial message; the connection is expected to close.
public final class PerMessageInflater: WebSocketMessageInflater {
    /// The most output bytes produced per zlib call.
    private static let stepSize = 16 * 1024
    /// The most input bytes handed to zlib per call (its counters are 32-bit).
    private static let maximumInputPiece = 1 << 30

    private let windowBits: Int
    private let resetsAfterEachMessage: Bool
    /// Allocated on first use; zlib keeps a pointer back to it, so it must never move.
    private var stream: UnsafeMutablePointer<z_stream>?
    /// Whether a fragment of the current message so far held at least one byte.
    private var messageHasInput = false
    /// Whether the sender ended a deflate stream (BFINAL) within the current message.
    private var streamEndedInMessage = false

    /// Creates an inflater; no zlib memory is allocated until the first fragment.
    ///
    /// - Parameters:
    ///   - windowBits: the base-2 logarithm of the sender's window, 8...15 (RFC 7692 `client_max_window_bits` when
    ///     the peer is a client); a larger value than the sender uses always works.
    ///   - resetsAfterEachMessage: whether the sender resets its compressor after every message (the peer's
    ///     `no_context_takeover`), so the window can be dropped between messages.
    public init(windowBits: Int, resetsAfterEachMessage: Bool) {
        precondition((8...15).contains(windowBits), "inflate windowBits must be in 8...15")
        self.windowBits = windowBits
        self.resetsAfterEachMessage = resetsAfterEachMessage
    }

    deinit {
        if let stream = self.stream {
            inflateEnd(stream)
            stream.deinitialize(count: 1)
            stream.deallocate()
        }
    }

    /// Inflates one fragment of a compressed message and appends the output to `output`.
    ///
    /// - Parameters:
    ///   - fragment: the (unmasked) payload bytes of one frame of the message.
    ///   - isFinal: whether this is the last fragment; the RFC 7692 tail `00 00 FF FF` is then fed too.
    ///   - output: where the inflated bytes are appended.
    ///   - limit: the most bytes `output` may hold after the call.
    /// - Throws: `InflateFailure.messageTooLarge` when the output would pass `limit`, `InflateFailure.corruptData`
    ///   for an invalid deflate stream or a message that does not end on a block boundary.
    public func inflate(
        _ fragment: UnsafeRawBufferPointer,
        isFinal: Bool,
        into output: inout [UInt8],
        limit: Int
    ) throws(InflateFailure) {
        let messageIsEmpty = !self.messageHasInput && fragment.isEmpty
        self.messageHasInput = isFinal ? false : (self.messageHasInput || !fragment.isEmpty)
        if isFinal && messageIsEmpty {
            // A compressed message without any payload bytes carries no deflate block to end; read it as empty
            // rather than as a truncated block.
            return
        }
        guard let stream = self.openStream() else {
            // zlib could not allocate its state; the message cannot be read.
            throw .corruptData
        }
        var failure = self.feed(fragment, to: stream, into: &output, limit: limit)
        if failure == nil && isFinal {
            var tail: (UInt8, UInt8, UInt8, UInt8) = (0x00, 0x00, 0xFF, 0xFF)
            failure = withUnsafeBytes(of: &tail) { self.feed($0, to: stream, into: &output, limit: limit) }
            // After the tail (an empty stored block) a well-formed message leaves zlib waiting for the next block
            // header; anything else means the message stopped inside a block.
            if failure == nil && !self.streamEndedInMessage && stream.pointee.data_type & 128 == 0 {
                failure = .corruptData
            }
        }
        if let failure {
            self.messageHasInput = false
            self.streamEndedInMessage = false
            inflateReset(stream)
            throw failure
        }
        if isFinal {
            if self.resetsAfterEachMessage || self.streamEndedInMessage {
                inflateReset(stream)
            }
            self.streamEndedInMessage = false
        }
    }

    private func openStream() -> UnsafeMutablePointer<z_stream>? {
        if let stream = self.stream {
            return stream
        }
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        // Negative window bits: a raw deflate stream, without zlib header or checksum.
        guard CWebSocket_inflateInit2(stream, -Int32(self.windowBits)) == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            return nil
        }
        self.stream = stream
        return stream
    }

    /// Runs all of `input` through zlib, appending everything it produces.
    private func feed(
        _ input: UnsafeRawBufferPointer,
        to stream: UnsafeMutablePointer<z_stream>,
        into output: inout [UInt8],
        limit: Int
    ) -> InflateFailure? {
        guard let base = input.baseAddress?.assumingMemoryBound(to: Bytef.self), input.count > 0 else {
            // Nothing to feed, and nothing is pending: every call below drains zlib's output.
            return nil
        }
        return withUnsafeTemporaryAllocation(of: Bytef.self, capacity: Self.stepSize) { scratch in
            var offset = 0
            while offset < input.count {
                let piece = min(input.count - offset, Self.maximumInputPiece)
                stream.pointee.next_in = UnsafeMutablePointer(mutating: base + offset)
                stream.pointee.avail_in = uInt(piece)
                if let failure = self.drain(stream, through: scratch, into: &output, limit: limit) {
                    return failure
                }
                offset += piece
            }
            return nil
        }
    }

    /// Calls zlib until it has consumed all pending input and written all the output it can.
    private func drain(
        _ stream: UnsafeMutablePointer<z_stream>,
        through scratch: UnsafeMutableBufferPointer<Bytef>,
        into output: inout [UInt8],
        limit: Int
    ) -> InflateFailure? {
        defer {
            stream.pointee.next_out = nil
        }
        while true {
            let room = limit - output.count
            // With no room left zlib still runs, into a one-byte probe: any output at all passes the limit, none
            // means the remaining input held only block headers or the tail.
            let step = room > 0 ? min(room, scratch.count) : 1
            stream.pointee.next_out = scratch.baseAddress
            stream.pointee.avail_out = uInt(step)
            let status = CWebSocket.inflate(stream, Z_SYNC_FLUSH)
            let produced = step - Int(stream.pointee.avail_out)
            if produced > 0 {
                guard room > 0 else { return .messageTooLarge }
                let needed = output.count + produced
                if output.capacity < needed {
                    // Grow geometrically, but never past the limit.
                    output.reserveCapacity(min(max(needed, output.capacity * 2), limit))
                }
                output.append(contentsOf: UnsafeBufferPointer(rebasing: scratch[0..<produced]))
            }
            switch status {
            case Z_OK:
                // A full output buffer may hide more output; otherwise zlib stopped because the input ran out.
                if stream.pointee.avail_out > 0 && stream.pointee.avail_in == 0 {
                    return nil
                }
            case Z_BUF_ERROR:
                // No progress was possible: zlib needs more input, which only the next fragment can bring.
                return stream.pointee.avail_in == 0 ? nil : .corruptData
            case Z_STREAM_END:
                // The sender ended the deflate stream (a block with BFINAL set) and so dropped its window. Whatever
                // follows starts a new stream, and the message need not end on a block boundary: the tail may be
                // left incomplete, as other receivers ignore bytes after the end of the stream.
                self.streamEndedInMessage = true
                let remaining = stream.pointee.avail_in
                let next = stream.pointee.next_in
                inflateReset(stream)
                if remaining == 0 {
                    return nil
                }
                stream.pointee.next_in = next
                stream.pointee.avail_in = remaining
            default:
                // Z_DATA_ERROR, Z_NEED_DICT, Z_MEM_ERROR, Z_STREAM_ERROR.
                return .corruptData
            }
        }
    }
}
