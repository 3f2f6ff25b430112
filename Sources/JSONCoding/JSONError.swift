/// Why a JSON text was rejected, and the byte offset where the parser found out.
public struct JSONError: Error, Hashable, Sendable, CustomStringConvertible {
    enum Reason: Hashable, Sendable {
        case unexpectedEndOfInput
        case unexpectedByte(UInt8)
        case invalidLiteral
        case expectedKey
        case expectedColon
        case expectedCommaOrClose(UInt8)
        case trailingCharacters
        case unterminatedString
        case missingDigit
        case leadingZero
        case numberOutOfRange
        case invalidEscape
        case invalidHexDigit
        case unpairedSurrogate
        case controlCharacter(UInt8)
        case invalidUTF8
        case duplicateKey
        case inputTooLarge(limit: Int)
        case nestingTooDeep(limit: Int)
        case stringTooLong(limit: Int)
        case tooManyElements(limit: Int)
        case tooManyNodes(limit: Int)
    }

    let reason: Reason

    /// The byte offset in the input of the first byte the parser could not accept.
    public let offset: Int

    init(_ reason: Reason, at offset: Int) {
        self.reason = reason
        self.offset = offset
    }

    /// The category of the failure, for example `.syntax` or `.duplicateKey`.
    public var kind: Kind {
        switch self.reason {
        case .unexpectedEndOfInput, .unexpectedByte, .invalidLiteral, .expectedKey, .expectedColon,
            .expectedCommaOrClose, .trailingCharacters, .unterminatedString:
            return .syntax
        case .missingDigit, .leadingZero, .numberOutOfRange:
            return .invalidNumber
        case .invalidEscape, .invalidHexDigit, .unpairedSurrogate:
            return .invalidEscape
        case .controlCharacter:
            return .controlCharacter
        case .invalidUTF8:
            return .invalidUTF8
        case .duplicateKey:
            return .duplicateKey
        case .inputTooLarge:
            return .inputTooLarge
        case .nestingTooDeep:
            return .nestingTooDeep
        case .stringTooLong:
            return .stringTooLong
        case .tooManyElements:
            return .tooManyElements
        case .tooManyNodes:
            return .tooManyNodes
        }
    }

    /// Whether the input broke a configured limit rather than the JSON grammar.
    public var isLimitExceeded: Bool {
        self.kind.isLimitExceeded
    }

    /// A one-line explanation with the byte offset, for logs.
    public var description: String {
        "invalid JSON at byte \(self.offset): \(self.message)"
    }

    private var message: String {
        switch self.reason {
        case .unexpectedEndOfInput: return "unexpected end of input"
        case .unexpectedByte(let byte): return "unexpected \(JSONError.describe(byte))"
        case .invalidLiteral: return "invalid literal, expected true, false or null"
        case .expectedKey: return "expected a string member name"
        case .expectedColon: return "expected ':' after a member name"
        case .expectedCommaOrClose(let close):
            return "expected ',' or '\(Character(Unicode.Scalar(close)))'"
        case .trailingCharacters: return "unexpected characters after the value"
        case .unterminatedString: return "unterminated string"
        case .missingDigit: return "expected a digit"
        case .leadingZero: return "leading zeros are not allowed"
        case .numberOutOfRange: return "number out of range"
        case .invalidEscape: return "invalid escape sequence"
        case .invalidHexDigit: return "expected four hexadecimal digits after \\u"
        case .unpairedSurrogate: return "unpaired UTF-16 surrogate in \\u escape"
        case .controlCharacter(let byte): return "unescaped control character \(JSONError.describe(byte)) in string"
        case .invalidUTF8: return "invalid UTF-8"
        case .duplicateKey: return "duplicate member name"
        case .inputTooLarge(let limit): return "input longer than \(limit) bytes"
        case .nestingTooDeep(let limit): return "nesting deeper than \(limit) levels"
        case .stringTooLong(let limit): return "string longer than \(limit) bytes"
        case .tooManyElements(let limit): return "container with more than \(limit) elements"
        case .tooManyNodes(let limit): return "document with more than \(limit) values"
        }
    }

    private static func describe(_ byte: UInt8) -> String {
        let hexDigits = Array("0123456789ABCDEF")
        let hex = "0x" + String(hexDigits[Int(byte >> 4)]) + String(hexDigits[Int(byte & 0xF)])
        if byte > 0x20 && byte < 0x7F {
            return "character '\(Character(Unicode.Scalar(byte)))' (\(hex))"
        }
        return "byte \(hex)"
    }
}
