/// An HS256 secret, optionally named by a key ID (`kid`) so that several keys can be live during a rotation.
///
/// The secret must be at least 32 bytes, the length of an HMAC-SHA256 output (RFC 7518 §3.2). Descriptions show the
/// key ID and the secret's length, never the secret.
public struct TokenKey: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The shortest secret accepted, in bytes.
    public static let minimumSecretLength = 32
    /// The longest secret accepted, in bytes.
    public static let maximumSecretLength = 1024

    /// The key ID that tokens signed with this key carry in their header, or nil for a key without one.
    public let keyID: String?

    /// The secret bytes.
    let secret: [UInt8]

    /// Creates a key from raw secret bytes.
    ///
    /// - Parameters:
    ///   - keyID: The key ID, or nil; must not be empty.
    ///   - bytes: The secret, 32 to 1024 bytes.
    /// - Throws: ``TokenError/Kind/invalidKey`` if the key ID is empty or the secret has a bad length.
    public init(keyID: String? = nil, bytes: [UInt8]) throws(TokenError) {
        if let keyID, keyID.isEmpty {
            throw TokenError(.invalidKey, "the key ID is empty")
        }
        guard bytes.count >= Self.minimumSecretLength else {
            throw TokenError(.invalidKey, "the secret is shorter than \(Self.minimumSecretLength) bytes")
        }
        guard bytes.count <= Self.maximumSecretLength else {
            throw TokenError(.invalidKey, "the secret is longer than \(Self.maximumSecretLength) bytes")
        }
        self.keyID = keyID
        self.secret = bytes
    }

    /// Creates a key whose secret is the UTF-8 encoding of a string, as a shared secret is usually configured.
    ///
    /// - Parameters:
    ///   - keyID: The key ID, or nil; must not be empty.
    ///   - secret: The secret text, 32 to 1024 bytes in UTF-8.
    /// - Throws: ``TokenError/Kind/invalidKey`` if the key ID is empty or the secret has a bad length.
    public init(keyID: String? = nil, secret: String) throws(TokenError) {
        try self.init(keyID: keyID, bytes: Array(secret.utf8))
    }

    /// Creates a key from base64-encoded secret bytes.
    ///
    /// Accepts padded standard base64 (RFC 4648 §4, as `openssl rand -base64 32` prints it) and unpadded base64url
    /// (RFC 4648 §5, as in the `k` member of a JWK). Both are decoded strictly.
    ///
    /// - Parameters:
    ///   - keyID: The key ID, or nil; must not be empty.
    ///   - base64: The encoded secret, which must decode to 32 to 1024 bytes.
    /// - Throws: ``TokenError/Kind/invalidKey`` if the text is not base64, the key ID is empty or the
    ///   secret has a bad length.
    public init(keyID: String? = nil, base64: String) throws(TokenError) {
        let text = Array(base64.utf8)
        guard let bytes = Base64URL.decodeStandard(text) ?? Base64URL.decode(text) else {
            throw TokenError(.invalidKey, "the secret is not valid base64 or base64url")
        }
        try self.init(keyID: keyID, bytes: bytes)
    }

    /// The key ID and the secret's length.
    public var description: String {
        let name = self.keyID.map { "\"\($0)\"" } ?? "none"
        return "TokenKey(kid: \(name), \(self.secret.count) bytes)"
    }

    /// The key ID and the secret's length.
    public var debugDescription: String {
        self.description
    }
}
