import RollcallServer

/// Keys of the server API (`/v1/api/...`); without any the API is off.
public struct APISettings: Sendable {
    /// Keys as `name:secret`; the name is recorded as the actor `api:NAME`.
    public var keys: [String] = []

    public init() {}

    /// The shortest secret accepted, in bytes.
    public static let minimumSecretLength = 16

    /// The parsed keys.
    ///
    /// - Throws: `ConfigError` for a key without a name, with a bad name, a short secret, or a repeated name.
    public func parsedKeys() throws(ConfigError) -> [APIKey] {
        var keys: [APIKey] = []
        for text in self.keys {
            guard let colon = text.firstIndex(of: ":") else {
                throw ConfigError("api.keys: '\(text.prefix(4))…' is not name:secret")
            }
            let name = String(text[..<colon])
            let secret = String(text[text.index(after: colon)...])
            guard !name.isEmpty, name.utf8.count <= 64,
                name.unicodeScalars.allSatisfy({
                    $0.properties.isAlphabetic || "0123456789-_.".unicodeScalars.contains($0)
                })
            else {
                throw ConfigError("api.keys: the name '\(name.prefix(64))' must be letters, digits, '-', '_' or '.'")
            }
            guard secret.utf8.count >= Self.minimumSecretLength else {
                throw ConfigError("api.keys: the secret of '\(name)' needs at least \(Self.minimumSecretLength) bytes")
            }
            guard !keys.contains(where: { $0.name == name }) else {
                throw ConfigError("api.keys: the name '\(name)' is used twice")
            }
            keys.append(APIKey(name: name, secret: secret))
        }
        return keys
    }
}
