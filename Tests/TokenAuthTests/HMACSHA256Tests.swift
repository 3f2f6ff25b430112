import Testing

@testable import TokenAuth

private func hex(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef")
    return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0F)]] })
}

@Suite struct HMACSHA256Tests {
    @Test func theRFC4231SecondTestCaseMatches() {
        let tag = HMACSHA256.authenticationCode(
            key: Array("Jefe".utf8),
            message: Array("what do ya want for nothing?".utf8)
        )
        #expect(tag.map(hex) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    @Test func theRFC4231SixthTestCaseWithAKeyLongerThanABlockMatches() {
        let tag = HMACSHA256.authenticationCode(
            key: [UInt8](repeating: 0xAA, count: 131),
            message: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8)
        )
        #expect(tag.map(hex) == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }

    @Test func theRFC7515ExampleSignatureIsTheHMACOfItsSigningInput() throws {
        let key = try #require(Base64URL.decode(Array(RFC7515.key.utf8)))
        let signingInput = Array("\(RFC7515.header).\(RFC7515.payload)".utf8)
        let tag = try #require(HMACSHA256.authenticationCode(key: key, message: signingInput))
        #expect(Base64URL.encode(tag) == RFC7515.signature)
    }

    @Test func anEmptyKeyIsRefused() {
        #expect(HMACSHA256.authenticationCode(key: [], message: [1, 2, 3]) == nil)
    }
}
