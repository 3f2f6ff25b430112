import WebSocketCore

/// Server-side permessage-deflate negotiation (RFC 7692 §5 and §7.1).
public enum PerMessageDeflateNegotiator {
    /// The extension token of permessage-deflate.
    public static let extensionName = "permessage-deflate"

    /// Picks the first permessage-deflate offer the server can accept.
    ///
    /// An offer is declined, and the next one tried, when it has an unknown or repeated parameter, a
    /// `*_no_context_takeover` parameter with a value, a `server_max_window_bits` without a value, or a window size
    /// that is not a decimal number from 8 to 15 without leading zeros. Offers of other extensions are skipped.
    ///
    /// The server honours the client's `server_no_context_takeover` and `server_max_window_bits` (answering with the
    /// smaller of the requested and configured window), announces its own configured no-context-takeover settings,
    /// and limits the client window with `client_max_window_bits=N` only when the client announced support for it.
    ///
    /// - Parameters:
    ///   - offers: the parsed `Sec-WebSocket-Extensions` offers, in order.
    ///   - configuration: the server settings; an invalid or disabled configuration accepts nothing, so validate it
    ///     when the server starts.
    /// - Returns: the agreed parameters with the response header value, or nil when no offer is acceptable.
    public static func negotiate(
        offers: [WebSocketExtensionOffer],
        configuration: PerMessageDeflateConfiguration
    ) -> PerMessageDeflateParameters? {
        guard configuration.isEnabled, (try? configuration.validate()) != nil else { return nil }
        for offer in offers where offer.name.lowercased() == Self.extensionName {
            if let parameters = Self.accept(offer, configuration: configuration) {
                return parameters
            }
        }
        return nil
    }

    /// Parses a `Sec-WebSocket-Extensions` header value and picks the first acceptable permessage-deflate offer.
    ///
    /// - Parameters:
    ///   - headerValue: the header value; several header lines are joined with `,`.
    ///   - configuration: the server settings.
    /// - Returns: the agreed parameters, or nil when the header is malformed or no offer is acceptable.
    public static func negotiate(
        headerValue: String,
        configuration: PerMessageDeflateConfiguration
    ) -> PerMessageDeflateParameters? {
        guard let offers = WebSocketExtensionOffer.parse(headerValue) else { return nil }
        return Self.negotiate(offers: offers, configuration: configuration)
    }

    private static func accept(
        _ offer: WebSocketExtensionOffer,
        configuration: PerMessageDeflateConfiguration
    ) -> PerMessageDeflateParameters? {
        var serverNoContextTakeover = false
        var clientNoContextTakeover = false
        var requestedServerWindow: Int?
        // nil: not sent; .some(nil): sent without a value; .some(n): sent with the value n.
        var announcedClientWindow: Int??
        var seen = Set<String>()
        for parameter in offer.parameters {
            let name = parameter.name.lowercased()
            guard seen.insert(name).inserted else { return nil }
            switch name {
            case "server_no_context_takeover":
                guard parameter.value == nil else { return nil }
                serverNoContextTakeover = true
            case "client_no_context_takeover":
                guard parameter.value == nil else { return nil }
                clientNoContextTakeover = true
            case "server_max_window_bits":
                guard let value = parameter.value, let bits = Self.windowBits(value) else { return nil }
                requestedServerWindow = bits
            case "client_max_window_bits":
                if let value = parameter.value {
                    guard let bits = Self.windowBits(value) else { return nil }
                    announcedClientWindow = .some(bits)
                } else {
                    announcedClientWindow = .some(nil)
                }
            default:
                return nil
            }
        }

        // The client's own no-context-takeover is its promise; the server may also ask for it.
        clientNoContextTakeover = clientNoContextTakeover || configuration.clientNoContextTakeover
        serverNoContextTakeover = serverNoContextTakeover || configuration.serverNoContextTakeover
        let serverWindow = min(requestedServerWindow ?? 15, configuration.serverMaxWindowBits)
        let clientWindow: Int
        if let announced = announcedClientWindow {
            // The client can be limited; a value in the offer is already its own upper bound.
            clientWindow = min(announced ?? 15, configuration.clientMaxWindowBits)
        } else {
            // RFC 7692 §7.1.2.2: without the parameter the response must not limit the client, which may use 15.
            clientWindow = 15
        }

        var response = Self.extensionName
        if serverNoContextTakeover {
            response += "; server_no_context_takeover"
        }
        if clientNoContextTakeover {
            response += "; client_no_context_takeover"
        }
        if requestedServerWindow != nil || serverWindow < 15 {
            response += "; server_max_window_bits=\(serverWindow)"
        }
        if announcedClientWindow != nil && clientWindow < 15 {
            response += "; client_max_window_bits=\(clientWindow)"
        }
        return PerMessageDeflateParameters(
            serverNoContextTakeover: serverNoContextTakeover,
            clientNoContextTakeover: clientNoContextTakeover,
            serverMaxWindowBits: serverWindow,
            clientMaxWindowBits: clientWindow,
            compressionLevel: configuration.compressionLevel,
            memoryLevel: configuration.memoryLevel,
            minimumCompressedMessageSize: configuration.minimumCompressedMessageSize,
            responseHeaderValue: response
        )
    }

    /// Reads a window size: a decimal number from 8 to 15 without leading zeros (RFC 7692 §7.1.2). Also checks the
    /// server's answer on the client side (`PerMessageDeflateClientParameters`).
    ///
    /// - Parameter value: the parameter value.
    /// - Returns: the window size, or nil when `value` is not a valid one.
    static func windowBits(_ value: String) -> Int? {
        let utf8 = value.utf8
        guard utf8.count <= 2, utf8.first != UInt8(ascii: "0"),
            utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else {
            return nil
        }
        var bits = 0
        for digit in utf8 {
            bits = bits * 10 + Int(digit - UInt8(ascii: "0"))
        }
        return (8...15).contains(bits) ? bits : nil
    }
}
