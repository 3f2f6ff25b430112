import TestSupport
import Testing
import WebSocketCore

/// RFC 4648 §10 test vectors.
private let rfc4648Vectors: [(String, String)] = [
    ("", ""),
    ("f", "Zg=="),
    ("fo", "Zm8="),
    ("foo", "Zm9v"),
    ("foob", "Zm9vYg=="),
    ("fooba", "Zm9vYmE="),
    ("foobar", "Zm9vYmFy"),
]

private func decoded(_ text: String) -> [UInt8]? {
    Base64.decode(Array(text.utf8))
}

@Suite struct Base64Tests {
    @Test(arguments: rfc4648Vectors)
    func encodeMatchesTheRFC4648Vectors(plain: String, encoded: String) {
        #expect(Base64.encode(Array(plain.utf8)) == encoded)
        #expect(Base64.encode(plain.utf8) == encoded)
    }

    @Test(arguments: rfc4648Vectors)
    func decodeMatchesTheRFC4648Vectors(plain: String, encoded: String) {
        #expect(decoded(encoded) == Array(plain.utf8))
        #expect(Base64.decode(encoded.utf8) == Array(plain.utf8))
    }

    @Test func decodeAcceptsTheWholeAlphabet() {
        let text = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
        let bytes = decoded(text)
        #expect(bytes?.count == 48)
        #expect(bytes.map { Base64.encode($0) } == text)
    }

    @Test func encodingThenDecodingRoundTripsRandomBytes() {
        var generator = SplitMix64(seed: 0xB64)
        for count in 0..<100 {
            let bytes = generator.bytes(count: count)
            let text = Base64.encode(bytes)
            #expect(text.utf8.count == (count + 2) / 3 * 4)
            #expect(decoded(text) == bytes)
        }
    }

    @Test(arguments: [
        "Zg", "Zg=", "Zm9", "Zm9vY", "A", "ABCDE",  // length not a multiple of 4
        "Zm9v!A==", "Zm 9v", "Zm9v\n", "Zm-_", "Zm9\u{00}", "Zé==",  // outside the alphabet
        "====", "Z===", "=m9v", "Zm=v", "Zg==Zm9v", "Zm9=Zm9v", "Zg=a",  // misplaced or excess padding
        "Zh==", "Zm9=", "Zm+=", "QR==",  // non-zero bits left over by the padding
    ])
    func decodeRejectsMalformedText(text: String) {
        #expect(decoded(text) == nil)
    }
}
