/// The permessage-deflate parameters agreed with one client, and the header value that confirms them.
///
/// Created by `PerMessageDeflateNegotiator`; one value serves one connection, which creates its inflater and
/// deflater from it.
public struct PerMessageDeflateParameters: Hashable, Sendable {
    /// Whether the server resets its compressor after every message.
    public var serverNoContextTakeover: Bool
    /// Whether the client resets its compressor after every message, so the server resets its decompressor too.
    public var clientNoContextTakeover: Bool
    /// The largest window the client must be able to use for inflating server messages, 8...15. The compressor uses
    /// a 9-bit window when this is 8 (see `PerMessageDeflater`).
    public var serverMaxWindowBits: Int
    /// The window the server inflates client messages with, 8...15.
    public var clientMaxWindowBits: Int
    /// The zlib compression level of the server's compressor.
    public var compressionLevel: Int
    /// The zlib memory level of the server's compressor.
    public var memoryLevel: Int
    /// Messages shorter than this are better sent uncompressed.
    public var minimumCompressedMessageSize: Int
    /// The `Sec-WebSocket-Extensions` value for the handshake response, for example
    /// `permessage-deflate; server_no_context_takeover; client_max_window_bits=12`.
    public var responseHeaderValue: String

    /// Creates agreed parameters directly; servers normally get them from `PerMessageDeflateNegotiator`.
    ///
    /// - Parameters:
    ///   - serverNoContextTakeover: whether the server resets its compressor after every message.
    ///   - clientNoContextTakeover: whether the client resets its compressor after every message.
    ///   - serverMaxWindowBits: the server compressor window, 8...15.
    ///   - clientMaxWindowBits: the client compressor window the server inflates with, 8...15.
    ///   - compressionLevel: the zlib level, 0...9.
    ///   - memoryLevel: the zlib memory level, 1...9.
    ///   - minimumCompressedMessageSize: shorter messages are better sent uncompressed.
    ///   - responseHeaderValue: the header value that announces these parameters.
    public init(
        serverNoContextTakeover: Bool,
        clientNoContextTakeover: Bool,
        serverMaxWindowBits: Int,
        clientMaxWindowBits: Int,
        compressionLevel: Int,
        memoryLevel: Int,
        minimumCompressedMessageSize: Int,
        responseHeaderValue: String
    ) {
        self.serverNoContextTakeover = serverNoContextTakeover
        self.clientNoContextTakeover = clientNoContextTakeover
        self.serverMaxWindowBits = serverMaxWindowBits
        self.clientMaxWindowBits = clientMaxWindowBits
        self.compressionLevel = compressionLevel
        self.memoryLevel = memoryLevel
        self.minimumCompressedMessageSize = minimumCompressedMessageSize
        self.responseHeaderValue = responseHeaderValue
    }

    /// Whether a message of this length should be compressed.
    ///
    /// - Parameter length: the message payload length in bytes.
    /// - Returns: true when `length` is at least `minimumCompressedMessageSize`.
    public func shouldCompress(messageLength length: Int) -> Bool {
        length >= self.minimumCompressedMessageSize
    }

    /// Creates the decompressor for client messages of one connection.
    ///
    /// - Returns: an inflater for the agreed client window and context takeover; it allocates zlib memory only on
    ///   its first message.
    public func makeInflater() -> PerMessageInflater {
        PerMessageInflater(windowBits: self.clientMaxWindowBits, resetsAfterEachMessage: self.clientNoContextTakeover)
    }

    /// Creates the compressor for server messages of one connection.
    ///
    /// - Returns: a deflater for the agreed server window and context takeover; it allocates zlib memory only on
    ///   its first message.
    public func makeDeflater() -> PerMessageDeflater {
        PerMessageDeflater(
            windowBits: self.serverMaxWindowBits,
            compressionLevel: self.compressionLevel,
            memoryLevel: self.memoryLevel,
            resetsAfterEachMessage: self.serverNoContextTakeover
        )
    }
}
