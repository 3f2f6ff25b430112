import JSONCoding
import Testing

@Suite struct JSONValueTests {
    @Test func accessorsReturnOnlyTheirOwnCase() {
        let string: JSONValue = "s"
        #expect(string.stringValue == "s")
        #expect(string.intValue == nil && string.doubleValue == nil && string.boolValue == nil)
        #expect(string.arrayValue == nil && string.objectValue == nil && !string.isNull)
        #expect(JSONValue.null.isNull)
        #expect(JSONValue.bool(true).boolValue == true)
        #expect(JSONValue.array([1]).arrayValue == [1])
        #expect(JSONValue.object(["a": 1]).objectValue == ["a": 1])
        #expect(string["a"] == nil && string[0] == nil)
    }

    @Test(arguments: [
        (JSONValue.int(7), Int64?.some(7)),
        (.int(.min), .min),
        (.double(3.0), 3),
        (.double(-0.0), 0),
        (.double(3.5), nil),
        (.double(9_223_372_036_854_774_784), 9_223_372_036_854_774_784),
        (.double(9_223_372_036_854_775_808), nil),
        (.double(-9_223_372_036_854_775_808), .min),
        (.double(.nan), nil),
        (.double(.infinity), nil),
        (.string("7"), nil),
    ])
    func intValueIsExact(value: JSONValue, expected: Int64?) {
        #expect(value.intValue == expected)
    }

    @Test func doubleValueConvertsIntegers() {
        #expect(JSONValue.int(3).doubleValue == 3)
        #expect(JSONValue.double(2.5).doubleValue == 2.5)
    }

    @Test func subscriptsReachIntoObjectsAndArrays() {
        let value: JSONValue = ["list": [10, ["deep": true]]]
        #expect(value["list"]?[1]?["deep"] == true)
        #expect(value["list"]?[2] == nil)
        #expect(value["list"]?[-1] == nil)
        #expect(value["missing"] == nil)
    }

    @Test func literalsBuildTheExpectedCases() {
        let value: JSONValue = [nil, true, 1, 1.5, "s", [], [:]]
        let expected: [JSONValue] = [.null, .bool(true), .int(1), .double(1.5), .string("s"), .array([]), .object([:])]
        #expect(value == .array(expected))
    }

    @Test func integersAndDoublesAreDistinctValues() {
        #expect(JSONValue.int(1) != JSONValue.double(1))
    }

    @Test func objectsSetReplaceAndRemoveMembers() {
        var object = JSONObject()
        #expect(object.isEmpty)
        #expect(object.updateValue(1, forKey: "a") == nil)
        #expect(object.updateValue(2, forKey: "b") == nil)
        #expect(object.updateValue(3, forKey: "a") == 1)
        #expect(object.keys == ["a", "b"])
        #expect(object.values == [3, 2])
        #expect(object.count == 2)
        #expect(object.contains(key: "b"))
        #expect(object.removeValue(forKey: "a") == 3)
        #expect(object.removeValue(forKey: "a") == nil)
        #expect(object.keys == ["b"])
        #expect(object.entries.map(\.value) == [2])
    }

    @Test func largeObjectsStayConsistentThroughRemovals() {
        var object = JSONObject()
        for number in 0..<50 {
            object["k\(number)"] = .int(Int64(number))
        }
        for number in stride(from: 0, to: 50, by: 3) {
            object["k\(number)"] = nil
        }
        let remaining = (0..<50).filter { !$0.isMultiple(of: 3) }
        #expect(object.keys == remaining.map { "k\($0)" })
        for number in 0..<50 {
            #expect(object["k\(number)"] == (number.isMultiple(of: 3) ? nil : .int(Int64(number))))
        }
        object["k0"] = 0
        #expect(object.keys.last == "k0")
        #expect(object["k49"] == 49)
    }

    @Test func objectEqualityAndHashingIgnoreMemberOrder() {
        let members = (0..<20).map { ("k\($0)", JSONValue.int(Int64($0))) }
        let forward = JSONObject(uniqueKeysWithValues: members)
        let backward = JSONObject(uniqueKeysWithValues: members.reversed())
        #expect(forward == backward)
        #expect(forward.hashValue == backward.hashValue)
        #expect(Set([JSONValue.object(forward), .object(backward)]).count == 1)
        var changed = backward
        changed["k3"] = 4
        #expect(forward != changed)
        let one: JSONObject = ["a": 1]
        let two: JSONObject = ["a": 1, "b": 2]
        #expect(one != two)
    }
}
