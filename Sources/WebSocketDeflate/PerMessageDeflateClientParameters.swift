import WebSocketCore

/// The permessage-deflate parameters a server agreed to, as its client sees them (RFC 7692 §7.1).
///
/// A client sends `offerHeaderValue` and checks the server's `Sec-WebSocket-Extensions` answer with
/// `validate(responseHeaderValue:offered:)`; one value serves one connection, which creates its inflater and, when it
/// compresses its own messages, its deflater from it.
public struct PerMessageDeflateClientParameters: Hashable, Sendable {
    /// The offer this type checks answers against: permessage-deflate with every parameter left to the server, and
    /// `client_max_window_bits` announced so the server may limit the client's window.
    public static let offerHeaderValue = "permessage-deflate; client_max_window_bits"

    /// Whether the server resets its compressor after every message, so the client may reset its decompressor.
    public var serverNoContextTakeover: Bool
    /// Whether the client must reset its compressor after every message.
    public var clientNoContextTakeover: Bool
    /// The window the server compresses with, 8...15 (15 when the server did not name one).
    public var serverMaxWindowBits: Int
    /// The largest window the client may compress with, 8...15 (15 when the server did not limit it).
    public var clientMaxWindowBits: Int

    /// Creates agreed parameters directly; clients normally get them from `validate(responseHeaderValue:offered:)`.
    ///
    /// - Parameters:
    ///   - serverNoContextTakeover: whether the server resets its compressor after every message.
    ///   - clientNoContextTakeover: whether the client must reset its compressor after every message.
    ///   - serverMaxWindowBits: the server's compressor window, 8...15.
    ///   - clientMaxWindowBits: the largest client compressor window, 8...15.
    public init(
        serverNoContextTakeover: Bool = false,
        clientNoContextTakeover: Bool = false,
        serverMaxWindowBits: Int = 15,
        clientMaxWindowBits: Int = 15
    ) {
        self.serverNoContextTakeover = serverNoContextTakeover
        self.clientNoContextTakeover = clientNoContextTakeover
        self.serverMaxWindowBits = serverMaxWindowBits
        self.clientMaxWindowBits = clientMaxWindowBits
    }

    /// Checks a server's answer to `offerHeaderValue` and returns what was agreed.
    ///
    /// The answer is refused when it is not a valid extension list, names an extension that was not offered (any
    /// at all when nothing was offered) or more than one, or has an unknown or repeated parameter, a
    /// `*_no_context_takeover` parameter with a value, or a window size that is missing or not a decimal number
    /// from 8 to 15 without leading zeros.
    ///
    /// - Parameters:
    ///   - responseHeaderValue: the response's `Sec-WebSocket-Extensions` values joined with `,`; empty when the
    ///     response has none.
    ///   - offered: whether the request carried `offerHeaderValue`.
    /// - Returns: the agreed parameters, or nil when the server declined (its answer names no extension).
    /// - Throws: `PerMessageDeflateResponseError` naming the first problem; the client must fail the connection.
    public static func validate(
        responseHeaderValue: String,
        offered: Bool
    ) throws(PerMessageDeflateResponseError) -> PerMessageDeflateClientParameters? {
        guard let answers = WebSocketExtensionOffer.parse(responseHeaderValue) else {
            throw .malformedHeader(responseHeaderValue)
        }
        guard !answers.isEmpty else { return nil }
        guard offered, answers.count == 1,
            answers[0].name.lowercased() == PerMessageDeflateNegotiator.extensionName
        else {
            throw .notOffered(responseHeaderValue)
        }
        var agreed = PerMessageDeflateClientParameters()
        var seen = Set<String>()
        for parameter in answers[0].parameters {
            let name = parameter.name.lowercased()
            guard seen.insert(name).inserted else { throw .repeatedParameter(name) }
            switch name {
            case "server_no_context_takeover":
                guard parameter.value == nil else { throw .unexpectedValue(name) }
                agreed.serverNoContextTakeover = true
            case "client_no_context_takeover":
                guard parameter.value == nil else { throw .unexpectedValue(name) }
                agreed.clientNoContextTakeover = true
            case "server_max_window_bits":
                guard let value = parameter.value, let bits = PerMessageDeflateNegotiator.windowBits(value) else {
                    throw .invalidWindowBits(name)
                }
                agreed.serverMaxWindowBits = bits
            case "client_max_window_bits":
                // The offer announces client_max_window_bits, so the server may limit the client's window; the
                // response must then name the size (RFC 7692 §7.1.2.2).
                guard let value = parameter.value, let bits = PerMessageDeflateNegotiator.windowBits(value) else {
                    throw .invalidWindowBits(name)
                }
                agreed.clientMaxWindowBits = bits
            default:
                throw .unknownParameter(name)
            }
        }
        return agreed
    }

    /// Creates the decompressor for server messages of one connection.
    ///
    /// - Returns: an inflater for the server's window and context takeover; it allocates zlib memory only on its
    ///   first message.
    public func makeInflater() -> PerMessageInflater {
        PerMessageInflater(windowBits: self.serverMaxWindowBits, resetsAfterEachMessage: self.serverNoContextTakeover)
    }

    /// Creates the compressor for client messages of one connection.
    ///
    /// - Parameters:
    ///   - compressionLevel: the zlib level, 0...9.
    ///   - memoryLevel: the zlib memory level, 1...9.
    /// - Returns: a deflater within the agreed client window that resets after every message when the server asked
    ///   for `client_no_context_takeover`; it allocates zlib memory only on its first message.
    public func makeDeflater(compressionLevel: Int, memoryLevel: Int) -> PerMessageDeflater {
        PerMessageDeflater(
            windowBits: self.clientMaxWindowBits,
            compressionLevel: compressionLevel,
            memoryLevel: memoryLevel,
            resetsAfterEachMessage: self.clientNoContextTakeover
        )
    }
}
