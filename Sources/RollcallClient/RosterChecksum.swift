import JSONCoding

/// The roster checksum: the sum modulo 2^64 of FNV-1a over each entry's key, a zero byte and its canonical JSON.
public enum RosterChecksum {
    /// The checksum of a roster object in 16 lower-case hex digits.
    public static func hex(of roster: JSONObject) -> String {
        var sum = Self.hash(key: "room", roster["room"] ?? .object(JSONObject()))
        for (uid, entry) in roster["participants"]?.objectValue?.entries ?? [] {
            sum &+= Self.hash(key: uid, entry)
        }
        let digits = String(sum, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    static func hash(key: String, _ value: JSONValue) -> UInt64 {
        var bytes = Array(key.utf8)
        bytes.append(0)
        Self.canonical(value, into: &bytes)
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return hash
    }

    /// Canonical JSON: object keys sorted by their UTF-8 bytes, no whitespace.
    static func canonical(_ value: JSONValue, into output: inout [UInt8]) {
        switch value {
        case .object(let object):
            output.append(UInt8(ascii: "{"))
            let keys = object.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            for (index, key) in keys.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                JSONWriter.appendString(key, to: &output)
                output.append(UInt8(ascii: ":"))
                Self.canonical(object[key]!, into: &output)
            }
            output.append(UInt8(ascii: "}"))
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                Self.canonical(element, into: &output)
            }
            output.append(UInt8(ascii: "]"))
        default:
            JSONWriter.write(value, into: &output)
        }
    }
}
