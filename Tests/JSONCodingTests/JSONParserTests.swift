import JSONCoding
import Testing

@Suite struct JSONParserTests {
    @Test func parsesTheRFC8259ImageObject() throws {
        let text = """
            {
              "Image": {
                "Width":  800,
                "Height": 600,
                "Title":  "View from 15th Floor",
                "Thumbnail": {
                  "Url":    "http://www.example.com/image/481989943",
                  "Height": 125,
                  "Width":  100
                },
                "Animated" : false,
                "IDs": [116, 943, 234, 38793]
              }
            }
            """
        let value = try JSONParser.parse(text)
        let image = try #require(value["Image"])
        #expect(image["Width"] == 800)
        #expect(image["Title"]?.stringValue == "View from 15th Floor")
        #expect(image["Thumbnail"]?["Url"] == "http://www.example.com/image/481989943")
        #expect(image["Animated"]?.boolValue == false)
        #expect(image["IDs"] == [116, 943, 234, 38793])
        #expect(image.objectValue?.keys == ["Width", "Height", "Title", "Thumbnail", "Animated", "IDs"])
    }

    @Test func parsesTheRFC8259ArrayOfLocations() throws {
        let text = """
            [
              {
                 "precision": "zip",
                 "Latitude":  37.7668,
                 "Longitude": -122.3959,
                 "Address":   "",
                 "City":      "SAN FRANCISCO",
                 "State":     "CA",
                 "Zip":       "94107",
                 "Country":   "US"
              },
              {
                 "precision": "zip",
                 "Latitude":  37.371991,
                 "Longitude": -122.026020,
                 "Address":   "",
                 "City":      "SUNNYVALE",
                 "State":     "CA",
                 "Zip":       "94085",
                 "Country":   "US"
              }
            ]
            """
        let value = try JSONParser.parse(text)
        #expect(value.arrayValue?.count == 2)
        #expect(value[0]?["Latitude"] == .double(37.7668))
        #expect(value[1]?["Longitude"] == .double(-122.026020))
        #expect(value[1]?["City"] == "SUNNYVALE")
        #expect(value[1]?["Address"] == "")
    }

    @Test(arguments: [
        ("\"Hello world!\"", JSONValue.string("Hello world!")),
        ("42", .int(42)),
        ("true", .bool(true)),
        ("false", .bool(false)),
        ("null", .null),
        (" \t\r\n[ ] \n", .array([])),
        ("{ }", .object(JSONObject())),
        ("[[[]]]", .array([[[]]])),
        ("{\"a\":{\"b\":[1,{\"c\":null}]}}", .object(["a": ["b": [1, ["c": nil]]]])),
    ])
    func parsesEveryKindOfTopLevelValue(text: String, expected: JSONValue) throws {
        #expect(try JSONParser.parse(text) == expected)
    }

    @Test(arguments: [
        ("0", JSONValue.int(0)),
        ("7", .int(7)),
        ("-123", .int(-123)),
        ("9223372036854775807", .int(.max)),
        ("-9223372036854775808", .int(.min)),
        ("9223372036854775808", .double(9_223_372_036_854_775_808)),
        ("-9223372036854775809", .double(-9_223_372_036_854_775_808)),
        ("123456789012345678901234567890", .double(1.2345678901234568e29)),
        ("1.5", .double(1.5)),
        ("1.0", .double(1)),
        ("-0.25", .double(-0.25)),
        ("1e3", .double(1000)),
        ("1E+3", .double(1000)),
        ("2.5e-3", .double(0.0025)),
        ("1e-400", .double(0)),
        ("1.7976931348623157e308", .double(.greatestFiniteMagnitude)),
        ("5e-324", .double(.leastNonzeroMagnitude)),
        ("0.1", .double(0.1)),
    ])
    func parsesNumbersAsExactIntegersOrDoubles(text: String, expected: JSONValue) throws {
        #expect(try JSONParser.parse(text) == expected)
    }

    @Test func negativeZeroKeepsItsSign() throws {
        for text in ["-0", "-0.0", "-0e0"] {
            let value = try JSONParser.parse(text)
            #expect(value == .double(0))
            #expect(value.doubleValue?.sign == .minus, "\(text)")
        }
        #expect(try JSONParser.parse("0") == .int(0))
    }

