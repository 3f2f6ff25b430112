/// Serializes `JSONValue`s as compact RFC 8259 text, deterministically.
///
/// No whitespace is written; object members follow their order in the `JSONObject`; strings escape only `"`,
/// `\` and the control characters below U+0020 (non-ASCII is written as UTF-8, `/` as itself); integers are
/// exact; doubles use the shortest text that reads back as the same `Double`, and NaN or an infinity, which JSON
/// cannot express, is written as `null`.
public enum JSONWriter {
    /// Appends the JSON text of `value` to `output`.
    ///
    /// - Parameters:
    ///   - value: the value to serialize.
    ///   - output: the buffer to append the UTF-8 text to.
    public static func write(_ value: JSONValue, into output: inout [UInt8]) {
        switch value {
        case .null:
            JSONWriter.appendASCII("null", to: &output)
        case .bool(let bool):
            JSONWriter.appendASCII(bool ? "true" : "false", to: &output)
        case .int(let int):
            JSONWriter.appendInteger(int, to: &output)
        case .double(let double):
            JSONWriter.appendDouble(double, to: &output)
        case .string(let string):
            JSONWriter.appendString(string, to: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (position, element) in elements.enumerated() {
                if position > 0 {
                    output.append(UInt8(ascii: ","))
                }
                JSONWriter.write(element, into: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let object):
            output.append(UInt8(ascii: "{"))
            for (position, entry) in object.entries.enumerated() {
                if position > 0 {
                    output.append(UInt8(ascii: ","))
                }
                JSONWriter.appendString(entry.key, to: &output)
                output.append(UInt8(ascii: ":"))
                JSONWriter.write(entry.value, into: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    /// The JSON text of `value` as UTF-8 bytes.
    ///
    /// - Parameters:
    ///   - value: the value to serialize.
    /// - Returns: the UTF-8 text.
    public static func bytes(_ value: JSONValue) -> [UInt8] {
        var output: [UInt8] = []
        JSONWriter.write(value, into: &output)
        return output
    }

    /// The JSON text of `value`.
    ///
    /// - Parameters:
    ///   - value: the value to serialize.
    /// - Returns: the text.
    public static func string(_ value: JSONValue) -> String {
        String(decoding: JSONWriter.bytes(value), as: UTF8.self)
    }

    /// Appends `string` as a quoted, escaped JSON string.
    ///
    /// Runs of bytes that need no escape, which is usually the whole string, are copied in bulk.
    ///
    /// - Parameters:
    ///   - string: the string.
    ///   - output: the buffer to append to.
    public static func appendString(_ string: String, to output: inout [UInt8]) {
        var string = string
        string.withUTF8 { utf8 in
            let clean = JSONWriter.cleanPrefixLength(utf8)
            output.append(UInt8(ascii: "\""))
            if clean == utf8.count {
                output.append(contentsOf: utf8)
                output.append(UInt8(ascii: "\""))
                return
            }
            var runStart = 0
            for index in clean..<utf8.count {
                let byte = utf8[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                if runStart < index {
                    output.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
                }
                JSONWriter.appendEscape(for: byte, to: &output)
                runStart = index + 1
            }
            if runStart < utf8.count {
                output.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
            }
            output.append(UInt8(ascii: "\""))
        }
    }

    /// How many leading bytes of `utf8` need no escape, found eight bytes at a time: a word needs a closer look when
    /// one of its bytes is below 0x20, a quote or a backslash.
    static func cleanPrefixLength(_ utf8: UnsafeBufferPointer<UInt8>) -> Int {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        var index = 0
        if let base = utf8.baseAddress {
            let raw = UnsafeRawPointer(base)
            while index + 8 <= utf8.count {
                let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                let control = (word &- ones &* 0x20) & ~word
                let quote = word ^ (ones &* UInt64(UInt8(ascii: "\"")))
                let backslash = word ^ (ones &* UInt64(UInt8(ascii: "\\")))
                let quoteOrBackslash = ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash)
                guard (control | quoteOrBackslash) & highs == 0 else { break }
                index += 8
            }
        }
        while index < utf8.count {
            let byte = utf8[index]
            if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { break }
            index += 1
        }
        return index
    }

    private static func appendEscape(for byte: UInt8, to output: inout [UInt8]) {
        let short: UInt8
        switch byte {
        case UInt8(ascii: "\""): short = UInt8(ascii: "\"")
        case UInt8(ascii: "\\"): short = UInt8(ascii: "\\")
        case 0x08: short = UInt8(ascii: "b")
        case 0x0C: short = UInt8(ascii: "f")
        case UInt8(ascii: "\n"): short = UInt8(ascii: "n")
        case UInt8(ascii: "\r"): short = UInt8(ascii: "r")
        case UInt8(ascii: "\t"): short = UInt8(ascii: "t")
        default:
            let hexDigits: StaticString = "0123456789abcdef"
            output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
            output.append(hexDigits.utf8Start[Int(byte >> 4)])
            output.append(hexDigits.utf8Start[Int(byte & 0xF)])
            return
        }
        output.append(UInt8(ascii: "\\"))
        output.append(short)
    }

    /// Appends `value` in decimal, as `write` writes `.int(value)`.
    ///
    /// - Parameters:
    ///   - value: the integer.
    ///   - output: the buffer to append to.
    public static func appendInteger(_ value: Int64, to output: inout [UInt8]) {
        if value < 0 {
            output.append(UInt8(ascii: "-"))
        }
        var magnitude = value.magnitude
        // 20 digits hold UInt64.max; fill from the right.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = 20
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude != 0
            output.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start..<20]))
        }
    }

    private static func appendDouble(_ value: Double, to output: inout [UInt8]) {
        guard value.isFinite else {
            JSONWriter.appendASCII("null", to: &output)
            return
        }
        // The shortest round-trip form: `1.0`, `-0.0`, `0.1`, `1e+20`, `5e-324`, all of them valid JSON numbers.
        output.append(contentsOf: value.description.utf8)
    }

    private static func appendASCII(_ text: StaticString, to output: inout [UInt8]) {
        output.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }
}
