/// The four-byte key a client masks every frame payload with (RFC 6455 §5.3).
public struct WebSocketMaskingKey: Hashable, Sendable {
    /// The key's bytes in wire order.
    public var bytes: (UInt8, UInt8, UInt8, UInt8)

    public init(_ b0: UInt8, _ b1: UInt8, _ b2: UInt8, _ b3: UInt8) {
        self.bytes = (b0, b1, b2, b3)
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
    /// - Parameters:
    ///   - buffer: the payload bytes, or a later part of them.
    ///   - offset: how many payload bytes came before `buffer[0]`, so a payload can be unmasked in pieces.
    public func apply(to buffer: UnsafeMutableRawBufferPointer, offset: Int = 0) {
        let key = [self.bytes.0, self.bytes.1, self.bytes.2, self.bytes.3]
        for index in 0..<buffer.count {
            buffer[index] ^= key[(index &+ offset) & 3]
        }
    }
}
