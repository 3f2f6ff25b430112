import Foundation
import JSONCoding
import TestSupport
import Testing

/// The vectors every Rollcall client shares (`Tests/Vectors`): the Swift implementation of the roster checksum and
/// of merge patches must give exactly what they say, as the JavaScript and Python clients must.
@Suite struct SharedVectorTests {
    static func vectors(_ name: String) throws -> JSONValue {
        try SharedVectors.load(name, limits: generousLimits)
    }

    @Test func everyRosterChecksumVectorMatches() throws {
        let cases = try #require(try Self.vectors("roster-checksum.json")["cases"]?.arrayValue)
        #expect(cases.count >= 7)
        for vector in cases {
            let roster = try #require(vector["roster"]?.objectValue)
            #expect(RosterChecksum.hex(of: roster) == vector["checksum"]?.stringValue, "\(vector["name"] ?? .null)")
        }
    }

    @Test func everyMergePatchApplicationVectorMatches() throws {
        let cases = try #require(try Self.vectors("merge-patch.json")["apply"]?.arrayValue)
        #expect(cases.count == 15)
        for vector in cases {
            let result = JSONMergePatch.apply(vector["patch"] ?? .null, to: vector["target"] ?? .null)
            #expect(result == vector["result"], "\(vector["patch"] ?? .null)")
        }
    }

    @Test func everyMergePatchDiffVectorIsTheSmallestPatchAndAppliesBack() throws {
        let cases = try #require(try Self.vectors("merge-patch.json")["diff"]?.arrayValue)
        for vector in cases {
            let before = try #require(vector["before"]?.objectValue)
            let after = try #require(vector["after"]?.objectValue)
            let expected = try #require(vector["patch"]?.objectValue)
            let patch = JSONMergePatch.diff(before, after) ?? JSONObject()
            #expect(patch == expected, "\(vector["name"] ?? .null)")
            #expect(JSONMergePatch.apply(.object(patch), to: .object(before)) == .object(after))
        }
    }

    @Test func canonicalFormSortsKeysByUTF8BytesNotUTF16Units() {
        let value: JSONValue = .object(
            JSONObject(uniqueKeysWithValues: [("\u{1F600}", .int(1)), ("\u{FF61}", .int(2))]))
        #expect(String(decoding: CanonicalJSON.bytes(value), as: UTF8.self) == "{\"\u{FF61}\":2,\"\u{1F600}\":1}")
    }
}