    @Test func bigIntegersBeyondInt64BecomeDoubles() throws {
        let value = try JSONParser.parse("[18446744073709551616, -18446744073709551616]")
        #expect(value == [.double(18_446_744_073_709_551_616), .double(-18_446_744_073_709_551_616)])
        #expect(value[0]?.intValue == nil)
    }

    @Test(arguments: [
        ("\"\\u00e9\"", "é"),
        ("\"\\u00C9\"", "É"),
        ("\"\\u20AC\"", "€"),
        ("\"\\ud83d\\ude00\"", "😀"),
        ("\"\\uD834\\uDD1E\"", "𝄞"),
        ("\"a\\u0000b\"", "a\u{0}b"),
        ("\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"", "\"\\/\u{8}\u{C}\n\r\t"),
        ("\"é€😀\"", "é€😀"),
        ("\"\\uFFFF\"", "\u{FFFF}"),
        ("\"x\\ud800\\udc00y\"", "x\u{10000}y"),
    ])
    func decodesEscapesAndSurrogatePairs(text: String, expected: String) throws {
        #expect(try JSONParser.parse(text) == .string(expected))
    }

    @Test func objectKeyOrderIsPreserved() throws {
        let value = try JSONParser.parse(#"{"zeta":1,"alpha":2,"mid":3,"beta":4}"#)
        #expect(value.objectValue?.keys == ["zeta", "alpha", "mid", "beta"])
        #expect(JSONWriter.string(value) == #"{"zeta":1,"alpha":2,"mid":3,"beta":4}"#)
    }

    @Test func largeObjectsAreIndexedAndKeepTheirOrder() throws {
        let keys = (0..<100).map { "k\(($0 * 37) % 100)" }
        let text = "{" + keys.enumerated().map { "\"\($1)\":\($0)" }.joined(separator: ",") + "}"
        let object = try #require(try JSONParser.parse(text).objectValue)
        #expect(object.keys == keys)
        for (position, key) in keys.enumerated() {
            #expect(object[key] == .int(Int64(position)))
        }
        #expect(parseError(String(text.dropLast()) + ",\"k50\":0}")?.kind == .duplicateKey)
    }

    @Test func allThreeInputFormsAgree() throws {
        let text = #"{"a":[1,2.5,"x",true,null]}"#
        let bytes = Array(text.utf8)
        let fromBuffer = try bytes.withUnsafeBytes { raw throws(JSONError) in try JSONParser.parse(raw) }
        #expect(try JSONParser.parse(text) == fromBuffer)
        #expect(try JSONParser.parse(bytes) == fromBuffer)
    }

    @Test func nestingExactlyAtTheLimitIsAccepted() throws {
        let text = String(repeating: "[", count: 16) + String(repeating: "]", count: 16)
        #expect(parsed(text) != nil)
        let objects = String(repeating: "{\"a\":", count: 16) + "1" + String(repeating: "}", count: 16)
        #expect(parsed(objects) != nil)
    }

    @Test func limitsAtTheirExactValuesAreAccepted() throws {
        let limits = JSONParser.Limits(
            maxInputBytes: 64,
            maxDepth: 2,
            maxStringBytes: 4,
            maxElementsPerContainer: 3,
            maxTotalNodes: 7
        )
        // Seven values: the outer array, three elements, the inner array and its two elements.
        #expect(parsed(#"["abcd",1,[2,"é"]]"#, limits: limits) != nil)
        #expect(parsed(#""\u00e9\u00e9""#, limits: limits) == "éé")
        #expect(parsed(Array(repeating: UInt8(ascii: " "), count: 63) + [UInt8(ascii: "1")], limits: limits) == 1)
    }

    @Test func deepNestingIsParsedWithoutRecursion() throws {
        let depth = 10_000
        let text = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        var value = try JSONParser.parse(text, limits: generousLimits)
        var levels = 0
        while let elements = value.arrayValue, let first = elements.first {
            value = first
            levels += 1
        }
        #expect(levels == depth - 1)
        #expect(parseError(String(repeating: "[", count: 100_000), limits: generousLimits)?.kind == .syntax)
    }
}
