import Testing

@testable import TokenAuth

/// RFC 4648 §10 test vectors, without padding.
private let rfc4648Vectors: [(String, String)] = [
    ("", ""),
    ("f", "Zg"),
    ("fo", "Zm8"),
    ("foo", "Zm9v"),
    ("foob", "Zm9vYg"),
    ("fooba", "Zm9vYmE"),
    ("foobar", "Zm9vYmFy"),
]

private func decoded(_ text: String) -> [UInt8]? {
    Base64URL.decode(Array(text.utf8))
}

@Suite struct Base64URLTests {
    @Test(arguments: rfc4648Vectors)
    func encodingMatchesTheRFC4648VectorsWithoutPadding(plain: String, encoded: String) {
        #expect(Base64URL.encode(Array(plain.utf8)) == encoded)
    }

    @Test(arguments: rfc4648Vectors)
    func decodingMatchesTheRFC4648VectorsWithoutPadding(plain: String, encoded: String) {
        #expect(decoded(encoded) == Array(plain.utf8))
    }

    @Test func theURLAlphabetReplacesPlusAndSlash() {
        #expect(Base64URL.encode([0xFB, 0xFF, 0xBF]) == "-_-_")
        #expect(decoded("-_-_") == [0xFB, 0xFF, 0xBF])
    }

    @Test func encodingThenDecodingRoundTripsEveryLength() {
        var state: UInt64 = 0x6A77_7400
        for count in 0..<100 {
            let bytes = (0..<count).map { _ -> UInt8 in
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return UInt8(truncatingIfNeeded: state >> 56)
            }
            let text = Base64URL.encode(bytes)
            #expect(text.utf8.count == (count * 4 + 2) / 3)
            #expect(!text.contains("="))
            #expect(decoded(text) == bytes)
        }
    }

    @Test(arguments: [
        "Zg==", "Zm8=", "Zg=",  // padding
        "+/+/", "ab+c", "ab/c",  // the standard alphabet
        "Z", "Zm9vY",  // a single character over
        "Zh", "Zm9", "Zm9vYh",  // non-zero bits after the last byte
        "Zm 9v", "Zm9v\n", "Zm9v.", "Zm9v\u{e9}",  // characters outside the alphabet
    ])
    func decodingRejectsNonCanonicalText(text: String) {
        #expect(decoded(text) == nil)
    }

    @Test func standardDecodingRequiresExactPadding() {
        #expect(Base64URL.decodeStandard(Array("Zg==".utf8)) == Array("f".utf8))
        #expect(Base64URL.decodeStandard(Array("Zm8=".utf8)) == Array("fo".utf8))
        #expect(Base64URL.decodeStandard(Array("+/+/".utf8)) == [0xFB, 0xFF, 0xBF])
        for text in ["Zg", "Zg=", "Zg===", "Zm9v=", "Zh==", "-_-_", "Zm9v===="] {
            #expect(Base64URL.decodeStandard(Array(text.utf8)) == nil, "\(text)")
        }
    }
}
