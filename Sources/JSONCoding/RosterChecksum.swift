/// The roster checksum every Rollcall client checks after each snapshot and patch (docs/PROTOCOL.md, "patch"): the
/// sum modulo 2^64 of one 64-bit FNV-1a hash per entry of the roster object (`room`, and each participant by uid),
/// each over the entry's key, a zero byte and the entry's canonical JSON; written as 16 lower-case hex digits.
///
/// The sum does not depend on the entries' order, so the server keeps it up to date entry by entry.
public enum RosterChecksum {
    /// The checksum of a roster object `{"room": {...}, "participants": {uid: {...}}}`.
    ///
    /// - Parameter roster: the roster object.
    public static func value(of roster: JSONObject) -> UInt64 {
        var sum = Self.hash(key: "room", roster["room"] ?? .object(JSONObject()))
        for (uid, entry) in roster["participants"]?.objectValue?.entries ?? [] {
            sum &+= Self.hash(key: uid, entry)
        }
        return sum
    }

    /// The checksum of a roster object in 16 lower-case hex digits, as the server sends it.
    ///
    /// - Parameter roster: the roster object.
    public static func hex(of roster: JSONObject) -> String {
        Self.hex(Self.value(of: roster))
    }

    /// One entry's hash: FNV-1a (64-bit) of the key, a zero byte, and the value's canonical JSON.
    ///
    /// - Parameters:
    ///   - key: `room` or the participant's uid.
    ///   - value: the entry.
    public static func hash(key: String, _ value: JSONValue) -> UInt64 {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(512)
        bytes.append(contentsOf: key.utf8)
        bytes.append(0)
        CanonicalJSON.write(value, into: &bytes)
        return Self.fnv1a(bytes)
    }

    /// FNV-1a (64-bit) of `bytes`: an entry's hash once its key, a zero byte and its canonical JSON are written
    /// out (a caller that writes the canonical JSON itself, field by field).
    ///
    /// - Parameter bytes: the bytes.
    public static func fnv1a(_ bytes: [UInt8]) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return hash
    }

    /// A checksum in 16 lower-case hex digits.
    ///
    /// - Parameter value: the checksum.
    public static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
