import JSONCoding

/// Mints HS256 JWTs, for development tokens and tests.
///
/// The header is `{"alg":"HS256","typ":"JWT","kid":…}`, with `kid` only when the key has an ID. The payload holds
/// the claims in a fixed order, leaving out nil values and empty collections, so the same claims and key always give
/// the same token.
public struct TokenSigner: Sendable {
    /// The key tokens are signed with; its key ID goes into the header.
    public let key: TokenKey

    /// Creates a signer.
    ///
    /// - Parameters:
    ///   - key: The key tokens are signed with.
    public init(key: TokenKey) {
        self.key = key
    }

    /// Signs claims into a token.
    ///
    /// The claims are checked as a verifier would check their shape, so the signer never mints a token that
    /// ``TokenVerifier`` refuses for its form; times are not compared with any clock. ``TokenClaims/keyID`` is
    /// ignored: the header carries the key's ID.
    ///
    /// - Parameters:
    ///   - claims: The claims.
    /// - Returns: The compact serialization, `header.payload.signature`.
    /// - Throws: ``TokenError/Kind/invalidClaims`` for claims a verifier would refuse, such as an empty subject,
    ///   ``TokenError/Kind/signingFailed`` if OpenSSL fails.
    public func sign(_ claims: TokenClaims) throws(TokenError) -> String {
        let payload = claims.payload
        _ = try TokenClaims(payload: payload, keyID: nil)
        let header = TokenHeader(keyID: self.key.keyID)
        let signingInput =
            Base64URL.encode(JSONWriter.bytes(header.json)) + "."
            + Base64URL.encode(JSONWriter.bytes(payload))
        guard let signature = HMACSHA256.authenticationCode(key: self.key.secret, message: Array(signingInput.utf8))
        else {
            throw TokenError(.signingFailed, "OpenSSL could not compute HMAC-SHA256")
        }
        return signingInput + "." + Base64URL.encode(signature)
    }
}
