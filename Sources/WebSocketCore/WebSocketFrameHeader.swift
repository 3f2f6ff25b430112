/// The fixed part of a frame (RFC 6455 §5.2).
public struct WebSocketFrameHeader: Hashable, Sendable {
    /// Whether this is the final fragment of a message.
    public var fin: Bool
    /// RSV1: set on the first frame of a compressed message when permessage-deflate is in use (RFC 7692 §6).
    public var rsv1: Bool
    public var rsv2: Bool
    public var rsv3: Bool
    public var opcode: WebSocketOpcode
    /// The masking key; clients must mask every frame, servers never do (§5.3).
    public var maskingKey: WebSocketMaskingKey?
    /// The payload length in bytes.
    public var payloadLength: Int

    public init(
        fin: Bool = true,
        rsv1: Bool = false,
        rsv2: Bool = false,
        rsv3: Bool = false,
        opcode: WebSocketOpcode,
        maskingKey: WebSocketMaskingKey? = nil,
        payloadLength: Int
    ) {
        self.fin = fin
        self.rsv1 = rsv1
        self.rsv2 = rsv2
        self.rsv3 = rsv3
        self.opcode = opcode
        self.maskingKey = maskingKey
        self.payloadLength = payloadLength
    }

    /// The most bytes a header can take: 2 fixed, 8 of extended length, 4 of masking key.
    public static let maximumSize = 14

    /// The header's size on the wire.
    public var encodedSize: Int {
        Self.encodedSize(payloadLength: self.payloadLength, masked: self.maskingKey != nil)
    }

    /// The size on the wire of a header for a payload of `payloadLength` bytes.
    @inlinable
    public static func encodedSize(payloadLength: Int, masked: Bool) -> Int {
        let lengthBytes = payloadLength < 126 ? 0 : (payloadLength <= 0xFFFF ? 2 : 8)
        return 2 + lengthBytes + (masked ? 4 : 0)
    }
}
