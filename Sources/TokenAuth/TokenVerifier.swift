import JSONCoding

/// Verifies HS256 JWTs (RFC 7519 over the compact JWS serialization of RFC 7515) and returns their claims.
///
/// A token is accepted only if all of these hold, checked in this order so that nothing from the payload is read
/// before the signature is known to be good:
///
/// 1. It is at most ``maximumTokenLength`` bytes and has exactly three base64url parts without padding.
/// 2. Its header is a JSON object whose `alg` is exactly `HS256` and whose `typ`, if present, is `JWT`.
/// 3. A configured key matches the header's `kid`; a token without `kid` uses the key without a key ID, or the only
///    key when there is just one.
/// 4. Its signature is the HMAC-SHA256 of the first two parts under that key, compared in constant time.
/// 5. Its payload is a JSON object with well-formed claims (see ``TokenClaims``), a `sub` and an `exp`.
/// 6. `exp` is later than now minus the leeway, and `nbf` and `iat`, if present, are no later than now plus the
///    leeway.
/// 7. `iss` equals ``issuer`` and `aud` contains ``audience``, for each of the two that is configured.
public struct TokenVerifier: Sendable {
    /// The default tolerance for clock differences between the issuer and this server, in seconds.
    public static let defaultLeeway: Int64 = 30
    /// The default longest token accepted, in bytes.
    public static let defaultMaximumTokenLength = 8 * 1024
    /// The greatest leeway a verifier can be configured with, in seconds.
    public static let leewayLimit: Int64 = 3600
    /// The greatest ``maximumTokenLength`` a verifier can be configured with, in bytes.
    public static let maximumTokenLengthLimit = 16 * 1024

    /// The keys tokens may be signed with.
    public let keys: [TokenKey]
    /// The `alg` every token must have; always `HS256`.
    public let algorithm: String
    /// The `iss` every token must have, or nil to accept any issuer or none.
    public let issuer: String?
    /// The value every token's `aud` must contain, or nil to accept any audience or none.
    public let audience: String?
    /// The tolerance for clock differences, in seconds.
    public let leeway: Int64
    /// The longest token accepted, in bytes.
    public let maximumTokenLength: Int

    /// Creates a verifier.
    ///
    /// - Parameters:
    ///   - keys: The keys tokens may be signed with: at least one, each key ID at most once, at most one key
    ///     without a key ID. Put both the old and the new key here during a rotation.
    ///   - algorithm: The `alg` every token must have; only `HS256` is supported.
    ///   - issuer: The `iss` every token must have, or nil not to check it; must not be empty.
    ///   - audience: The value every token's `aud` must be or contain, or nil not to check it; must not be empty.
    ///   - leeway: The tolerance for clock differences, 0 to ``leewayLimit`` seconds.
    ///   - maximumTokenLength: The longest token accepted, 1 to ``maximumTokenLengthLimit`` bytes.
    /// - Throws: ``TokenError/Kind/unsupportedAlgorithm`` for an algorithm other than `HS256`,
    ///   ``TokenError/Kind/invalidConfiguration`` for any other setting that is not allowed.
    public init(
        keys: [TokenKey],
        algorithm: String = "HS256",
        issuer: String? = nil,
        audience: String? = nil,
        leeway: Int64 = TokenVerifier.defaultLeeway,
        maximumTokenLength: Int = TokenVerifier.defaultMaximumTokenLength
    ) throws(TokenError) {
        guard algorithm == TokenHeader.algorithm else {
            throw TokenError(.unsupportedAlgorithm, "only \(TokenHeader.algorithm) is supported")
        }
        guard !keys.isEmpty else {
            throw TokenError(.invalidConfiguration, "no keys")
        }
        var keyIDs: Set<String> = []
        var keysWithoutID = 0
        for key in keys {
            if let keyID = key.keyID {
                guard keyIDs.insert(keyID).inserted else {
                    throw TokenError(.invalidConfiguration, "two keys have the same key ID")
                }
            } else {
                keysWithoutID += 1
            }
        }
        guard keysWithoutID <= 1 else {
            throw TokenError(.invalidConfiguration, "more than one key has no key ID")
        }
        guard issuer.map({ !$0.isEmpty }) ?? true else {
            throw TokenError(.invalidConfiguration, "the issuer is empty")
        }
        guard audience.map({ !$0.isEmpty }) ?? true else {
            throw TokenError(.invalidConfiguration, "the audience is empty")
        }
        guard (0...Self.leewayLimit).contains(leeway) else {
            throw TokenError(.invalidConfiguration, "the leeway is not between 0 and \(Self.leewayLimit) seconds")
        }
        guard (1...Self.maximumTokenLengthLimit).contains(maximumTokenLength) else {
            throw TokenError(
                .invalidConfiguration,
                "the maximum token length is not between 1 and \(Self.maximumTokenLengthLimit) bytes"
            )
        }
        self.keys = keys
        self.algorithm = algorithm
        self.issuer = issuer
        self.audience = audience
        self.leeway = leeway
        self.maximumTokenLength = maximumTokenLength
    }

