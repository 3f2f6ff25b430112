import Foundation
import Testing

@testable import RollcallCLI

/// Every key `rollcall serve --help` lists (the settings table, and the keys of a webhook endpoint's block) is named
/// in docs/OPERATIONS.md and in the shipped config/rollcall.conf, so an operator finds each one documented with its
/// unit.
@Suite("Documented configuration keys")
struct DocumentedKeysTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func text(_ path: String) throws -> String {
        try String(contentsOf: Self.root.appendingPathComponent(path), encoding: .utf8)
    }

    /// The keys of the reference `--help` prints, one per line of two-space indentation.
    static var listedKeys: [String] {
        ConfigurationLoader.reference.split(separator: "\n").filter { $0.hasPrefix("  ") && !$0.hasPrefix("   ") }
            .map { String($0.dropFirst(2)) }
    }

    /// The keys of a webhook endpoint's block as the help lists them, `webhooks.endpoint.NAME.url` and the others.
    static var endpointBlockKeys: [String] {
        Settings.endpointKeys.map { "\(Settings.endpointPrefix)NAME.\($0.field)" }
    }

    @Test("the help lists every key of the settings table, and an endpoint block's keys after the other webhooks keys")
    func helpListsTheTable() throws {
        let listed = Self.listedKeys
        #expect(listed.filter { !$0.hasPrefix(Settings.endpointPrefix) } == Settings.all.map(\.key))
        let firstBlockKey = try #require(listed.firstIndex { $0.hasPrefix(Settings.endpointPrefix) })
        #expect(Array(listed[firstBlockKey..<(firstBlockKey + Self.endpointBlockKeys.count)]) == Self.endpointBlockKeys)
        #expect(listed[firstBlockKey - 1].hasPrefix("webhooks."))
    }

    @Test("docs/OPERATIONS.md names every key")
    func operationsNamesEveryKey() throws {
        let operations = try Self.text("docs/OPERATIONS.md")
        let missing = Self.listedKeys.filter { !operations.contains("`\($0)`") }
        #expect(missing.isEmpty, "not in docs/OPERATIONS.md: \(missing)")
    }

    @Test("config/rollcall.conf sets every key, and describes an endpoint's block with each of its keys")
    func shippedFileSetsEveryKey() throws {
        let text = try Self.text("config/rollcall.conf")
        let file = try ConfigFile(parsing: text)
        let set = Set(file.entries.map(\.key))
        let missing = Settings.all.map(\.key).filter { !set.contains($0) }
        #expect(missing.isEmpty, "not in config/rollcall.conf: \(missing)")
        // No endpoint is configured by default: the file's comments describe the block.
        let undescribed = Self.endpointBlockKeys.filter { !text.contains($0) }
        #expect(undescribed.isEmpty, "not described in config/rollcall.conf: \(undescribed)")
        #expect(text.contains("# [\(Settings.endpointPrefix)"))
    }
}
