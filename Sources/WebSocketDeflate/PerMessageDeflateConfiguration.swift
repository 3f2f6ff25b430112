/// Server settings for the permessage-deflate extension (RFC 7692).
///
/// The defaults favour latency and a small memory footprint while still accepting every client.
///
/// Memory per compressed connection, allocated lazily (an idle connection that has not yet sent or received a
/// compressed message holds none of it):
/// - the compressor (outbound): about `(1 << (serverMaxWindowBits + 2)) + (1 << (memoryLevel + 9))` bytes plus
///   about 6 KiB of state; with the defaults (15, 6): 128 KiB + 32 KiB ≈ 166 KiB.
/// - the decompressor (inbound): about `1 << windowBits` bytes plus about 7 KiB of state, where `windowBits` is the
///   negotiated client window (at most `clientMaxWindowBits`); with the default 15: 32 KiB + 7 KiB ≈ 39 KiB.
///   While a fragment is being inflated a temporary 16 KiB buffer is added, and the inflated message itself is
///   bounded by the caller's message size limit.
///
/// To shrink a busy server, lower `serverMaxWindowBits` (each step halves the window part of the compressor) and
/// `clientMaxWindowBits` (only honoured by clients that announce `client_max_window_bits`).
public struct PerMessageDeflateConfiguration: Hashable, Sendable {
    /// Whether the server accepts permessage-deflate offers at all. Default true.
    public var isEnabled: Bool
    /// Whether the server resets its compressor after every message (and says so with `server_no_context_takeover`).
    /// Costs compression ratio on similar consecutive messages; saves nothing in memory with this implementation.
    /// Default false.
    public var serverNoContextTakeover: Bool
    /// Whether the server asks clients to reset their compressor after every message (`client_no_context_takeover`);
    /// the server then also resets its decompressor after every message. Default false.
    public var clientNoContextTakeover: Bool
    /// The base-2 logarithm of the compressor window (9...15). A client may ask for less with
    /// `server_max_window_bits`. Default 15.
    public var serverMaxWindowBits: Int
    /// The largest client compressor window the server accepts (8...15); told to clients that announce
    /// `client_max_window_bits` when lower than 15. Clients that do not announce it may always use 15. Default 15.
    public var clientMaxWindowBits: Int
    /// The zlib compression level (0...9). Default 1: the fastest level, which keeps the per-message latency and CPU
    /// cost low while still removing most of the redundancy in typical text and JSON messages; raise it when
    /// bandwidth matters more than CPU.
    public var compressionLevel: Int
    /// The zlib memory level (1...9) of the compressor: the hash table and pending buffer take
    /// `1 << (memoryLevel + 9)` bytes. Default 6 (32 KiB), a quarter of zlib's default of 8 at a small cost in ratio.
    public var memoryLevel: Int
    /// Messages shorter than this many bytes are sent uncompressed: the few bytes they might save do not pay for the
    /// work. Default 64.
    public var minimumCompressedMessageSize: Int

    /// Creates a configuration; call `validate()` before use.
    ///
    /// - Parameters:
    ///   - isEnabled: whether offers are accepted at all.
    ///   - serverNoContextTakeover: whether the server resets its compressor after every message.
    ///   - clientNoContextTakeover: whether clients are asked to reset their compressor after every message.
    ///   - serverMaxWindowBits: the compressor window, 9...15.
    ///   - clientMaxWindowBits: the largest client window accepted, 8...15.
    ///   - compressionLevel: the zlib level, 0...9.
    ///   - memoryLevel: the zlib memory level, 1...9.
    ///   - minimumCompressedMessageSize: shorter messages are sent uncompressed; at least 0.
    public init(
        isEnabled: Bool = true,
        serverNoContextTakeover: Bool = false,
        clientNoContextTakeover: Bool = false,
        serverMaxWindowBits: Int = 15,
        clientMaxWindowBits: Int = 15,
        compressionLevel: Int = 1,
        memoryLevel: Int = 6,
        minimumCompressedMessageSize: Int = 64
    ) {
        self.isEnabled = isEnabled
        self.serverNoContextTakeover = serverNoContextTakeover
        self.clientNoContextTakeover = clientNoContextTakeover
        self.serverMaxWindowBits = serverMaxWindowBits
        self.clientMaxWindowBits = clientMaxWindowBits
        self.compressionLevel = compressionLevel
        self.memoryLevel = memoryLevel
        self.minimumCompressedMessageSize = minimumCompressedMessageSize
    }

    /// Checks every numeric field against its allowed range.
    ///
    /// - Throws: `PerMessageDeflateConfigurationError` naming the first field out of range.
    public func validate() throws(PerMessageDeflateConfigurationError) {
        try Self.check("serverMaxWindowBits", self.serverMaxWindowBits, 9...15)
        try Self.check("clientMaxWindowBits", self.clientMaxWindowBits, 8...15)
        try Self.check("compressionLevel", self.compressionLevel, 0...9)
        try Self.check("memoryLevel", self.memoryLevel, 1...9)
        if self.minimumCompressedMessageSize < 0 {
            throw .outOfRange(
                field: "minimumCompressedMessageSize",
                value: self.minimumCompressedMessageSize,
                allowed: "0..."
            )
        }
    }

    private static func check(
        _ field: String,
        _ value: Int,
        _ range: ClosedRange<Int>
    ) throws(PerMessageDeflateConfigurationError) {
        if !range.contains(value) {
            throw .outOfRange(field: field, value: value, allowed: "\(range.lowerBound)...\(range.upperBound)")
        }
    }
}
