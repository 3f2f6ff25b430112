import Foundation
import Testing

@testable import RollcallCLI

/// Every key `rollcall serve --help` lists (the settings table) is named in docs/OPERATIONS.md and set in the
/// shipped config/rollcall.conf, so an operator finds each one documented with its unit.
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

    @Test("the help lists every key of the settings table")
    func helpListsTheTable() {
        #expect(Self.listedKeys == Settings.all.map(\.key))
    }

    @Test("docs/OPERATIONS.md names every key")
    func operationsNamesEveryKey() throws {
        let operations = try Self.text("docs/OPERATIONS.md")
        let missing = Self.listedKeys.filter { !operations.contains("`\($0)`") }
        #expect(missing.isEmpty, "not in docs/OPERATIONS.md: \(missing)")
    }

    @Test("config/rollcall.conf sets every key")
    func shippedFileSetsEveryKey() throws {
        let file = try ConfigFile(parsing: try Self.text("config/rollcall.conf"))
        let set = Set(file.entries.map(\.key))
        let missing = Self.listedKeys.filter { !set.contains($0) }
        #expect(missing.isEmpty, "not in config/rollcall.conf: \(missing)")
    }
}
