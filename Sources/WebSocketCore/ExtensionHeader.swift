import HTTPCore

/// One extension offered in a `Sec-WebSocket-Extensions` header (RFC 6455 §9.1), with its parameters in order.
///
/// Use `parse(_:)` to read a header value: the parser runs in one pass over the bytes and keeps at most
/// `maximumExtensionCount` extensions of at most `maximumParameterCount` parameters each, so a hostile header costs
/// time and memory linear in its length.
public struct WebSocketExtensionOffer: Hashable, Sendable {
    /// One parameter of an extension offer: `name` or `name=value`.
    public struct Parameter: Hashable, Sendable {
        /// The parameter name, as sent.
        public var name: String
        /// The value, unquoted and unescaped, or nil when the parameter came without `=`.
        public var value: String?

        /// Creates a parameter.
        ///
        /// - Parameters:
        ///   - name: the parameter name.
        ///   - value: the value, or nil for a parameter without one.
        public init(name: String, value: String? = nil) {
            self.name = name
            self.value = value
        }
    }

    /// The most extensions `parse(_:)` accepts in one header value; a longer list is treated as a syntax error.
    public static let maximumExtensionCount = 32
    /// The most parameters `parse(_:)` accepts for one extension; more are treated as a syntax error.
    public static let maximumParameterCount = 16

    /// The extension token, as sent (for example `permessage-deflate`).
    public var name: String
    /// The parameters in the order they were sent; duplicates are kept for the extension to judge.
    public var parameters: [Parameter]

    /// Creates an offer.
    ///
    /// - Parameters:
    ///   - name: the extension token.
    ///   - parameters: the parameters in order.
    public init(name: String, parameters: [Parameter] = []) {
        self.name = name
        self.parameters = parameters
    }

    /// Parses a `Sec-WebSocket-Extensions` header value.
    ///
    /// The grammar is RFC 6455 §9.1 with the list rules of RFC 9110 §5.6.1: comma-separated extensions, each a token
    /// followed by `; param` items where a param is `token [ "=" ( token / quoted-string ) ]`, optional whitespace
    /// around separators, and empty list elements ignored. A quoted value must still be a token once unescaped.
    ///
    /// - Parameter headerValue: the header value; the caller joins several header lines with `,`.
    /// - Returns: the offers in order (empty for a blank value), or nil for a syntax error or a list that exceeds
    ///   `maximumExtensionCount` extensions or `maximumParameterCount` parameters per extension.
    public static func parse(_ headerValue: String) -> [WebSocketExtensionOffer]? {
        if let result = headerValue.utf8.withContiguousStorageIfAvailable({ Self.parse(bytes: $0) }) {
            return result
        }
        let bytes = Array(headerValue.utf8)
        return bytes.withUnsafeBufferPointer { Self.parse(bytes: $0) }
    }

    private static func parse(bytes: UnsafeBufferPointer<UInt8>) -> [WebSocketExtensionOffer]? {
        var reader = Reader(bytes: bytes)
        var offers: [WebSocketExtensionOffer] = []
        reader.skipWhitespace()
        while !reader.isAtEnd {
            if reader.consume(UInt8(ascii: ",")) {
                // An empty list element.
                reader.skipWhitespace()
                continue
            }
            guard offers.count < Self.maximumExtensionCount, let name = reader.readToken() else { return nil }
            var parameters: [Parameter] = []
            reader.skipWhitespace()
            while reader.consume(UInt8(ascii: ";")) {
                reader.skipWhitespace()
                guard parameters.count < Self.maximumParameterCount, let parameterName = reader.readToken() else {
                    return nil
                }
                reader.skipWhitespace()
                var value: String?
                if reader.consume(UInt8(ascii: "=")) {
                    reader.skipWhitespace()
                    guard let parameterValue = reader.readTokenOrQuotedToken() else { return nil }
                    value = parameterValue
                    reader.skipWhitespace()
                }
                parameters.append(Parameter(name: parameterName, value: value))
            }
            offers.append(WebSocketExtensionOffer(name: name, parameters: parameters))
            if reader.isAtEnd {
                break
            }
            guard reader.consume(UInt8(ascii: ",")) else { return nil }
            reader.skipWhitespace()
        }
        return offers
    }

    /// A cursor over the header bytes; every method advances and never looks back, so parsing is linear.
    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        init(bytes: UnsafeBufferPointer<UInt8>) {
            self.bytes = bytes
        }

        var isAtEnd: Bool { self.index == self.bytes.count }

        mutating func skipWhitespace() {
            while self.index < self.bytes.count
                && (self.bytes[self.index] == UInt8(ascii: " ") || self.bytes[self.index] == UInt8(ascii: "\t"))
            {
                self.index += 1
            }
        }

        mutating func consume(_ byte: UInt8) -> Bool {
            guard self.index < self.bytes.count && self.bytes[self.index] == byte else { return false }
            self.index += 1
            return true
        }

        /// Reads a non-empty RFC 9110 token.
        mutating func readToken() -> String? {
            let start = self.index
            while self.index < self.bytes.count && Self.isTokenByte(self.bytes[self.index]) {
                self.index += 1
            }
            guard self.index > start else { return nil }
            return String(decoding: UnsafeBufferPointer(rebasing: self.bytes[start..<self.index]), as: UTF8.self)
        }

        /// Reads a token, or a quoted-string whose unescaped content is a token (RFC 6455 §9.1).
        mutating func readTokenOrQuotedToken() -> String? {
            guard self.consume(UInt8(ascii: "\"")) else { return self.readToken() }
            var content: [UInt8] = []
            while self.index < self.bytes.count {
                var byte = self.bytes[self.index]
                self.index += 1
                if byte == UInt8(ascii: "\"") {
                    guard !content.isEmpty else { return nil }
                    return String(decoding: content, as: UTF8.self)
                }
                if byte == UInt8(ascii: "\\") {
                    guard self.index < self.bytes.count else { return nil }
                    byte = self.bytes[self.index]
                    self.index += 1
                }
                // Anything that is not a token byte (including whitespace and controls) breaks the token rule.
                guard Self.isTokenByte(byte) else { return nil }
                content.append(byte)
            }
            return nil
        }

        /// RFC 9110 tchar, shared with the request parser.
        static func isTokenByte(_ byte: UInt8) -> Bool {
            HTTPHeadScanner.isTokenCharacter(byte)
        }
    }
}
