/// Every way a peer can break RFC 6455 or 7692, or a configured limit, mapped to its close code in one place.
public struct WebSocketProtocolViolation: Error, Hashable, Sendable, CustomStringConvertible {
    enum Kind: Hashable, Sendable {
        case reservedOpcode
        case reservedBitsSet
        case compressedControlOrContinuation
        case fragmentedControlFrame
        case controlFrameTooLong
        case unmaskedClientFrame
        case maskedServerFrame
        case lengthTopBitSet
        case nonMinimalLength
        case unexpectedContinuation
        case expectedContinuation
        case invalidUTF8
        case invalidCloseCode
        case invalidClosePayload
        case corruptCompressedData
        case frameTooLarge
        case messageTooLarge
        case tooManyFragments
        case internalError
    }

    let kind: Kind

    static let reservedOpcode = Self(kind: .reservedOpcode)
    static let reservedBitsSet = Self(kind: .reservedBitsSet)
    static let compressedControlOrContinuation = Self(kind: .compressedControlOrContinuation)
    static let fragmentedControlFrame = Self(kind: .fragmentedControlFrame)
    static let controlFrameTooLong = Self(kind: .controlFrameTooLong)
    static let unmaskedClientFrame = Self(kind: .unmaskedClientFrame)
    static let maskedServerFrame = Self(kind: .maskedServerFrame)
    static let lengthTopBitSet = Self(kind: .lengthTopBitSet)
    static let nonMinimalLength = Self(kind: .nonMinimalLength)
    static let unexpectedContinuation = Self(kind: .unexpectedContinuation)
    static let expectedContinuation = Self(kind: .expectedContinuation)
    static let invalidUTF8 = Self(kind: .invalidUTF8)
    static let invalidCloseCode = Self(kind: .invalidCloseCode)
    static let invalidClosePayload = Self(kind: .invalidClosePayload)
    static let corruptCompressedData = Self(kind: .corruptCompressedData)
    static let frameTooLarge = Self(kind: .frameTooLarge)
    static let messageTooLarge = Self(kind: .messageTooLarge)
    static let tooManyFragments = Self(kind: .tooManyFragments)
    static let internalError = Self(kind: .internalError)

    /// The close code the connection is failed with.
    public var closeCode: WebSocketCloseCode {
        switch self.kind {
        case .reservedOpcode, .reservedBitsSet, .compressedControlOrContinuation, .fragmentedControlFrame,
            .controlFrameTooLong, .unmaskedClientFrame, .maskedServerFrame, .lengthTopBitSet, .nonMinimalLength,
            .unexpectedContinuation, .expectedContinuation, .invalidCloseCode, .invalidClosePayload:
            return .protocolError
        case .invalidUTF8, .corruptCompressedData:
            return .invalidFramePayloadData
        case .tooManyFragments:
            return .policyViolation
        case .frameTooLarge, .messageTooLarge:
            return .messageTooBig
        case .internalError:
            return .internalServerError
        }
    }

    /// A short reason, sent as the Close frame's reason text.
    public var description: String {
        switch self.kind {
        case .reservedOpcode: return "reserved opcode"
        case .reservedBitsSet: return "reserved bits set"
        case .compressedControlOrContinuation: return "RSV1 on a control or continuation frame"
        case .fragmentedControlFrame: return "fragmented control frame"
        case .controlFrameTooLong: return "control frame longer than 125 bytes"
        case .unmaskedClientFrame: return "unmasked client frame"
        case .maskedServerFrame: return "masked server frame"
        case .lengthTopBitSet: return "64-bit length with the top bit set"
        case .nonMinimalLength: return "length not in its shortest form"
        case .unexpectedContinuation: return "continuation frame without a message"
        case .expectedContinuation: return "new message before the last one finished"
        case .invalidUTF8: return "invalid UTF-8 in a text message"
        case .invalidCloseCode: return "invalid close code"
        case .invalidClosePayload: return "close frame with a 1-byte payload"
        case .corruptCompressedData: return "invalid compressed data"
        case .frameTooLarge: return "frame too large"
        case .messageTooLarge: return "message too large"
        case .tooManyFragments: return "too many fragments in one message"
        case .internalError: return "internal error"
        }
    }
}
