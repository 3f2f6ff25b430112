/// The four-byte key a client masks every frame payload with (RFC 6455 §5.3).
public struct WebSocketMaskingKey: Hashable, Sendable {
    /// The key's bytes in wire order.
    public var bytes: (UInt8, UInt8, UInt8, UInt8)

    public init(_ b0: UInt8, _ b1: UInt8, _ b2: UInt8, _ b3: UInt8) {
        self.bytes = (b0, b1, b2, b3)
    }

    /// Creates a key from the 32-bit value of its four wire bytes read in network (big-endian) order.
    ///
    /// - Parameter word: the key, its most significant byte first on the wire.
    public init(word: UInt32) {
        self.bytes = (
            UInt8(truncatingIfNeeded: word >> 24),
            UInt8(truncatingIfNeeded: word >> 16),
            UInt8(truncatingIfNeeded: word >> 8),
            UInt8(truncatingIfNeeded: word)
        )
    }

    public static func == (lhs: WebSocketMaskingKey, rhs: WebSocketMaskingKey) -> Bool {
        lhs.bytes == rhs.bytes
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(self.bytes.0)
        hasher.combine(self.bytes.1)
        hasher.combine(self.bytes.2)
        hasher.combine(self.bytes.3)
    }

    /// Masks or unmasks `buffer` in place (the operation is its own inverse).
    ///
    /// Works eight bytes at a time with unaligned loads and stores; it allocates nothing.
    ///
    /// - Parameters:
    ///   - buffer: the payload bytes, or a later part of them.
    ///   - offset: how many payload bytes came before `buffer[0]`, so a payload can be unmasked in pieces.
    public func apply(to buffer: UnsafeMutableRawBufferPointer, offset: Int = 0) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        let count = buffer.count
        // The key as it lies in memory from buffer[0] on: rotated so that its first byte is key[offset & 3].
        // `ordered` holds that byte sequence least significant byte first, whatever the host's byte order.
        let ordered = self.littleEndianWord(rotatedBy: offset & 3)
        let word32 = UInt32(littleEndian: ordered)
        let word64 = UInt64(word32) | UInt64(word32) << 32

        var index = 0
        // Four words per iteration gives the optimizer independent loads and stores to overlap.
        while index &+ 32 <= count {
            let w0 = base.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            let w1 = base.loadUnaligned(fromByteOffset: index &+ 8, as: UInt64.self)
            let w2 = base.loadUnaligned(fromByteOffset: index &+ 16, as: UInt64.self)
            let w3 = base.loadUnaligned(fromByteOffset: index &+ 24, as: UInt64.self)
            base.storeBytes(of: w0 ^ word64, toByteOffset: index, as: UInt64.self)
            base.storeBytes(of: w1 ^ word64, toByteOffset: index &+ 8, as: UInt64.self)
            base.storeBytes(of: w2 ^ word64, toByteOffset: index &+ 16, as: UInt64.self)
            base.storeBytes(of: w3 ^ word64, toByteOffset: index &+ 24, as: UInt64.self)
            index &+= 32
        }
        while index &+ 8 <= count {
            let word = base.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            base.storeBytes(of: word ^ word64, toByteOffset: index, as: UInt64.self)
            index &+= 8
        }
        // Whole words keep the key's phase (8 is a multiple of 4), so the tail starts again at `ordered`'s low byte.
        var shift: UInt32 = 0
        while index < count {
            let byte = base.load(fromByteOffset: index, as: UInt8.self)
            let maskByte = UInt8(truncatingIfNeeded: ordered &>> shift)
            base.storeBytes(of: byte ^ maskByte, toByteOffset: index, as: UInt8.self)
            shift = (shift &+ 8) & 31
            index &+= 1
        }
    }

    /// The key bytes starting at `key[rotation]`, packed with the first of them in the least significant byte.
    @inline(__always)
    private func littleEndianWord(rotatedBy rotation: Int) -> UInt32 {
        let word =
            UInt32(self.bytes.0) | UInt32(self.bytes.1) << 8 | UInt32(self.bytes.2) << 16
            | UInt32(self.bytes.3) << 24
        let shift = UInt32(truncatingIfNeeded: rotation &* 8)
        return shift == 0 ? word : word &>> shift | word &<< (32 &- shift)
    }
}
