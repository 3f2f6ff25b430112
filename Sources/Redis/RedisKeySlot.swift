/// The hash slot of a key in a Redis Cluster: CRC16 (XMODEM: polynomial 0x1021, initial value 0) of the key, or of
/// its hash tag, modulo 16384.
///
/// The hash tag is what lies between the first `{` and the first `}` after it, when that is not empty: `{room}:log`
/// and `{room}:seq` share a slot, so one script may touch both. A key without a tag hashes whole.
public enum RedisKeySlot {
    /// How many hash slots a Redis Cluster has.
    public static let count = 16_384

    /// The slot of `key`.
    ///
    /// - Parameter key: the key's bytes.
    public static func slot(of key: some Collection<UInt8>) -> Int {
        Int(self.crc16(self.hashedPart(of: key)) & UInt16(Self.count - 1))
    }

    /// The slot of `key`.
    ///
    /// - Parameter key: the key, hashed as its UTF-8 bytes.
    public static func slot(of key: String) -> Int {
        self.slot(of: Array(key.utf8))
    }

    /// The bytes that decide the slot: the hash tag when there is a non-empty one, else the whole key.
    static func hashedPart<Key: Collection<UInt8>>(of key: Key) -> Key.SubSequence {
        if let open = key.firstIndex(of: UInt8(ascii: "{")) {
            let afterOpen = key.index(after: open)
            if let close = key[afterOpen...].firstIndex(of: UInt8(ascii: "}")), close != afterOpen {
                return key[afterOpen..<close]
            }
        }
        return key[...]
    }

    /// CRC16-CCITT (XMODEM) of `bytes`, as Redis Cluster computes it: `"123456789"` gives 0x31C3.
    ///
    /// - Parameter bytes: the bytes.
    public static func crc16(_ bytes: some Sequence<UInt8>) -> UInt16 {
        var crc: UInt16 = 0
        for byte in bytes {
            crc = (crc << 8) ^ Self.table[Int(UInt8(truncatingIfNeeded: crc >> 8) ^ byte)]
        }
        return crc
    }

    /// The CRC of each byte value, computed once.
    private static let table: [UInt16] = (0..<256).map { value in
        var crc = UInt16(value) << 8
        for _ in 0..<8 {
            crc = crc & 0x8000 != 0 ? (crc << 1) ^ 0x1021 : crc << 1
        }
        return crc
    }
}
