/// A frame's opcode (RFC 6455 §5.2, §11.8).
public struct WebSocketOpcode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The four-bit value on the wire.
    public let rawValue: UInt8

    public init?(rawValue: UInt8) {
        guard rawValue < 0x10 else { return nil }
        self.rawValue = rawValue
    }

    private init(uncheckedRawValue: UInt8) {
        self.rawValue = uncheckedRawValue
    }

    /// Corresponds to opcode 0x0.
    public static let continuation = WebSocketOpcode(uncheckedRawValue: 0x0)
    /// Corresponds to opcode 0x1.
    public static let text = WebSocketOpcode(uncheckedRawValue: 0x1)
    /// Corresponds to opcode 0x2.
    public static let binary = WebSocketOpcode(uncheckedRawValue: 0x2)
    /// Corresponds to opcode 0x8.
    public static let connectionClose = WebSocketOpcode(uncheckedRawValue: 0x8)
    /// Corresponds to opcode 0x9.
    public static let ping = WebSocketOpcode(uncheckedRawValue: 0x9)
    /// Corresponds to opcode 0xA.
    public static let pong = WebSocketOpcode(uncheckedRawValue: 0xA)

    /// Control frames have the high bit of the opcode set (§5.5).
    public var isControl: Bool { self.rawValue & 0x8 != 0 }

    /// Whether RFC 6455 defines this opcode; the others are reserved and fail the connection (§5.2).
    public var isDefined: Bool {
        switch self.rawValue {
        case 0x0, 0x1, 0x2, 0x8, 0x9, 0xA: return true
        default: return false
        }
    }

    public var description: String {
        switch self.rawValue {
        case 0x0: return "continuation"
        case 0x1: return "text"
        case 0x2: return "binary"
        case 0x8: return "close"
        case 0x9: return "ping"
        case 0xA: return "pong"
        default: return "reserved(0x\(String(self.rawValue, radix: 16)))"
        }
    }
}
