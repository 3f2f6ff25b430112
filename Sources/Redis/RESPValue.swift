/// A value of the Redis serialization protocol: the RESP2 types, plus the RESP3 null, map, double and boolean.
///
/// Simple strings and errors are lines of text; bulk strings are binary-safe bytes. RESP2's null bulk string and
/// null array are `.bulkString(nil)` and `.array(nil)`; RESP3's null is `.null`.
public enum RESPValue: Hashable, Sendable {
    /// A simple string (`+OK`): one line of text, without CR or LF. Bytes that are not UTF-8 are read as U+FFFD.
    case simpleString(String)
    /// An error reply (`-ERR unknown command`): one line of text, without CR or LF, read like a simple string.
    case error(String)
    /// A signed 64-bit integer (`:1000`).
    case integer(Int64)
    /// A bulk string (`$5` and five bytes), or RESP2's null bulk string (`$-1`) when nil.
    case bulkString([UInt8]?)
    /// An array (`*2` and two values), or RESP2's null array (`*-1`) when nil.
    case array([RESPValue]?)
    /// RESP3's null (`_`).
    case null
    /// A RESP3 map (`%1` and a key and a value), entries in the order received.
    case map([RESPMapEntry])
    /// A RESP3 double (`,1.5`, `,inf`, `,-inf`, `,nan`).
    case double(Double)
    /// A RESP3 boolean (`#t` or `#f`).
    case boolean(Bool)
}

extension RESPValue {
    /// A bulk string holding the UTF-8 bytes of `text`.
    ///
    /// - Parameter text: the string's text.
    public static func bulkString(_ text: String) -> RESPValue {
        .bulkString(Array(text.utf8))
    }
}
