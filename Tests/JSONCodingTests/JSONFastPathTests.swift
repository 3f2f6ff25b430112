import JSONCoding
import TestSupport
import Testing

/// The writer's word-at-a-time string scan, the canonical member order and the byte writer give exactly what the
/// plain definitions give.
struct JSONFastPathTests {
    /// A string escaped byte by byte, as RFC 8259 and the writer's rules say.
    static func referenceEscaped(_ text: String) -> String {
        var output: [UInt8] = [UInt8(ascii: "\"")]
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output += Array("\\\"".utf8)
            case UInt8(ascii: "\\"): output += Array("\\\\".utf8)
            case 0x08: output += Array("\\b".utf8)
            case 0x0C: output += Array("\\f".utf8)
            case UInt8(ascii: "\n"): output += Array("\\n".utf8)
            case UInt8(ascii: "\r"): output += Array("\\r".utf8)
            case UInt8(ascii: "\t"): output += Array("\\t".utf8)
            case 0..<0x20:
                let hex = String(byte, radix: 16)
                output += Array(("\\u00" + (hex.count == 1 ? "0" + hex : hex)).utf8)
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
        return String(decoding: output, as: UTF8.self)
    }

    static let pieces = ["a", "Z", " ", "\"", "\\", "\n", "\u{1}", "\u{1F}", "\u{7F}", "é", "€", "😀", "/", "0"]

    @Test("strings are escaped as byte by byte, wherever in a word the byte to escape falls")
    func stringsAreEscapedAsByteByByte() {
        var generator = SplitMix64(seed: 7)
        for _ in 0..<3_000 {
            var text = ""
            for _ in 0..<Int(generator.next() % 40) {
                // Mostly plain letters, so that escapes fall at every offset of a word.
                text += generator.next() % 4 == 0 ? Self.pieces[Int(generator.next() % UInt64(Self.pieces.count))] : "x"
            }
            #expect(JSONWriter.string(.string(text)) == Self.referenceEscaped(text))
        }
    }

    @Test("canonical JSON orders members by their names' UTF-8 bytes, names sharing long prefixes included")
    func canonicalOrderIsByteOrder() {
        var generator = SplitMix64(seed: 11)
        let alphabet = ["a", "b", "aaaaaaaa", "aaaaaaab", "\u{0}", "é", "Z", "totalAudio", "totalVideo", ""]
        for _ in 0..<500 {
            var names = Set<String>()
            for _ in 0..<Int(generator.next() % 12) {
                var name = ""
                for _ in 0..<Int(generator.next() % 4) {
                    name += alphabet[Int(generator.next() % UInt64(alphabet.count))]
                }
                names.insert(name)
            }
            let object = JSONObject(
                uniqueKeysWithValues: names.shuffled(using: &generator).map { ($0, JSONValue.int(1)) })
            let sorted = names.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            let expected = JSONWriter.string(.object(JSONObject(uniqueKeysWithValues: sorted.map { ($0, .int(1)) })))
            #expect(String(decoding: CanonicalJSON.bytes(.object(object)), as: UTF8.self) == expected)
        }
    }

    @Test("the byte writer writes what JSONWriter writes for the same members")
    func byteWriterMatchesTheTree() {
        var writer = JSONByteWriter()
        writer.beginObject()
        writer.member("s", string: "a\"b")
        writer.member("n", optionalString: nil)
        writer.member("i", int: Int64.min)
        writer.member("b", bool: false)
        writer.member("o") { inner in
            inner.member("x", .array([.double(1.5), .null]))
            inner.member("e") { _ in }
        }
        writer.member("last", .string("é"))
        writer.endObject()
        let tree: JSONValue = .object(
            JSONObject(uniqueKeysWithValues: [
                ("s", .string("a\"b")), ("n", .null), ("i", .int(Int64.min)), ("b", .bool(false)),
                (
                    "o",
                    .object(
                        JSONObject(uniqueKeysWithValues: [
                            ("x", .array([.double(1.5), .null])), ("e", .object(JSONObject())),
                        ]))
                ),
                ("last", .string("é")),
            ]))
        #expect(String(decoding: writer.bytes, as: UTF8.self) == JSONWriter.string(tree))
    }
}
