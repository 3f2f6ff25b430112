/// The checksum the store keeps beside each record it writes (a log entry, a checkpoint) and checks when it reads the
/// record back: FNV-1a (64-bit) over the record's fields, each text preceded by its length, so that a changed byte
/// in any field, or bytes moved from one field to the next, give another value.
///
/// SQLite checks its pages (`PRAGMA quick_check`) but not what a record holds: bytes changed inside a valid page
/// (a bad sector, a stray write, a hand edit) read back as other data without this.
struct RecordChecksum {
    private var hash: UInt64 = 0xcbf2_9ce4_8422_2325

    /// The value as the `checksum` column holds it.
    var value: Int64 { Int64(bitPattern: self.hash) }

    /// Adds a number field.
    mutating func add(_ number: Int64) {
        var bits = UInt64(bitPattern: number)
        for _ in 0..<8 {
            self.mix(UInt8(truncatingIfNeeded: bits))
            bits >>= 8
        }
    }

    /// Adds a text field, by its UTF-8 bytes.
    mutating func add(_ text: String) {
        var text = text
        text.withUTF8 { self.add(bytes: UnsafeRawBufferPointer($0)) }
    }

    /// Adds a text field, by its bytes.
    mutating func add(bytes: UnsafeRawBufferPointer) {
        self.add(Int64(bytes.count))
        for byte in bytes { self.mix(byte) }
    }

    private mutating func mix(_ byte: UInt8) {
        self.hash = (self.hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
    }

    /// The checksum of a log entry's columns.
    static func entry(
        room: String, sequence: Int64, time: Int64, retentionClass: Int64, event: String, entry: String,
        message: String
    ) -> Int64 {
        var checksum = RecordChecksum()
        checksum.add(room)
        checksum.add(sequence)
        checksum.add(time)
        checksum.add(retentionClass)
        checksum.add(event)
        checksum.add(entry)
        checksum.add(message)
        return checksum.value
    }

    /// The checksum of a checkpoint's columns.
    static func checkpoint(room: String, sequence: Int64, body: String) -> Int64 {
        var checksum = RecordChecksum()
        checksum.add(room)
        checksum.add(sequence)
        checksum.add(body)
        return checksum.value
    }
}
