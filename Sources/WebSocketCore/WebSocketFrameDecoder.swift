/// Reads frames out of received bytes (RFC 6455 §5.2).
///
/// The decoder keeps no copy of the bytes: it reads the header where it stands in the caller's buffer and hands
/// back the payload's position in that buffer, unmasked in place. The frame size limit is checked as soon as the
/// length field has arrived, before any of the payload needs to be buffered.
public struct WebSocketFrameDecoder: Sendable {
    /// The result of one decoding step.
    public enum Step: Hashable, Sendable {
        /// More bytes are needed; `totalFrameSize` is the frame's full size once its header is known, so the caller
        /// can reserve room for it (nil while the header itself is incomplete).
        case needMoreData(totalFrameSize: Int?)
        /// A whole frame: its header, and where its unmasked payload lies in the buffer.
        case frame(WebSocketFrameHeader, payloadStart: Int, payloadEnd: Int)
        /// The bytes break a framing rule; the connection must be failed with the violation's close code.
        case violation(WebSocketProtocolViolation)
    }

    /// The largest frame payload accepted; longer frames fail with 1009 before their payload is read.
    public var maximumFrameSize: Int
    /// Whether frames must be masked (a server decoding client frames) or must not be (a client decoding server
    /// frames).
    public var expectsMaskedFrames: Bool

    /// - Parameters:
    ///   - maximumFrameSize: the largest frame payload accepted, in bytes.
    ///   - expectsMaskedFrames: true on the server side, where every client frame must be masked.
    public init(maximumFrameSize: Int, expectsMaskedFrames: Bool = true) {
        self.maximumFrameSize = maximumFrameSize
        self.expectsMaskedFrames = expectsMaskedFrames
    }

    /// Decodes the frame that starts at `offset` in `buffer`.
    ///
    /// - Parameters:
    ///   - buffer: received bytes; the payload of a whole frame is unmasked in place.
    ///   - offset: where the frame starts.
    /// - Returns: what was found; a `.frame` occupies `offset..<payloadEnd`.
    public func decodeFrame(in buffer: UnsafeMutableRawBufferPointer, at offset: Int) -> Step {
        let available = buffer.count - offset
        guard available >= 2 else { return .needMoreData(totalFrameSize: nil) }
        let first = buffer[offset]
        let second = buffer[offset + 1]
        let opcode = WebSocketOpcode(rawValue: first & 0x0F)!
        let masked = second & 0x80 != 0
        let shortLength = Int(second & 0x7F)

        // Checks that need only the first two bytes come first, so a bad frame is failed at once.
        guard opcode.isDefined else { return .violation(.reservedOpcode) }
        if opcode.isControl {
            guard first & 0x80 != 0 else { return .violation(.fragmentedControlFrame) }
            guard shortLength <= 125 else { return .violation(.controlFrameTooLong) }
        }
        guard masked == self.expectsMaskedFrames else {
            return .violation(masked ? .maskedServerFrame : .unmaskedClientFrame)
        }

        var headerSize = 2
        let payloadLength: Int
        switch shortLength {
        case 126:
            guard available >= 4 else { return .needMoreData(totalFrameSize: nil) }
            payloadLength = Int(buffer[offset + 2]) << 8 | Int(buffer[offset + 3])
            guard payloadLength >= 126 else { return .violation(.nonMinimalLength) }
            headerSize = 4
        case 127:
            guard available >= 10 else { return .needMoreData(totalFrameSize: nil) }
            var length: UInt64 = 0
            for index in 2..<10 { length = length << 8 | UInt64(buffer[offset + index]) }
            guard length & (1 << 63) == 0 else { return .violation(.lengthTopBitSet) }
            guard length > 0xFFFF else { return .violation(.nonMinimalLength) }
            guard length <= UInt64(self.maximumFrameSize) else { return .violation(.frameTooLarge) }
            payloadLength = Int(length)
            headerSize = 10
        default:
            payloadLength = shortLength
        }
        guard payloadLength <= self.maximumFrameSize else { return .violation(.frameTooLarge) }

        var maskingKey: WebSocketMaskingKey?
        if masked {
            guard available >= headerSize + 4 else { return .needMoreData(totalFrameSize: nil) }
            let base = offset + headerSize
            maskingKey = WebSocketMaskingKey(buffer[base], buffer[base + 1], buffer[base + 2], buffer[base + 3])
            headerSize += 4
        }
        let frameSize = headerSize + payloadLength
        guard available >= frameSize else { return .needMoreData(totalFrameSize: frameSize) }

        let payloadStart = offset + headerSize
        let payloadEnd = payloadStart + payloadLength
        if let maskingKey, payloadLength > 0 {
            maskingKey.apply(to: UnsafeMutableRawBufferPointer(rebasing: buffer[payloadStart..<payloadEnd]))
        }
        let header = WebSocketFrameHeader(
            fin: first & 0x80 != 0,
            rsv1: first & 0x40 != 0,
            rsv2: first & 0x20 != 0,
            rsv3: first & 0x10 != 0,
            opcode: opcode,
            maskingKey: maskingKey,
            payloadLength: payloadLength
        )
        return .frame(header, payloadStart: payloadStart, payloadEnd: payloadEnd)
    }
}
