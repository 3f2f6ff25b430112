/// Why a compressed message could not be inflated.
public struct InflateFailure: Error, Hashable, Sendable, CustomStringConvertible {
    enum Kind: Hashable, Sendable {
        case messageTooLarge
        case corruptData
    }

    let kind: Kind

    /// The inflated message would exceed the configured message size limit (close code 1009).
    public static let messageTooLarge = InflateFailure(kind: .messageTooLarge)
    /// The compressed bytes are not a valid raw deflate stream (close code 1007).
    public static let corruptData = InflateFailure(kind: .corruptData)

    public var description: String {
        switch self.kind {
        case .messageTooLarge: return "inflated message exceeds the size limit"
        case .corruptData: return "invalid deflate data"
        }
    }
}

/// Inflates the payload of compressed messages (frames with RSV1 set on the first fragment), one fragment at a time.
///
/// The WebSocket core knows nothing of zlib: an extension module supplies an implementation, created per
/// connection once the extension is negotiated.
public protocol WebSocketMessageInflater: AnyObject {
    /// Inflates one fragment of a compressed message and appends the output to `output`.
    ///
    /// - Parameters:
    ///   - fragment: the (unmasked) payload bytes of one frame of the message.
    ///   - isFinal: whether this is the last fragment; the inflater then also feeds the RFC 7692 tail
    ///     `00 00 FF FF` and, without context takeover, resets its window.
    ///   - output: where the inflated bytes are appended.
    ///   - limit: the most bytes `output` may hold after the call; inflation stops as soon as it would pass it,
    ///     so a small frame that inflates to gigabytes costs at most `limit` bytes of memory.
    /// - Throws: `InflateFailure.messageTooLarge` or `InflateFailure.corruptData`.
    func inflate(
        _ fragment: UnsafeRawBufferPointer,
        isFinal: Bool,
        into output: inout [UInt8],
        limit: Int
    ) throws(InflateFailure)
}

/// Compresses whole outbound messages for permessage-deflate.
public protocol WebSocketMessageDeflater: AnyObject {
    /// Compresses one message and appends the payload to send (RFC 7692 §7.2.1: the trailing `00 00 FF FF` removed).
    ///
    /// - Parameters:
    ///   - message: the message payload.
    ///   - output: where the compressed bytes are appended.
    func deflate(_ message: UnsafeRawBufferPointer, into output: inout [UInt8])
}
