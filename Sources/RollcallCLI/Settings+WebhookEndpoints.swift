/// The keys of a webhook endpoint's block, `webhooks.endpoint.NAME.FIELD`: in the file a section
/// `[webhooks.endpoint.NAME]` with `url`, `secret`, `events` and `rooms`; on the command line `--set
/// webhooks.endpoint.NAME.url=...`; in the environment `ROLLCALL_WEBHOOKS_ENDPOINT_NAME_URL` (the name upper-cased,
/// `-` as `_`). The earlier lists keyed by name (`webhooks.endpoints`, `.secrets`, `.events`, `.rooms`) are refused
/// with the blocks to write instead.
extension Settings {
    /// One key of an endpoint's block.
    struct EndpointKey {
        let field: String
        let help: String
        /// Whether `check-config` hides the value.
        let isSecret: Bool
        let read: (WebhookEndpointSettings) -> String
        let apply: (inout WebhookEndpointSettings, String) -> Void
    }

    /// What every endpoint block's key starts with.
    static let endpointPrefix = "webhooks.endpoint."

    /// The keys of an endpoint's block, in the order `--help` and `check-config` show them.
    static let endpointKeys: [EndpointKey] = [
        EndpointKey(
            field: "url", help: "endpoint NAME's http(s)://host[:port]/path (required); needs storage or a cluster",
            isSecret: false, read: \.url
        ) { $0.url = $1.trimmingWhitespace() },
        EndpointKey(
            field: "secret", help: "endpoint NAME's signing secret, at least 16 bytes (required)", isSecret: true,
            read: \.secret
        ) { $0.secret = $1.trimmingWhitespace() },
        EndpointKey(
            field: "events", help: "event names delivered to NAME, comma-separated; empty = every event",
            isSecret: false,
            read: { $0.events.joined(separator: ", ") }
        ) { $0.events = Self.items($1) },
        EndpointKey(
            field: "rooms",
            help: "rooms delivered to NAME, comma-separated, a trailing * for a prefix; empty = every room",
            isSecret: false, read: { $0.rooms.joined(separator: ", ") }
        ) { $0.rooms = Self.items($1) },
    ]

    /// The setting behind `key` when it is a key of an endpoint's block; nil for any other key.
    ///
    /// - Throws: `ConfigError` for a key under `webhooks.endpoint.` with a malformed name or an unknown field.
    static func endpointSetting(_ key: String) throws(ConfigError) -> Setting? {
        guard key.hasPrefix(Self.endpointPrefix) else { return nil }
        let rest = key.dropFirst(Self.endpointPrefix.count)
        let fields = Self.endpointKeys.map(\.field).joined(separator: ", ")
        guard let dot = rest.lastIndex(of: "."),
            let entry = Self.endpointKeys.first(where: { $0.field == rest[rest.index(after: dot)...] })
        else {
            throw ConfigError("\(key): unknown key; an endpoint's block \(Self.endpointPrefix)NAME has \(fields)")
        }
        let name = String(rest[..<dot])
        guard Self.isEndpointName(name) else {
            throw ConfigError("\(key): the endpoint's name '\(name)' must be letters, digits, - and _")
        }
        return Setting(key: key, help: entry.help, read: { entry.read($0.webhooks.endpoints[name] ?? .init()) }) {
            configuration, text in
            entry.apply(&configuration.webhooks.endpoints[name, default: WebhookEndpointSettings()], text)
        }
    }

    /// The endpoint a block's key names, e.g. `crm` for `webhooks.endpoint.crm.url`; nil for any other key.
    static func endpointName(ofKey key: String) -> String? {
        guard key.hasPrefix(Self.endpointPrefix) else { return nil }
        let rest = key.dropFirst(Self.endpointPrefix.count)
        guard let dot = rest.lastIndex(of: "."), dot != rest.startIndex else { return nil }
        return String(rest[..<dot])
    }

    /// The endpoint blocks' keys the environment sets, with their variables in name order: for an endpoint the
    /// file or the flags name (`named`), its variables; any other `ROLLCALL_WEBHOOKS_ENDPOINT_X_FIELD` sets the
    /// endpoint `x` (its name lower-cased).
    static func endpointVariables(
        in environment: [String: String], named names: Set<String>
    ) -> [(key: String, variable: String)] {
        let prefix = ConfigurationLoader.environmentName(of: Self.endpointPrefix)
        var found: [(key: String, variable: String)] = []
        for variable in environment.keys.sorted() where variable.hasPrefix(prefix) {
            let rest = variable.dropFirst(prefix.count)
            guard let entry = Self.endpointKeys.first(where: { rest.hasSuffix("_" + $0.field.uppercased()) }) else {
                continue
            }
            let spelled = String(rest.dropLast(entry.field.count + 1))
            guard !spelled.isEmpty else { continue }
            let name =
                names.first { ConfigurationLoader.environmentName(of: $0) == "ROLLCALL_" + spelled }
                ?? spelled.lowercased()
            found.append((Self.endpointPrefix + name + "." + entry.field, variable))
        }
        return found
    }

    /// Whether `name` may name an endpoint: letters, digits, `-` and `_` (it is a metric label and a Redis key part).
    static func isEndpointName(_ name: String) -> Bool {
        !name.isEmpty && name.allSatisfy { ($0.isLetter || $0.isNumber) && $0.isASCII || $0 == "-" || $0 == "_" }
    }

    private static func items(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingWhitespace() }.filter { !$0.isEmpty }
    }

    // MARK: The earlier lists

    /// What a key of the earlier lists keyed by name meant: the block's field, and what separated name and value.
    static let retiredEndpointLists: [String: (field: String, separator: Character)] = [
        "webhooks.endpoints": ("url", "="), "webhooks.secrets": ("secret", ":"), "webhooks.events": ("events", "="),
        "webhooks.rooms": ("rooms", "="),
    ]

    /// The answer to a key of the earlier lists: nil for any other key; a warning for an empty value, which
    /// configures nothing either way (the earlier shipped file had those lines empty); otherwise a refusal that
    /// shows the blocks to write instead. Secrets are not repeated in it.
    static func retiredEndpointList(_ key: String, _ value: String) -> Result<String, ConfigError>? {
        guard let (field, separator) = Self.retiredEndpointLists[key] else { return nil }
        let items = Self.items(value)
        guard !items.isEmpty else {
            return .success(
                "\(key) is no longer read: each webhook endpoint is a block [\(Self.endpointPrefix)NAME] now; "
                    + "remove the line")
        }
        let blocks = items.map { item -> String in
            guard let split = item.firstIndex(of: separator), split != item.startIndex else {
                return "[\(Self.endpointPrefix)NAME] with \(field) = ..."
            }
            let name = item[..<split]
            let given = item[item.index(after: split)...]
            let shown =
                field == "secret" ? "(its secret)" : given.split(separator: "|").joined(separator: ", ")
            return "[\(Self.endpointPrefix)\(name)] with \(field) = \(shown)"
        }
        let example = blocks.count == 1 ? "" : " (one section each)"
        return .failure(
            ConfigError(
                "\(key): the lists keyed by endpoint name are replaced by one block per endpoint; write "
                    + blocks.joined(separator: ", and ") + example + ", or on the command line --set "
                    + "\(Self.endpointPrefix)NAME.\(field)=...; each endpoint's url, secret, events and rooms go in "
                    + "its block (docs/OPERATIONS.md, \"Webhooks\")"))
    }
}
