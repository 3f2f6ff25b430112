/// Writes frames (RFC 6455 §5.2).
///
/// A server frame is built once into a `WebSocketOutboundFrame`: the payload is written after room for the
/// largest header, then the header is written into that room right in front of it, so the payload is never
/// copied to make space and the finished bytes can be queued to any number of connections.
public enum WebSocketFrameEncoder {
    /// Writes a frame header so that it ends exactly at `end` in `buffer`.
    ///
    /// - Parameters:
    ///   - header: the header to write.
    ///   - buffer: the destination, with at least `header.encodedSize` bytes before `end`.
    ///   - end: where the payload starts.
    /// - Returns: the index where the header starts.
    @discardableResult
    public static func writeHeader(
        _ header: WebSocketFrameHeader,
        into buffer: UnsafeMutableRawBufferPointer,
        endingAt end: Int
    ) -> Int {
        let start = end - header.encodedSize
        var first = header.opcode.rawValue
        if header.fin { first |= 0x80 }
        if header.rsv1 { first |= 0x40 }
        if header.rsv2 { first |= 0x20 }
        if header.rsv3 { first |= 0x10 }
        buffer[start] = first
        let maskBit: UInt8 = header.maskingKey == nil ? 0 : 0x80
        var index = start + 1
        let length = header.payloadLength
        if length < 126 {
            buffer[index] = maskBit | UInt8(length)
            index += 1
        } else if length <= 0xFFFF {
            buffer[index] = maskBit | 126
            buffer[index + 1] = UInt8(length >> 8)
            buffer[index + 2] = UInt8(length & 0xFF)
            index += 3
        } else {
            buffer[index] = maskBit | 127
            for byte in 0..<8 {
                buffer[index + 1 + byte] = UInt8(truncatingIfNeeded: UInt64(length) >> UInt64(56 - 8 * byte))
            }
            index += 9
        }
        if let key = header.maskingKey {
            buffer[index] = key.bytes.0
            buffer[index + 1] = key.bytes.1
            buffer[index + 2] = key.bytes.2
            buffer[index + 3] = key.bytes.3
        }
        return start
    }

    /// Encodes a whole frame into new storage.
    ///
    /// - Parameters:
    ///   - opcode: the frame's opcode.
    ///   - payload: the payload; masked in the output when `maskingKey` is given (client frames).
    ///   - fin: whether this is the final fragment.
    ///   - rsv1: the compression bit.
    ///   - maskingKey: the key for client frames; nil for server frames.
    public static func encode(
        opcode: WebSocketOpcode,
        payload: UnsafeRawBufferPointer,
        fin: Bool = true,
        rsv1: Bool = false,
        maskingKey: WebSocketMaskingKey? = nil
    ) -> WebSocketOutboundFrame {
        var frame = WebSocketOutboundFrame(payloadCapacity: payload.count)
        frame.appendPayload(payload)
        frame.finish(opcode: opcode, fin: fin, rsv1: rsv1, maskingKey: maskingKey)
        return frame
    }

    /// Encodes a Close frame with a code and a reason, truncating the reason at a character boundary so the
    /// payload stays within the 125 bytes of a control frame.
    ///
    /// - Parameters:
    ///   - code: the status code; nil sends an empty Close frame.
    ///   - reason: a short human-readable reason.
    ///   - maskingKey: the key for client frames; nil for server frames.
    public static func encodeClose(
        code: WebSocketCloseCode?,
        reason: String = "",
        maskingKey: WebSocketMaskingKey? = nil
    ) -> WebSocketOutboundFrame {
        var payload: [UInt8] = []
        if let code {
            payload.append(UInt8(code.rawValue >> 8))
            payload.append(UInt8(code.rawValue & 0xFF))
            var reasonBytes = Array(reason.utf8)
            if reasonBytes.count > 123 {
                // Cut at a character boundary: never leave half of a multi-byte character.
                var cut = 123
                while cut > 0 && reasonBytes[cut] & 0xC0 == 0x80 { cut -= 1 }
                reasonBytes.removeSubrange(cut...)
            }
            payload.append(contentsOf: reasonBytes)
        }
        return payload.withUnsafeBytes { Self.encode(opcode: .connectionClose, payload: $0, maskingKey: maskingKey) }
    }
}

/// The bytes of one encoded frame, built with header room in front of the payload.
///
/// Append the payload (or let a compressor append it), then `finish` writes the header in front. The storage is
/// a copy-on-write array, so queueing the same frame to many connections shares one buffer.
public struct WebSocketOutboundFrame: Sendable {
    /// Header room plus payload; the frame is `storage[startIndex...]`.
    public private(set) var storage: [UInt8]
    /// Where the frame starts in `storage`, valid after `finish`.
    public private(set) var startIndex: Int

    /// - Parameter payloadCapacity: the expected payload size, to reserve storage once.
    public init(payloadCapacity: Int = 0) {
        self.storage = []
        self.storage.reserveCapacity(WebSocketFrameHeader.maximumSize + payloadCapacity)
        self.storage.append(contentsOf: repeatElement(0, count: WebSocketFrameHeader.maximumSize))
        self.startIndex = WebSocketFrameHeader.maximumSize
    }

    /// The payload written so far.
    public var payloadCount: Int { self.storage.count - WebSocketFrameHeader.maximumSize }

    /// The encoded frame's size on the wire.
    public var count: Int { self.storage.count - self.startIndex }

    /// Appends payload bytes.
    public mutating func appendPayload(_ bytes: UnsafeRawBufferPointer) {
        self.storage.append(contentsOf: bytes)
    }

    /// Lets a writer (such as a compressor) append payload bytes to the storage directly.
    public mutating func withStorage<Result>(_ body: (inout [UInt8]) throws -> Result) rethrows -> Result {
        try body(&self.storage)
    }

    /// Writes the header in front of the payload, masking the payload when a key is given.
    ///
    /// - Parameters:
    ///   - opcode: the frame's opcode.
    ///   - fin: whether this is the final fragment.
    ///   - rsv1: the compression bit.
    ///   - maskingKey: the key for client frames; nil for server frames.
    public mutating func finish(
        opcode: WebSocketOpcode,
        fin: Bool = true,
        rsv1: Bool = false,
        maskingKey: WebSocketMaskingKey? = nil
    ) {
        let payloadStart = WebSocketFrameHeader.maximumSize
        let header = WebSocketFrameHeader(
            fin: fin,
            rsv1: rsv1,
            opcode: opcode,
            maskingKey: maskingKey,
            payloadLength: self.storage.count - payloadStart
        )
        self.startIndex = self.storage.withUnsafeMutableBytes { buffer in
            if let maskingKey {
                maskingKey.apply(to: UnsafeMutableRawBufferPointer(rebasing: buffer[payloadStart...]))
            }
            return WebSocketFrameEncoder.writeHeader(header, into: buffer, endingAt: payloadStart)
        }
    }

    /// Whether the finished frame has RSV1 set: its payload is compressed (RFC 7692).
    public var isCompressed: Bool { self.storage[self.startIndex] & 0x40 != 0 }

    /// The encoded frame as an array (a copy; for tests and rare paths).
    public var bytes: [UInt8] { Array(self.storage[self.startIndex...]) }
}
