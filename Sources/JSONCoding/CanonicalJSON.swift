/// Canonical JSON: object members sorted by their names' UTF-8 bytes (which is code point order, not the UTF-16
/// order JavaScript sorts by), no whitespace, strings and numbers as `JSONWriter` writes them. Two equal values have
/// the same canonical bytes whatever their members' order, which is what the roster checksum hashes.
public enum CanonicalJSON {
    /// Whether `lhs` sorts before `rhs`: by their UTF-8 bytes.
    public static func keyPrecedes(_ lhs: String, _ rhs: String) -> Bool {
        var lhs = lhs
        var rhs = rhs
        return lhs.withUTF8 { left in
            rhs.withUTF8 { right in
                for index in 0..<min(left.count, right.count) where left[index] != right[index] {
                    return left[index] < right[index]
                }
                return left.count < right.count
            }
        }
    }

    /// A name's first eight UTF-8 bytes as a big-endian number (zeros after a shorter name): names whose numbers
    /// differ sort as their numbers do.
    static func sortPrefix(_ key: String) -> UInt64 {
        var key = key
        return key.withUTF8 { utf8 in
            var prefix: UInt64 = 0
            for index in 0..<8 {
                prefix = prefix << 8 | UInt64(index < utf8.count ? utf8[index] : 0)
            }
            return prefix
        }
    }

    /// Appends the canonical JSON text of `value` to `output`.
    ///
    /// - Parameters:
    ///   - value: the value.
    ///   - output: the buffer to append the UTF-8 text to.
    public static func write(_ value: JSONValue, into output: inout [UInt8]) {
        switch value {
        case .object(let object):
            output.append(UInt8(ascii: "{"))
            let entries = object.entries
            // Sorted by each name's first eight bytes as a number, and by the whole names where those tie: the same
            // order as by the bytes, with one look at each name instead of two per comparison.
            var order = entries.indices.map { (prefix: Self.sortPrefix(entries[$0].key), index: $0) }
            order.sort { lhs, rhs in
                lhs.prefix != rhs.prefix
                    ? lhs.prefix < rhs.prefix : Self.keyPrecedes(entries[lhs.index].key, entries[rhs.index].key)
            }
            for (position, item) in order.enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                JSONWriter.appendString(entries[item.index].key, to: &output)
                output.append(UInt8(ascii: ":"))
                Self.write(entries[item.index].value, into: &output)
            }
            output.append(UInt8(ascii: "}"))
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                Self.write(element, into: &output)
            }
            output.append(UInt8(ascii: "]"))
        default:
            JSONWriter.write(value, into: &output)
        }
    }

    /// The canonical JSON text of `value` as UTF-8 bytes.
    ///
    /// - Parameter value: the value.
    public static func bytes(_ value: JSONValue) -> [UInt8] {
        var output: [UInt8] = []
        Self.write(value, into: &output)
        return output
    }
}
