/// A JSON value (RFC 8259).
///
/// Numbers keep their written form's kind: an integer literal that fits in 64 bits is `.int` and stays exact;
/// every other number (a fraction, an exponent, an integer too large for `Int64`, or `-0`) is `.double`.
///
/// Equality is structural: `.int(1)` and `.double(1)` are different values, and objects compare by their members
/// regardless of order (see `JSONObject`).
public enum JSONValue: Hashable, Sendable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// An integer that fits in 64 bits, kept exact.
    case int(Int64)
    /// Any other number. Writers emit non-finite values as `null`.
    case double(Double)
    /// A string of Unicode scalars.
    case string(String)
    /// An ordered list of values.
    case array([JSONValue])
    /// Members in the order they were inserted or parsed.
    case object(JSONObject)
}
