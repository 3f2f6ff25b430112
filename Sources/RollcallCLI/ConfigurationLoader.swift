import Foundation
import WebSocketServer

/// Builds the effective configuration from, in rising precedence: built-in defaults, the configuration file,
/// `ROLLCALL_*` environment variables, and `--set key=value` flags.
public struct ConfigurationLoader {
    /// The file read when `--config` is not given, relative to the working directory (skipped when absent).
    public static let defaultPath = "config/rollcall.conf"

    /// Where each key's effective value came from, for `check-config`.
    public private(set) var origins: [String: String] = [:]

    public init() {}

    /// Loads the configuration.
    ///
    /// - Parameters:
    ///   - path: the file given with `--config`, or nil for the default file if present.
    ///   - environment: the process environment.
    ///   - overrides: `key=value` pairs from the command line, applied last.
    /// - Throws: `ConfigError` that names the key (or file line) and the reason.
    public mutating func load(
        path: String?,
        environment: [String: String],
        overrides: [(String, String)]
    ) throws(ConfigError) -> RollcallConfiguration {
        var configuration = RollcallConfiguration()
        let filePath = path ?? (FileManager.default.fileExists(atPath: Self.defaultPath) ? Self.defaultPath : nil)
        if let filePath {
            guard let text = try? String(contentsOfFile: filePath, encoding: .utf8) else {
                throw ConfigError("cannot read the configuration file \(filePath)")
            }
            let file: ConfigFile
            do {
                file = try ConfigFile(parsing: text)
            } catch {
                throw ConfigError("\(filePath): \(error.description)")
            }
            for entry in file.entries {
                try self.apply(entry.key, entry.value, to: &configuration, origin: "\(filePath):\(entry.line)")
            }
        }
        for setting in Settings.all {
            if let value = environment[Self.environmentName(of: setting.key)] {
                try self.apply(setting.key, value, to: &configuration, origin: Self.environmentName(of: setting.key))
            }
        }
        for (key, value) in overrides {
            try self.apply(key, value, to: &configuration, origin: "command line")
        }
        try Settings.validate(configuration)
        return configuration
    }

    /// The environment variable for a key: `server.listen` → `ROLLCALL_SERVER_LISTEN`.
    public static func environmentName(of key: String) -> String {
        "ROLLCALL_" + key.uppercased().replacingOccurrences(of: ".", with: "_")
    }

    private mutating func apply(
        _ key: String,
        _ value: String,
        to configuration: inout RollcallConfiguration,
        origin: String
    ) throws(ConfigError) {
        guard let setting = Settings.named(key) else {
            throw ConfigError("\(key): unknown key (from \(origin))")
        }
        do {
            try setting.apply(&configuration, value)
        } catch {
            throw ConfigError("\(error.description) (from \(origin))")
        }
        self.origins[key] = origin
    }

    /// The effective configuration as `key = value  # origin` lines.
    public func describe(_ configuration: RollcallConfiguration) -> String {
        Settings.all.map { setting in
            let value: String
            switch setting.key {
            case "auth.keys": value = Self.redactedKeys(configuration.auth.keys)
            case "api.keys": value = Self.redactedKeys(configuration.api.keys)
            default: value = setting.read(configuration)
            }
            return "\(setting.key) = \(value)  # \(self.origins[setting.key] ?? "default")"
        }.joined(separator: "\n")
    }

    /// Key ids with the secrets hidden, for printing.
    static func redactedKeys(_ keys: [String]) -> String {
        keys.map { key in
            guard let colon = key.firstIndex(of: ":") else { return "(secret)" }
            return "\(key[..<colon]):(secret)"
        }.joined(separator: ", ")
    }

    /// Every key with its help text, for `--help`.
    public static var reference: String {
        Settings.all.map { "  \($0.key)\n      \($0.help) (default: \($0.read(RollcallConfiguration())))" }
            .joined(separator: "\n")
    }
}
