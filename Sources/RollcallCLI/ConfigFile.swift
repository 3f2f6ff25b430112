/// The configuration file format: `[section]` headers and `key = value` lines, `#` comments, values optionally in
/// double quotes. Keys are addressed as `section.key`.
public struct ConfigFile: Sendable {
    /// The settings in file order, as `section.key` and raw value, with the line each came from.
    public private(set) var entries: [(key: String, value: String, line: Int)] = []

    /// Parses the text of a configuration file.
    ///
    /// - Parameter text: the file's contents.
    /// - Throws: `ConfigError` naming the line of a malformed entry.
    public init(parsing text: String) throws(ConfigError) {
        var section = ""
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let lineNumber = index + 1
            let line = Self.stripComment(rawLine).trimmingWhitespace()
            if line.isEmpty { continue }
            if line.hasPrefix("[") {
                guard line.hasSuffix("]"), line.count > 2 else {
                    throw ConfigError("line \(lineNumber): malformed section header '\(line)'")
                }
                section = String(line.dropFirst().dropLast()).trimmingWhitespace()
                continue
            }
            guard let equals = line.firstIndex(of: "=") else {
                throw ConfigError("line \(lineNumber): expected 'key = value', found '\(line)'")
            }
            let key = String(line[..<equals]).trimmingWhitespace()
            var value = String(line[line.index(after: equals)...]).trimmingWhitespace()
            if value.count >= 2 && value.hasPrefix("\"") && value.hasSuffix("\"") {
                value = String(value.dropFirst().dropLast())
            }
            guard !key.isEmpty else { throw ConfigError("line \(lineNumber): empty key") }
            self.entries.append((section.isEmpty ? key : "\(section).\(key)", value, lineNumber))
        }
    }

    private static func stripComment(_ line: Substring) -> Substring {
        var inQuotes = false
        for index in line.indices {
            let character = line[index]
            if character == "\"" { inQuotes.toggle() }
            if character == "#" && !inQuotes { return line[..<index] }
        }
        return line
    }
}

/// A configuration problem, with a message that names the key or line and the reason.
public struct ConfigError: Error, CustomStringConvertible, Sendable {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}

extension StringProtocol {
    func trimmingWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
        guard let first = self.firstIndex(where: { !isSpace($0) }) else { return "" }
        let last = self.lastIndex(where: { !isSpace($0) })!
        return String(self[first...last])
    }
}
