import EventIO

/// The kinds of values a setting holds, each read and checked one way: whole numbers in a range, booleans, paths,
/// text, lists of text and of addresses.
extension Settings {
    static func integer(
        _ key: String,
        _ help: String,
        _ field: WritableKeyPath<RollcallConfiguration, Int>,
        _ range: ClosedRange<Int>
    ) -> Setting {
        Setting(
            key: key, help: "\(help) [\(range.lowerBound)...\(range.upperBound)]", read: { String($0[keyPath: field]) }
        ) {
            configuration, text throws(ConfigError) in
            let digits = text.replacingUnderscores()
            guard let value = Int(digits) else { throw ConfigError("\(key): '\(text)' is not a whole number") }
            guard range.contains(value) else {
                throw ConfigError("\(key): \(value) is outside \(range.lowerBound)...\(range.upperBound)")
            }
            configuration[keyPath: field] = value
        }
    }

    static func integer64(
        _ key: String,
        _ help: String,
        _ field: WritableKeyPath<RollcallConfiguration, Int64>,
        _ range: ClosedRange<Int64>
    ) -> Setting {
        Setting(
            key: key, help: "\(help) [\(range.lowerBound)...\(range.upperBound)]", read: { String($0[keyPath: field]) }
        ) {
            configuration, text throws(ConfigError) in
            guard let value = Int64(text.replacingUnderscores()) else {
                throw ConfigError("\(key): '\(text)' is not a whole number")
            }
            guard range.contains(value) else {
                throw ConfigError("\(key): \(value) is outside \(range.lowerBound)...\(range.upperBound)")
            }
            configuration[keyPath: field] = value
        }
    }

    static func boolean(
        _ key: String,
        _ help: String,
        _ field: WritableKeyPath<RollcallConfiguration, Bool>
    ) -> Setting {
        Setting(key: key, help: "\(help) [true/false]", read: { String($0[keyPath: field]) }) {
            configuration, text throws(ConfigError) in
            switch text.lowercased() {
            case "true", "yes", "on", "1": configuration[keyPath: field] = true
            case "false", "no", "off", "0": configuration[keyPath: field] = false
            default: throw ConfigError("\(key): '\(text)' is not true or false")
            }
        }
    }

    static func path(
        _ key: String,
        _ help: String,
        _ field: WritableKeyPath<RollcallConfiguration, String>
    ) -> Setting {
        Setting(key: key, help: help, read: { $0[keyPath: field] }) { configuration, text throws(ConfigError) in
            guard text.hasPrefix("/"), !text.contains(" ") else { throw ConfigError("\(key): '\(text)' is not a path") }
            configuration[keyPath: field] = text
        }
    }

    static func text(
        _ key: String,
        _ help: String,
        _ field: WritableKeyPath<RollcallConfiguration, String>,
        allowEmpty: Bool
    ) -> Setting {
        Setting(key: key, help: help, read: { $0[keyPath: field] }) { configuration, text throws(ConfigError) in
            guard allowEmpty || !text.isEmpty else { throw ConfigError("\(key): must not be empty") }
            guard !text.contains(where: { $0 == " " || $0 == "\n" }) else {
                throw ConfigError("\(key): '\(text)' must not contain spaces")
            }
            configuration[keyPath: field] = text
        }
    }

    static func optionalText(
        _ key: String,
        _ help: String,
        _ field: WritableKeyPath<RollcallConfiguration, String?>
    ) -> Setting {
        Setting(key: key, help: help, read: { $0[keyPath: field] ?? "" }) { configuration, text throws(ConfigError) in
            configuration[keyPath: field] = text.isEmpty ? nil : text
        }
    }

    static func list(
        _ key: String,
        _ help: String,
        _ field: WritableKeyPath<RollcallConfiguration, [String]>
    ) -> Setting {
        Setting(key: key, help: help, read: { $0[keyPath: field].joined(separator: ", ") }) {
            configuration, text throws(ConfigError) in
            configuration[keyPath: field] = text.split(separator: ",").map { $0.trimmingWhitespace() }
                .filter { !$0.isEmpty }
        }
    }

    static func list(
        _ key: String,
        _ help: String,
        _ field: WritableKeyPath<RollcallConfiguration, [SocketAddress]>
    ) -> Setting {
        Setting(key: key, help: help, read: { $0[keyPath: field].map(\.description).joined(separator: ", ") }) {
            configuration, text throws(ConfigError) in
            var addresses: [SocketAddress] = []
            for item in text.split(separator: ",").map({ $0.trimmingWhitespace() }) where !item.isEmpty {
                guard let address = SocketAddress(parsing: item) else {
                    throw ConfigError("\(key): '\(item)' is not an address like 127.0.0.1:8080 or [::1]:8080")
                }
                addresses.append(address)
            }
            configuration[keyPath: field] = addresses
        }
    }
}

extension String {
    fileprivate func replacingUnderscores() -> String {
        String(self.filter { $0 != "_" })
    }
}
