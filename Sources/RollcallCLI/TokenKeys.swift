import TokenAuth

/// Builds token keys and the verifier from the `auth.*` settings.
enum TokenKeys {
    /// Parses `kid:secret` (or a bare secret without `:`) into a key.
    static func key(from text: String) throws(ConfigError) -> TokenKey {
        do {
            if let colon = text.firstIndex(of: ":") {
                let keyID = String(text[..<colon])
                return try TokenKey(keyID: keyID, secret: String(text[text.index(after: colon)...]))
            }
            return try TokenKey(secret: text)
        } catch {
            throw ConfigError("auth.keys: \(error.description)")
        }
    }

    static func verifier(_ settings: AuthSettings) throws(ConfigError) -> TokenVerifier {
        var keys: [TokenKey] = []
        for text in settings.keys { keys.append(try Self.key(from: text)) }
        do {
            return try TokenVerifier(
                keys: keys,
                issuer: settings.issuer,
                audience: settings.audience,
                leeway: Int64(settings.leewaySeconds)
            )
        } catch {
            throw ConfigError("auth: \(error.description)")
        }
    }
}
