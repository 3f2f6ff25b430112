import Foundation
import WebSocketServer

/// Builds the effective configuration from, in rising precedence: built-in defaults, the configuration file,
/// `ROLLCALL_*` environment variables, and `--set key=value` flags.
public struct ConfigurationLoader {
    /// The file read when `--config` is not given, relative to the working directory (skipped when absent).
    public static let defaultPath = "config/rollcall.conf"

    /// Where each key's effective value came from, for `check-config`.
    public private(set) var origins: [String: String] = [:]
    /// What the configuration holds that is read no more but harms nothing (`serve` logs it, `check-config` prints
    /// it), each with where it came from.
    public private(set) var warnings: [String] = []

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
        for key in Settings.all.map(\.key) + Settings.retiredEndpointLists.keys.sorted() {
            if let value = environment[Self.environmentName(of: key)] {
                try self.apply(key, value, to: &configuration, origin: Self.environmentName(of: key))
            }
        }
        let endpointNames = Set(
            configuration.webhooks.endpoints.keys + overrides.compactMap { Settings.endpointName(ofKey: $0.0) })
        for (key, variable) in Settings.endpointVariables(in: environment, named: endpointNames) {
            try self.apply(key, environment[variable]!, to: &configuration, origin: variable)
        }
        for (key, value) in overrides {
            try self.apply(key, value, to: &configuration, origin: "command line")
        }
        try Settings.validate(configuration)
        return configuration
    }

    /// The environment variable for a key: `server.listen` → `ROLLCALL_SERVER_LISTEN` (and a `-` in an endpoint's
    /// name becomes `_` too).
    public static func environmentName(of key: String) -> String {
        "ROLLCALL_" + key.uppercased().replacingOccurrences(of: ".", with: "_").replacingOccurrences(of: "-", with: "_")
    }

    private mutating func apply(
        _ key: String,
        _ value: String,
        to configuration: inout RollcallConfiguration,
        origin: String
    ) throws(ConfigError) {
        do throws(ConfigError) {
            guard let setting = try Settings.named(key) else {
                switch Settings.retiredEndpointList(key, value) {
                case .success(let warning)?:
                    self.warnings.append("\(warning) (from \(origin))")
                    return
                case .failure(let refusal)?:
                    throw refusal
                case nil:
                    throw ConfigError("\(key): unknown key")
                }
            }
            try setting.apply(&configuration, value)
        } catch {
            throw ConfigError("\(error.description) (from \(origin))")
        }
        self.origins[key] = origin
    }

    /// The effective configuration as `key = value  # origin` lines.
    public func describe(_ configuration: RollcallConfiguration) -> String {
        var lines = Settings.all.map { setting in
            let value: String
            switch setting.key {
            case "auth.keys": value = Self.redactedKeys(configuration.auth.keys)
            case "api.keys": value = Self.redactedKeys(configuration.api.keys)
            default: value = setting.read(configuration)
            }
            return "\(setting.key) = \(value)  # \(self.origins[setting.key] ?? "default")"
        }
        let endpoints = configuration.webhooks.endpoints.sorted { $0.key < $1.key }.flatMap { name, block in
            Settings.endpointKeys.map { entry in
                let key = Settings.endpointPrefix + name + "." + entry.field
                let value = entry.isSecret && !entry.read(block).isEmpty ? "(secret)" : entry.read(block)
                return "\(key) = \(value)  # \(self.origins[key] ?? "default")"
            }
        }
        lines.insert(contentsOf: endpoints, at: Self.endpointKeysPosition)
        return lines.joined(separator: "\n")
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
        var lines = Settings.all.map {
            "  \($0.key)\n      \($0.help) (default: \($0.read(RollcallConfiguration())))"
        }
        let endpoints = Settings.endpointKeys.map {
            "  \(Settings.endpointPrefix)NAME.\($0.field)\n      \($0.help) (default: )"
        }
        lines.insert(contentsOf: endpoints, at: Self.endpointKeysPosition)
        return lines.joined(separator: "\n")
    }

    /// Where the keys of webhook endpoints' blocks are listed among the others: after the other `webhooks.` keys.
    private static var endpointKeysPosition: Int {
        (Settings.all.lastIndex { $0.key.hasPrefix("webhooks.") } ?? Settings.all.count - 1) + 1
    }
}
