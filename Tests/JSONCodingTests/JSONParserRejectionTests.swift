import JSONCoding
import Testing

/// An input the parser must reject, the kind it must report and where.
struct InvalidInput: Sendable, CustomTestStringConvertible {
    let name: String
    let bytes: [UInt8]
    let kind: JSONError.Kind
    let offset: Int?

    init(_ name: String, _ text: String, _ kind: JSONError.Kind, at offset: Int? = nil) {
        self.init(name, Array(text.utf8), kind, at: offset)
    }

    init(_ name: String, _ bytes: [UInt8], _ kind: JSONError.Kind, at offset: Int? = nil) {
        self.name = name
        self.bytes = bytes
        self.kind = kind
        self.offset = offset
    }

    var testDescription: String { self.name }
}

private let syntaxErrors: [InvalidInput] = [
    InvalidInput("empty input", "", .syntax, at: 0),
    InvalidInput("only whitespace", "  \n", .syntax, at: 3),
    InvalidInput("trailing comma in an array", "[1,]", .syntax, at: 3),
    InvalidInput("trailing comma in an object", #"{"a":1,}"#, .syntax, at: 7),
    InvalidInput("leading comma", "[,1]", .syntax, at: 1),
    InvalidInput("missing comma", "[1 2]", .syntax, at: 3),
    InvalidInput("missing colon", #"{"a" 1}"#, .syntax, at: 5),
    InvalidInput("unquoted key", "{a:1}", .syntax, at: 1),
    InvalidInput("single-quoted string", "['a']", .syntax, at: 1),
    InvalidInput("unclosed array", "[1,2", .syntax, at: 4),
    InvalidInput("unclosed object", #"{"a":1"#, .syntax, at: 6),
    InvalidInput("mismatched brackets", "[1}", .syntax, at: 2),
    InvalidInput("unterminated string", #""abc"#, .syntax, at: 0),
    InvalidInput("trailing garbage", "{} x", .syntax, at: 3),
    InvalidInput("two top-level values", "1 2", .syntax, at: 2),
    InvalidInput("NaN", "NaN", .syntax, at: 0),
    InvalidInput("Infinity", "Infinity", .syntax, at: 0),
    InvalidInput("line comment", "[1] // note", .syntax, at: 4),
    InvalidInput("block comment", "/* note */ 1", .syntax, at: 0),
    InvalidInput("misspelled literal", "nul", .syntax, at: 0),
    InvalidInput("capitalized literal", "True", .syntax, at: 0),
    InvalidInput("literal with a suffix", "truex", .syntax, at: 4),
    InvalidInput("form feed as whitespace", "\u{C}1", .syntax, at: 0),
    InvalidInput("no-break space as whitespace", "\u{A0}1", .syntax, at: 0),
    InvalidInput("byte order mark", [0xEF, 0xBB, 0xBF, UInt8(ascii: "1")], .syntax, at: 0),
    InvalidInput("plus sign", "+1", .syntax, at: 0),
    InvalidInput("bare fraction", ".5", .syntax, at: 0),
]

private let numberErrors: [InvalidInput] = [
    InvalidInput("leading zero", "01", .invalidNumber, at: 0),
    InvalidInput("negative leading zero", "-01", .invalidNumber, at: 1),
    InvalidInput("leading zero in an array", "[00]", .invalidNumber, at: 1),
    InvalidInput("minus alone", "-", .invalidNumber, at: 1),
    InvalidInput("negative Infinity", "-Infinity", .invalidNumber, at: 1),
    InvalidInput("fraction without digits", "1.", .invalidNumber, at: 2),
    InvalidInput("fraction followed by exponent", "1.e5", .invalidNumber, at: 2),
    InvalidInput("exponent without digits", "1e", .invalidNumber, at: 2),
    InvalidInput("signed exponent without digits", "1e+", .invalidNumber, at: 3),
    InvalidInput("hexadecimal", "0x10", .syntax, at: 1),
    InvalidInput("overflowing exponent", "1e400", .invalidNumber, at: 0),
    InvalidInput("overflowing negative number", "-1e999", .invalidNumber, at: 0),
]

private let stringErrors: [InvalidInput] = [
    InvalidInput("lone high surrogate", #""\ud800""#, .invalidEscape, at: 1),
    InvalidInput("lone low surrogate", #""\udc00""#, .invalidEscape, at: 1),
    InvalidInput("high surrogate then a letter", #""\ud800a""#, .invalidEscape, at: 1),
    InvalidInput("high surrogate then a non-surrogate", #""\ud800\u0041""#, .invalidEscape, at: 1),
    InvalidInput("two high surrogates", #""\ud800\ud800""#, .invalidEscape, at: 1),
    InvalidInput("unknown escape", #""\x41""#, .invalidEscape, at: 1),
    InvalidInput("short unicode escape", #""\u12""#, .invalidEscape, at: 5),
    InvalidInput("non-hex unicode escape", #""\u12g4""#, .invalidEscape, at: 5),
    InvalidInput("escaped single quote", #""\'""#, .invalidEscape, at: 1),
    InvalidInput("raw line feed in a string", "\"a\nb\"", .controlCharacter, at: 2),
    InvalidInput("raw tab in a string", "\"a\tb\"", .controlCharacter, at: 2),
    InvalidInput("raw NUL in a string", "\"\u{0}\"", .controlCharacter, at: 1),
    InvalidInput("raw unit separator in a key", "{\"\u{1F}\":1}", .controlCharacter, at: 2),
    InvalidInput("stray continuation byte", [0x22, 0x80, 0x22], .invalidUTF8, at: 1),
    InvalidInput("overlong slash", [0x22, 0xC0, 0xAF, 0x22], .invalidUTF8, at: 1),
    InvalidInput("overlong three-byte form", [0x22, 0xE0, 0x80, 0xAF, 0x22], .invalidUTF8, at: 1),
    InvalidInput("encoded surrogate", [0x22, 0xED, 0xA0, 0x80, 0x22], .invalidUTF8, at: 1),
    InvalidInput("above U+10FFFF", [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], .invalidUTF8, at: 1),
    InvalidInput("invalid lead byte", [0x22, 0xF5, 0x80, 0x80, 0x80, 0x22], .invalidUTF8, at: 1),
    InvalidInput("truncated sequence before the quote", [0x22, 0x61, 0xE2, 0x82, 0x22], .invalidUTF8, at: 2),
    InvalidInput("truncated sequence at the end", [0x22, 0xF0, 0x9F], .invalidUTF8, at: 1),
    InvalidInput("invalid UTF-8 in a key", [0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D], .invalidUTF8, at: 2),
    InvalidInput("duplicate key", #"{"a":1,"a":2}"#, .duplicateKey, at: 7),
    InvalidInput("duplicate key in a nested object", #"[{"b":{"x":1,"y":2,"x":3}}]"#, .duplicateKey, at: 19),
]

private let limitErrors: [InvalidInput] = [
    InvalidInput("nesting one past the limit", String(repeating: "[", count: 17), .nestingTooDeep, at: 16),
    InvalidInput("64 KiB of open brackets", String(repeating: "[", count: 64 * 1024), .nestingTooDeep, at: 16),
    InvalidInput(
        "objects nested one past the limit",
        String(repeating: "{\"a\":", count: 17) + "1" + String(repeating: "}", count: 17),
        .nestingTooDeep,
        at: 80
    ),
    InvalidInput(
        "string one byte too long",
        "\"" + String(repeating: "a", count: 16 * 1024 + 1) + "\"",
        .stringTooLong,
        at: 0
    ),
    InvalidInput(
        "escaped string one byte too long",
        "\"" + String(repeating: "\\n", count: 16 * 1024 + 1) + "\"",
        .stringTooLong
    ),
    InvalidInput("key too long", "{\"" + String(repeating: "k", count: 16 * 1024 + 1) + "\":1}", .stringTooLong),
    InvalidInput(
        "array one element too long",
        "[" + Array(repeating: "0", count: 4097).joined(separator: ",") + "]",
        .tooManyElements,
        at: 8193
    ),
    InvalidInput(
        "object one member too long",
        "{" + (0...4096).map { "\"\($0)\":0" }.joined(separator: ",") + "}",
        .tooManyElements
    ),
    InvalidInput(
        "too many values in total",
        "[" + Array(repeating: "[0,0,0]", count: 4096).joined(separator: ",") + "]",
        .tooManyNodes
    ),
    InvalidInput("input one byte over the limit", [UInt8](repeating: 0x20, count: 64 * 1024) + [0x31], .inputTooLarge),
]

@Suite struct JSONParserRejectionTests {
    @Test(arguments: syntaxErrors + numberErrors + stringErrors + limitErrors)
    func invalidInputIsRejectedWithTheRightKind(input: InvalidInput) {
        let error = parseError(input.bytes)
        #expect(error?.kind == input.kind, "\(error.map(String.init(describing:)) ?? "accepted")")
        if let offset = input.offset {
            #expect(error?.offset == offset)
        }
        #expect(error?.isLimitExceeded == input.kind.isLimitExceeded)
    }

    @Test func limitsCanBeRaised() {
        let limits = JSONParser.Limits(maxDepth: 100, maxStringBytes: 20_000, maxElementsPerContainer: 5000)
        #expect(parsed(String(repeating: "[", count: 17) + String(repeating: "]", count: 17), limits: limits) != nil)
        #expect(parsed("\"" + String(repeating: "a", count: 16 * 1024 + 1) + "\"", limits: limits) != nil)
        #expect(parsed("[" + Array(repeating: "0", count: 4097).joined(separator: ",") + "]", limits: limits) != nil)
    }

    @Test func limitsCanBeLowered() {
        let limits = JSONParser.Limits(
            maxInputBytes: 10,
            maxDepth: 1,
            maxStringBytes: 2,
            maxElementsPerContainer: 2,
            maxTotalNodes: 4
        )
        #expect(parseError("[[]]", limits: limits)?.kind == .nestingTooDeep)
        #expect(parseError(#""abc""#, limits: limits)?.kind == .stringTooLong)
        #expect(parseError(#""é€""#, limits: limits)?.kind == .stringTooLong)
        #expect(parseError("[1,2,3]", limits: limits)?.kind == .tooManyElements)
        #expect(parseError("[1,2]", limits: limits) == nil)
        #expect(parseError("12345678901", limits: limits)?.kind == .inputTooLarge)
        #expect(parseError(#"{"a":1,"b":2}"#, limits: JSONParser.Limits(maxTotalNodes: 2))?.kind == .tooManyNodes)
    }

    @Test func errorsDescribeTheProblemAndItsOffset() {
        let error = parseError("[1,]")
        #expect(error?.description == "invalid JSON at byte 3: unexpected character ']' (0x5D)")
        #expect(parseError("{\"a\":1,\"a\":2}")?.description == "invalid JSON at byte 7: duplicate member name")
        #expect(parseError("\"\u{1}\"")?.description.contains("control character byte 0x01") == true)
        #expect(JSONError.Kind.tooManyNodes.description == "too many nodes")
    }
}
