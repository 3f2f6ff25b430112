import Foundation
import JSONCoding

/// The vectors every Rollcall client and the server check themselves against (`Tests/Vectors`), for the Swift test
/// targets.
public enum SharedVectors {
    /// The `Tests/Vectors` folder of this checkout.
    public static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Tests/Vectors")

    /// A vector file, parsed.
    ///
    /// - Parameters:
    ///   - name: the file's name, such as `protocol.json`.
    ///   - limits: the parser's limits (the vectors hold deep and wide values).
    public static func load(_ name: String, limits: JSONParser.Limits = JSONParser.Limits()) throws -> JSONValue {
        let data = try Data(contentsOf: Self.directory.appendingPathComponent(name))
        return try JSONParser.parse(Array(data), limits: limits)
    }

    /// The strings of an array member, in order; empty when it is not an array.
    ///
    /// - Parameter value: the member.
    public static func strings(_ value: JSONValue?) -> [String] {
        value?.arrayValue?.compactMap(\.stringValue) ?? []
    }
}