    /// Verifies a token and returns its claims.
    ///
    /// - Parameters:
    ///   - token: The compact serialization, `header.payload.signature`, without a `Bearer ` prefix or whitespace.
    ///   - now: The current time in seconds since 1970-01-01T00:00:00Z.
    /// - Returns: The claims, with ``TokenClaims/keyID`` set to the header's `kid`.
    /// - Throws: ``TokenError`` naming the first check that failed.
    public func verify(_ token: String, now: Int64) throws(TokenError) -> TokenClaims {
        let bytes = Array(token.utf8)
        guard bytes.count <= self.maximumTokenLength else {
            throw TokenError(.tooLarge, "the token is longer than \(self.maximumTokenLength) bytes")
        }
        let parts = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw TokenError(.malformed, "the token does not have exactly three parts")
        }

        let header = try TokenHeader(json: Self.decodeJSON(parts[0], part: "header"))
        let key = try self.key(for: header.keyID)

        guard let signature = Base64URL.decode(parts[2]) else {
            throw TokenError(.malformed, "the signature is not base64url")
        }
        let signingInput = Array(bytes[..<parts[1].endIndex])
        guard let expected = HMACSHA256.authenticationCode(key: key.secret, message: signingInput),
            ConstantTime.equals(signature, expected)
        else {
            throw TokenError(.badSignature, "the signature does not match")
        }

        let claims = try TokenClaims(payload: Self.decodeJSON(parts[1], part: "payload"), keyID: header.keyID)
        try self.checkTimes(of: claims, now: now)
        if let issuer = self.issuer, claims.issuer != issuer {
            throw TokenError(.wrongIssuer, "iss is missing or not the expected issuer")
        }
        if let audience = self.audience, !claims.audience.contains(audience) {
            throw TokenError(.wrongAudience, "aud is missing or does not contain the expected audience")
        }
        return claims
    }

    /// The key a token with the given `kid` must be signed with.
    private func key(for keyID: String?) throws(TokenError) -> TokenKey {
        if let keyID {
            guard let key = self.keys.first(where: { $0.keyID == keyID }) else {
                throw TokenError(.unknownKey, "no key has the token's kid")
            }
            return key
        }
        if let key = self.keys.first(where: { $0.keyID == nil }) {
            return key
        }
        guard self.keys.count == 1 else {
            throw TokenError(.unknownKey, "the token has no kid and there are several keys")
        }
        return self.keys[0]
    }

    private func checkTimes(of claims: TokenClaims, now: Int64) throws(TokenError) {
        // now >= exp + leeway, written so that no value can overflow.
        if Self.adding(claims.expiresAt, self.leeway) <= now {
            throw TokenError(.expired, "exp is more than \(self.leeway) s in the past")
        }
        let latest = Self.adding(now, self.leeway)
        if let notBefore = claims.notBefore, notBefore > latest {
            throw TokenError(.notYetValid, "nbf is more than \(self.leeway) s in the future")
        }
        if let issuedAt = claims.issuedAt, issuedAt > latest {
            throw TokenError(.notYetValid, "iat is more than \(self.leeway) s in the future")
        }
    }

    /// `value + leeway`, saturating at `Int64.max`; the leeway is never negative.
    private static func adding(_ value: Int64, _ leeway: Int64) -> Int64 {
        let (sum, overflow) = value.addingReportingOverflow(leeway)
        return overflow ? Int64.max : sum
    }

    /// The bounds a decoded header or payload must stay within: at most 8 KiB, containers at most four deep (the
    /// top-level object is one). The other limits are the most an 8 KiB text can reach, so they refuse nothing on
    /// their own; they are spelled out so that the parser's defaults never loosen them.
    static let jsonLimits = JSONParser.Limits(
        maxInputBytes: 8 * 1024,
        maxDepth: 4,
        maxStringBytes: 8 * 1024,
        maxElementsPerContainer: 4 * 1024,
        maxTotalNodes: 4 * 1024
    )

    private static func decodeJSON(_ part: ArraySlice<UInt8>, part name: String) throws(TokenError) -> JSONValue {
        guard let text = Base64URL.decode(part) else {
            throw TokenError(.malformed, "the \(name) is not base64url")
        }
        do {
            return try JSONParser.parse(text, limits: Self.jsonLimits)
        } catch {
            // The parser's own description quotes the input; only fixed words go into the error.
            switch error.kind {
            case .inputTooLarge:
                throw TokenError(.tooLarge, "the \(name) is longer than \(Self.jsonLimits.maxInputBytes) bytes")
            case .nestingTooDeep:
                throw TokenError(.malformed, "the \(name) nests deeper than \(Self.jsonLimits.maxDepth) levels")
            case let kind where kind.isLimitExceeded:
                throw TokenError(.tooLarge, "the \(name) is over a JSON limit: \(kind)")
            default:
                throw TokenError(.malformed, "the \(name) is not JSON")
            }
        }
    }
}
