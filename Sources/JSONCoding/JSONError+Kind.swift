extension JSONError {
    /// The category of a `JSONError`; compare with the static members, for example `error.kind == .syntax`.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        enum Base: Hashable, Sendable {
            case syntax
            case invalidNumber
            case invalidEscape
            case controlCharacter
            case invalidUTF8
            case duplicateKey
            case inputTooLarge
            case nestingTooDeep
            case stringTooLong
            case tooManyElements
            case tooManyNodes
        }

        let base: Base

        /// Not JSON: an unexpected character, a missing separator, a trailing comma, trailing characters.
        public static let syntax = Kind(base: .syntax)
        /// A malformed number (a leading zero, a missing digit) or one outside the range of `Double`.
        public static let invalidNumber = Kind(base: .invalidNumber)
        /// An unknown escape, a bad `\u` sequence or an unpaired surrogate.
        public static let invalidEscape = Kind(base: .invalidEscape)
        /// A character below U+0020 written unescaped in a string.
        public static let controlCharacter = Kind(base: .controlCharacter)
        /// Bytes in a string that are not valid UTF-8.
        public static let invalidUTF8 = Kind(base: .invalidUTF8)
        /// An object with the same member name twice.
        public static let duplicateKey = Kind(base: .duplicateKey)
        /// The input is longer than `JSONParser.Limits.maxInputBytes`.
        public static let inputTooLarge = Kind(base: .inputTooLarge)
        /// Containers nested deeper than `JSONParser.Limits.maxDepth`.
        public static let nestingTooDeep = Kind(base: .nestingTooDeep)
        /// A string longer than `JSONParser.Limits.maxStringBytes` once decoded.
        public static let stringTooLong = Kind(base: .stringTooLong)
        /// A container with more than `JSONParser.Limits.maxElementsPerContainer` elements.
        public static let tooManyElements = Kind(base: .tooManyElements)
        /// A document with more than `JSONParser.Limits.maxTotalNodes` values.
        public static let tooManyNodes = Kind(base: .tooManyNodes)

        /// Whether this kind means a configured limit was exceeded.
        public var isLimitExceeded: Bool {
            switch self.base {
            case .inputTooLarge, .nestingTooDeep, .stringTooLong, .tooManyElements, .tooManyNodes: return true
            default: return false
            }
        }

        /// The kind's name in words, for example `duplicate key`.
        public var description: String {
            switch self.base {
            case .syntax: return "syntax"
            case .invalidNumber: return "invalid number"
            case .invalidEscape: return "invalid escape"
            case .controlCharacter: return "control character"
            case .invalidUTF8: return "invalid UTF-8"
            case .duplicateKey: return "duplicate key"
            case .inputTooLarge: return "input too large"
            case .nestingTooDeep: return "nesting too deep"
            case .stringTooLong: return "string too long"
            case .tooManyElements: return "too many elements"
            case .tooManyNodes: return "too many nodes"
            }
        }
    }
}
