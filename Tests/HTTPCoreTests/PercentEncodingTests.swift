import HTTPCore
import Testing

@Suite struct PercentEncodingTests {
    @Test func aQueryValueReadsPlusAsASpaceAndAPathSegmentAsAPlus() {
        #expect(PercentEncoding.decode("a+b%2Bc", plus: .space) == "a b+c")
        #expect(PercentEncoding.decode("a+b%2Bc", plus: .literal) == "a+b+c")
    }

    @Test func escapesDecodeToUTF8InEitherCase() {
        #expect(PercentEncoding.decode("caf%C3%A9%20%f0%9f%8e%89", plus: .literal) == "café 🎉")
    }

    @Test func aBrokenEscapeOrBytesThatAreNotUTF8AreRefused() {
        #expect(PercentEncoding.decode("100%", plus: .literal) == nil)
        #expect(PercentEncoding.decode("%4", plus: .literal) == nil)
        #expect(PercentEncoding.decode("%zz", plus: .space) == nil)
        #expect(PercentEncoding.decode("%C3%28", plus: .literal) == nil)
    }

    @Test func encodingKeepsOnlyUnreservedCharactersAndRoundTrips() {
        let text = "eyJ.a-b_c~d e+f/g?h=i&j%k é🎉"
        let encoded = PercentEncoding.encode(text)
        #expect(encoded.utf8.allSatisfy { $0 == UInt8(ascii: "%") || $0 < 0x80 })
        #expect(!encoded.contains("+") && !encoded.contains(" ") && !encoded.contains("&"))
        #expect(encoded.hasPrefix("eyJ.a-b_c~d%20e%2Bf%2Fg"))
        #expect(PercentEncoding.decode(encoded, plus: .space) == text)
        #expect(PercentEncoding.decode(encoded, plus: .literal) == text)
    }
}
