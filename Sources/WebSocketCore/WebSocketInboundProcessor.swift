/// Turns received bytes into messages and control frames, enforcing every receive-side rule of RFC 6455 and 7692.
///
/// It joins fragments, inflates compressed messages, validates text as UTF-8 fragment by fragment (so a bad
/// message fails at its first bad fragment), validates Close frames, and applies the size and fragment limits.
/// It performs no I/O: the caller feeds bytes and acts on the events (send a pong, echo a close, fail the
/// connection with a code).
public struct WebSocketInboundProcessor {
    /// Receive-side limits; every one is checked before the bytes it guards are kept.
    public struct Limits: Hashable, Sendable {
        /// Largest payload of a single frame, in bytes (a larger one fails with 1009 before it is buffered).
        public var maximumFrameSize: Int
        /// Largest message, in bytes after decompression (fails with 1009).
        public var maximumMessageSize: Int
        /// Most frames in one message (fails with 1008).
        public var maximumFragmentsPerMessage: Int

        /// - Parameters:
        ///   - maximumFrameSize: largest frame payload in bytes; default 1 MiB.
        ///   - maximumMessageSize: largest message in bytes, counted after decompression; default 1 MiB.
        ///   - maximumFragmentsPerMessage: most frames in one message; default 1,024.
        public init(
            maximumFrameSize: Int = 1 << 20,
            maximumMessageSize: Int = 1 << 20,
            maximumFragmentsPerMessage: Int = 1024
        ) {
            self.maximumFrameSize = maximumFrameSize
            self.maximumMessageSize = maximumMessageSize
            self.maximumFragmentsPerMessage = maximumFragmentsPerMessage
        }
    }

    /// Something the peer sent. Payload pointers are valid only during the callback that receives them.
    public enum Event {
        /// A whole text message, valid UTF-8.
        case text(UnsafeRawBufferPointer)
        /// A whole binary message.
        case binary(UnsafeRawBufferPointer)
        /// A ping; answer with a pong carrying the same payload.
        case ping(UnsafeRawBufferPointer)
        /// A pong.
        case pong(UnsafeRawBufferPointer)
        /// A valid Close frame; `code` is nil when the frame carried none (1005). Reply with a Close and end.
        case close(code: WebSocketCloseCode?, reason: UnsafeRawBufferPointer)
        /// The peer broke a rule; send a Close with `violation.closeCode` and end the connection.
        case violation(WebSocketProtocolViolation)
    }

    /// What one call to `process` did.
    public struct Progress: Hashable, Sendable {
        /// Bytes of the buffer that were used and can be dropped.
        public var consumed: Int
        /// The full size of the next frame, when its header has arrived but not all of its payload.
        public var nextFrameSize: Int?
        /// True after a close or a violation: the processor takes no more bytes.
        public var isFinished: Bool
    }

    private enum MessageState {
        case idle
        /// `fragments` counts up to the limit (and at most `UInt32.max`): four bytes, so the processor stays small.
        case assembling(opcode: WebSocketOpcode, compressed: Bool, fragments: UInt32)
    }

    // One processor per connection: the fields are ordered so that the small ones share a word.
    private let limits: Limits
    private let inflater: (any WebSocketMessageInflater)?
    /// The message being assembled (fragmented or compressed); empty, holding no storage, between messages.
    private var assembled: [UInt8] = []
    private var utf8 = UTF8Validator()
    private var state: MessageState = .idle
    private let expectsMaskedFrames: Bool
    private var isFinished = false

    /// - Parameters:
    ///   - limits: the receive limits.
    ///   - inflater: the negotiated permessage-deflate inflater, or nil when no compression was agreed (RSV1 then
    ///     fails the connection).
    ///   - expectsMaskedFrames: true for a server reading client frames.
    public init(limits: Limits, inflater: (any WebSocketMessageInflater)? = nil, expectsMaskedFrames: Bool = true) {
        self.limits = limits
        self.inflater = inflater
        self.expectsMaskedFrames = expectsMaskedFrames
    }

    /// Decodes every whole frame in `buffer` and reports each event to `handle`.
    ///
    /// - Parameters:
    ///   - buffer: received bytes, starting at a frame boundary; payloads are unmasked in place.
    ///   - handle: called once per event, in order. It stops being called after `.close` or `.violation`.
    /// - Returns: how many bytes were consumed, and what is needed next.
    public mutating func process(
        _ buffer: UnsafeMutableRawBufferPointer,
        _ handle: (Event) -> Void
    ) -> Progress {
        let decoder = WebSocketFrameDecoder(
            maximumFrameSize: self.limits.maximumFrameSize, expectsMaskedFrames: self.expectsMaskedFrames)
        var offset = 0
        while !self.isFinished {
            switch decoder.decodeFrame(in: buffer, at: offset) {
            case .needMoreData(let totalFrameSize):
                return Progress(consumed: offset, nextFrameSize: totalFrameSize, isFinished: false)
            case .violation(let violation):
                self.finish(violation, handle)
            case .frame(let header, let start, let end):
                offset = end
                let payload = UnsafeRawBufferPointer(rebasing: buffer[start..<end])
                if let violation = self.handleFrame(header, payload, handle) {
                    self.finish(violation, handle)
                }
            }
        }
        return Progress(consumed: offset, nextFrameSize: nil, isFinished: true)
    }

