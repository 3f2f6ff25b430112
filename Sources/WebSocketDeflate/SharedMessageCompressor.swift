import WebSocketCore

/// Compresses a message once for every connection that agreed to permessage-deflate with the same compressor
/// settings, so a message for many connections is deflated once however many of them there are.
///
/// Every message is compressed without context: it starts from an empty window and refers to nothing sent before
/// it, so every peer decodes it whatever it received earlier, agreed `server_no_context_takeover` or not (RFC 7692
/// §7.1.1.1: without that parameter the peer only says it can follow context takeover, which the server is free not
/// to use). A peer with context takeover then holds the message in its
/// window; a connection that also compresses messages of its own with context must empty its window after sending
/// one of these (`PerMessageDeflater.resetWindow()`).
///
/// Connections differ only in the window a peer asked for (`server_max_window_bits`), so a server sees few
/// distinct settings: each is a variant, given to a connection once when it opens, with one zlib stream that is
/// allocated on its first message and reused for every message after. At most `maximumVariants` exist; a
/// connection beyond them gets none and is sent uncompressed frames.
///
/// Not thread-safe: an instance belongs to one thread.
public final class SharedMessageCompressor {
    /// The most distinct settings kept, each with its own zlib stream (about 166 KiB with the default settings).
    public static let maximumVariants = 16

    private struct Settings: Hashable {
        var windowBits: Int
        var compressionLevel: Int
        var memoryLevel: Int
        var minimumMessageSize: Int
    }

    private var settings: [Settings] = []
    private var deflaters: [PerMessageDeflater] = []

    /// Creates a compressor with no variants; no zlib memory is allocated until a message is compressed.
    public init() {}

    /// The number of variants in use.
    public var variantCount: Int { self.settings.count }

    /// The variant for connections that agreed to `parameters`, created on first use.
    ///
    /// - Parameter parameters: a connection's agreed permessage-deflate parameters.
    /// - Returns: a variant number in `0..<maximumVariants`, or nil when that many other variants exist already
    ///   (the connection is then sent uncompressed frames).
    public func variant(for parameters: PerMessageDeflateParameters) -> Int? {
        let wanted = Settings(
            windowBits: parameters.serverMaxWindowBits,
            compressionLevel: parameters.compressionLevel,
            memoryLevel: parameters.memoryLevel,
            minimumMessageSize: parameters.minimumCompressedMessageSize
        )
        if let existing = self.settings.firstIndex(of: wanted) { return existing }
        guard self.settings.count < Self.maximumVariants else { return nil }
        self.settings.append(wanted)
        self.deflaters.append(
            PerMessageDeflater(
                windowBits: wanted.windowBits,
                compressionLevel: wanted.compressionLevel,
                memoryLevel: wanted.memoryLevel,
                resetsAfterEachMessage: true
            )
        )
        return self.settings.count - 1
    }

    /// Compresses a message into a finished frame (RSV1 set) for the connections of one variant.
    ///
    /// - Parameters:
    ///   - opcode: `.text` or `.binary`.
    ///   - payload: the message.
    ///   - variant: a number returned by `variant(for:)`.
    /// - Returns: the frame, or nil when the message is shorter than the variant's minimum compressed size (send
    ///   it uncompressed).
    public func compressedFrame(
        opcode: WebSocketOpcode,
        payload: UnsafeRawBufferPointer,
        variant: Int
    ) -> WebSocketOutboundFrame? {
        guard payload.count >= self.settings[variant].minimumMessageSize else { return nil }
        var frame = WebSocketOutboundFrame(payloadCapacity: payload.count / 2 + 64)
        frame.withStorage { self.deflaters[variant].deflate(payload, into: &$0) }
        frame.finish(opcode: opcode, rsv1: true)
        return frame
    }
}
