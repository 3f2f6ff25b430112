/// A strict, bounded RFC 8259 parser.
///
/// Accepts exactly the RFC 8259 grammar: any value at the top level, whitespace limited to space, tab, line feed
/// and carriage return, no comments, no trailing commas, no leading zeros, no `NaN` or `Infinity`, strings of
/// valid UTF-8 without unescaped control characters, `\u` escapes with properly paired surrogates, and nothing but
/// whitespace after the value. Object member names must be unique.
///
/// The parser never recurses: open containers live on an explicit stack whose height is bounded by
/// `Limits.maxDepth`, so hostile nesting cannot exhaust the call stack. Every byte is looked at a bounded number of
/// times, so parsing is linear in the input, and `Limits` caps every dimension of the result.
public struct JSONParser: Sendable {
    private init() {}

    /// Parses one JSON text.
    ///
    /// - Parameters:
    ///   - bytes: the UTF-8 encoded text.
    ///   - limits: the bounds the text must stay within.
    /// - Returns: the value.
    /// - Throws: a `JSONError` locating the first problem.
    public static func parse(
        _ bytes: UnsafeRawBufferPointer,
        limits: Limits = Limits()
    ) throws(JSONError) -> JSONValue {
        guard bytes.count <= limits.maxInputBytes else {
            throw JSONError(.inputTooLarge(limit: limits.maxInputBytes), at: limits.maxInputBytes)
        }
        var scanner = JSONScanner(bytes: bytes, limits: limits)
        return try scanner.parseDocument()
    }

    /// Parses one JSON text.
    ///
    /// - Parameters:
    ///   - bytes: the UTF-8 encoded text.
    ///   - limits: the bounds the text must stay within.
    /// - Returns: the value.
    /// - Throws: a `JSONError` locating the first problem.
    public static func parse(_ bytes: [UInt8], limits: Limits = Limits()) throws(JSONError) -> JSONValue {
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(JSONError) -> JSONValue in try JSONParser.parse(raw, limits: limits) }
        }
        return try result.get()
    }

    /// Parses one JSON text.
    ///
    /// - Parameters:
    ///   - text: the text.
    ///   - limits: the bounds the text must stay within.
    /// - Returns: the value.
    /// - Throws: a `JSONError` locating the first problem.
    public static func parse(_ text: String, limits: Limits = Limits()) throws(JSONError) -> JSONValue {
        var text = text
        let result = text.withUTF8 { utf8 in
            Result { () throws(JSONError) -> JSONValue in
                try JSONParser.parse(UnsafeRawBufferPointer(utf8), limits: limits)
            }
        }
        return try result.get()
    }
}
