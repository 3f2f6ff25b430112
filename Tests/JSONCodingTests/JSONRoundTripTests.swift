import JSONCoding
import TestSupport
import Testing

@Suite struct JSONRoundTripTests {
    @Test(arguments: 0..<8)
    func parsingWhatWasWrittenGivesTheSameValue(seed: UInt64) throws {
        var generator = SplitMix64(seed: 0x4A53_4F4E + seed)
        for _ in 0..<200 {
            let value = generator.jsonValue(depth: 4)
            let text = JSONWriter.bytes(value)
            let back = try JSONParser.parse(text, limits: generousLimits)
            #expect(back == value, "\(value)")
            // Equality ignores member order; the written text does not.
            #expect(JSONWriter.bytes(back) == text)
        }
    }

    @Test(arguments: 0..<4)
    func randomDoublesSurviveTheTripBitForBit(seed: UInt64) throws {
        var generator = SplitMix64(seed: 0xD0B1E + seed)
        for _ in 0..<2000 {
            let value = generator.finiteDouble()
            let back = try JSONParser.parse(JSONWriter.bytes(.double(value)))
            #expect(back.doubleValue?.bitPattern == value.bitPattern, "\(value)")
        }
    }

    @Test func randomIntegersStayExact() throws {
        var generator = SplitMix64(seed: 0x1_4764)
        for _ in 0..<2000 {
            let value = generator.int64()
            #expect(try JSONParser.parse(JSONWriter.bytes(.int(value))) == .int(value))
        }
    }

    @Test func deeplyNestedValuesRoundTrip() throws {
        var value: JSONValue = "leaf"
        for level in 0..<2000 {
            value = level.isMultiple(of: 2) ? [value] : ["k": value]
        }
        let text = JSONWriter.bytes(value)
        #expect(try JSONParser.parse(text, limits: generousLimits) == value)
        #expect(parseError(text)?.kind == .nestingTooDeep)
    }
}