    private mutating func finish(_ violation: WebSocketProtocolViolation, _ handle: (Event) -> Void) {
        self.isFinished = true
        self.assembled = []
        handle(.violation(violation))
    }

    private mutating func handleFrame(
        _ header: WebSocketFrameHeader,
        _ payload: UnsafeRawBufferPointer,
        _ handle: (Event) -> Void
    ) -> WebSocketProtocolViolation? {
        if header.rsv2 || header.rsv3 { return .reservedBitsSet }
        if header.opcode.isControl {
            if header.rsv1 { return .compressedControlOrContinuation }
            return self.handleControlFrame(header.opcode, payload, handle)
        }
        if header.opcode == .continuation {
            guard case .assembling(let opcode, let compressed, let fragments) = self.state else {
                return .unexpectedContinuation
            }
            if header.rsv1 { return .compressedControlOrContinuation }
            guard Int(fragments) < self.limits.maximumFragmentsPerMessage, fragments < UInt32.max else {
                return .tooManyFragments
            }
            self.state = .assembling(opcode: opcode, compressed: compressed, fragments: fragments + 1)
            return self.appendFragment(payload, isFinal: header.fin, opcode: opcode, compressed: compressed, handle)
        }
        // A new text or binary message.
        guard case .idle = self.state else { return .expectedContinuation }
        if header.rsv1 && self.inflater == nil { return .reservedBitsSet }
        if header.fin && !header.rsv1 {
            // The common case: a whole uncompressed message in one frame, delivered straight from the buffer.
            guard payload.count <= self.limits.maximumMessageSize else { return .messageTooLarge }
            if header.opcode == .text {
                var validator = UTF8Validator()
                guard validator.validate(payload), validator.isComplete else { return .invalidUTF8 }
                handle(.text(payload))
            } else {
                handle(.binary(payload))
            }
            return nil
        }
        self.utf8.reset()
        self.state = .assembling(opcode: header.opcode, compressed: header.rsv1, fragments: 1)
        return self.appendFragment(payload, isFinal: header.fin, opcode: header.opcode, compressed: header.rsv1, handle)
    }

    private mutating func appendFragment(
        _ payload: UnsafeRawBufferPointer,
        isFinal: Bool,
        opcode: WebSocketOpcode,
        compressed: Bool,
        _ handle: (Event) -> Void
    ) -> WebSocketProtocolViolation? {
        let previousCount = self.assembled.count
        if compressed, let inflater = self.inflater {
            do {
                try inflater.inflate(
                    payload,
                    isFinal: isFinal,
                    into: &self.assembled,
                    limit: self.limits.maximumMessageSize
                )
            } catch {
                return error == .messageTooLarge ? .messageTooLarge : .corruptCompressedData
            }
        } else {
            guard payload.count <= self.limits.maximumMessageSize - previousCount else { return .messageTooLarge }
            self.assembled.append(contentsOf: payload)
        }
        if opcode == .text {
            let valid = self.assembled.withUnsafeBytes { bytes in
                self.utf8.validate(UnsafeRawBufferPointer(rebasing: bytes[previousCount...]))
            }
            guard valid else { return .invalidUTF8 }
            if isFinal && !self.utf8.isComplete { return .invalidUTF8 }
        }
        guard isFinal else { return nil }
        self.state = .idle
        self.assembled.withUnsafeBytes { bytes in
            handle(opcode == .text ? .text(bytes) : .binary(bytes))
        }
        // Released with its message: a connection holds assembly storage only while a message is in pieces.
        self.assembled = []
        return nil
    }

    private mutating func handleControlFrame(
        _ opcode: WebSocketOpcode,
        _ payload: UnsafeRawBufferPointer,
        _ handle: (Event) -> Void
    ) -> WebSocketProtocolViolation? {
        switch opcode {
        case .ping:
            handle(.ping(payload))
        case .pong:
            handle(.pong(payload))
        default:
            if payload.count == 0 {
                self.isFinished = true
                handle(.close(code: nil, reason: payload))
                return nil
            }
            guard payload.count >= 2 else { return .invalidClosePayload }
            let code = WebSocketCloseCode(rawValue: UInt16(payload[0]) << 8 | UInt16(payload[1]))
            guard code.isValidOnWire else { return .invalidCloseCode }
            let reason = UnsafeRawBufferPointer(rebasing: payload[2...])
            var validator = UTF8Validator()
            guard validator.validate(reason), validator.isComplete else { return .invalidUTF8 }
            self.isFinished = true
            handle(.close(code: code, reason: reason))
        }
        return nil
    }
}
