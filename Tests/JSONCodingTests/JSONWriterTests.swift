import JSONCoding
import Testing

@Suite struct JSONWriterTests {
    @Test(arguments: [
        (JSONValue.null, "null"),
        (.bool(true), "true"),
        (.bool(false), "false"),
        (.int(0), "0"),
        (.int(-42), "-42"),
        (.int(.max), "9223372036854775807"),
        (.int(.min), "-9223372036854775808"),
        (.string(""), #""""#),
        (.array([]), "[]"),
        (.object(JSONObject()), "{}"),
        (.array([1, "two", [nil, true]]), #"[1,"two",[null,true]]"#),
        (.object(["b": 1, "a": ["c": [], "d": [:]]]), #"{"b":1,"a":{"c":[],"d":{}}}"#),
    ])
    func writesCompactText(value: JSONValue, expected: String) {
        #expect(JSONWriter.string(value) == expected)
        #expect(JSONWriter.bytes(value) == Array(expected.utf8))
        #expect(value.description == expected)
    }

    @Test(arguments: [
        (1.0, "1.0"),
        (-0.0, "-0.0"),
        (0.1, "0.1"),
        (1.5, "1.5"),
        (1e20, "1e+20"),
        (1e-7, "1e-07"),
        (123_456_789.125, "123456789.125"),
        (Double.greatestFiniteMagnitude, "1.7976931348623157e+308"),
        (Double.leastNonzeroMagnitude, "5e-324"),
    ])
    func writesDoublesInShortestRoundTripForm(value: Double, expected: String) throws {
        let text = JSONWriter.string(.double(value))
        #expect(text == expected)
        let back = try JSONParser.parse(text)
        #expect(back == .double(value))
        #expect(back.doubleValue?.bitPattern == value.bitPattern)
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity, .signalingNaN])
    func writesNonFiniteDoublesAsNull(value: Double) {
        #expect(JSONWriter.string([.double(value)]) == "[null]")
    }

    @Test func escapesEveryControlCharacter() throws {
        let short: [UInt8: String] = [0x08: #"\b"#, 0x09: #"\t"#, 0x0A: #"\n"#, 0x0C: #"\f"#, 0x0D: #"\r"#]
        let hexDigits = Array("0123456789abcdef")
        for byte in UInt8(0)..<0x20 {
            let string = String(Character(Unicode.Scalar(byte)))
            let escape = short[byte] ?? "\\u00" + String(hexDigits[Int(byte >> 4)]) + String(hexDigits[Int(byte & 0xF)])
            let text = JSONWriter.string(.string(string))
            #expect(text == "\"" + escape + "\"", "byte \(byte)")
            #expect(try JSONParser.parse(text) == .string(string))
        }
    }

    @Test func escapesQuotesAndBackslashesButNotSlashes() {
        #expect(JSONWriter.string(#"say "hi" \ bye / now"#) == #""say \"hi\" \\ bye / now""#)
        #expect(JSONWriter.string("\u{7F}") == "\"\u{7F}\"")
    }

    @Test func writesNonASCIIAsUTF8() {
        let value: JSONValue = ["clé": "é€😀\u{10FFFF}"]
        #expect(JSONWriter.bytes(value) == Array("{\"clé\":\"é€😀\u{10FFFF}\"}".utf8))
    }

    @Test func escapesInsideLongRunsOfPlainText() throws {
        let plain = String(repeating: "abcdefgh", count: 100)
        let value = JSONValue.string(plain + "\n" + plain + "\"" + plain)
        let text = JSONWriter.string(value)
        #expect(text == "\"" + plain + "\\n" + plain + "\\\"" + plain + "\"")
        #expect(try JSONParser.parse(text) == value)
    }

    @Test func objectKeysAreWrittenInInsertionOrder() {
        var object: JSONObject = ["z": 1, "a": 2]
        object["m"] = 3
        object["z"] = 4
        #expect(JSONWriter.string(.object(object)) == #"{"z":4,"a":2,"m":3}"#)
        object["z"] = nil
        object["z"] = 5
        #expect(JSONWriter.string(.object(object)) == #"{"a":2,"m":3,"z":5}"#)
    }

    @Test func appendsToExistingOutput() {
        var output = Array("prefix:".utf8)
        JSONWriter.write(["k": [1, 2]], into: &output)
        #expect(output == Array(#"prefix:{"k":[1,2]}"#.utf8))
    }
}
