import Testing

@testable import TokenAuth

/// Keys, clocks and hand-made tokens shared by the token tests.
enum Fixture {
    /// A fixed clock: 2025-06-15T15:06:40Z.
    static let now: Int64 = 1_750_000_000

    static let secret = "correct horse battery staple, rollcall test secret"
    static let otherSecret = "an entirely different secret of sufficient length"

    static func key(id: String? = nil, secret: String = Fixture.secret) throws -> TokenKey {
        try TokenKey(keyID: id, secret: secret)
    }

    static func verifier(
        keys: [TokenKey]? = nil,
        issuer: String? = nil,
        audience: String? = nil,
        leeway: Int64 = TokenVerifier.defaultLeeway
    ) throws -> TokenVerifier {
        try TokenVerifier(keys: keys ?? [Fixture.key()], issuer: issuer, audience: audience, leeway: leeway)
    }

    /// A valid payload for ``now``: `{"sub":"u1","exp":now+3600}` with `extra` members added before the closing brace.
    static func payload(_ extra: String = "") -> String {
        #"{"sub":"u1","exp":\#(Fixture.now + 3600)\#(extra.isEmpty ? "" : ",")\#(extra)}"#
    }

    /// A token made of exactly these header and payload texts, signed with `key` whatever the header says.
    static func forge(header: String = #"{"alg":"HS256","typ":"JWT"}"#, payload: String, key: TokenKey) -> String {
        let signingInput = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(payload.utf8))
        let tag = HMACSHA256.authenticationCode(key: key.secret, message: Array(signingInput.utf8)) ?? []
        return signingInput + "." + Base64URL.encode(tag)
    }

    /// The kind of the error `body` throws, or nil if it returns; an error of another type is an issue.
    static func failure(_ body: () throws -> TokenClaims) -> TokenError.Kind? {
        Fixture.error(body)?.kind
    }

    /// The error `body` throws, or nil if it returns; an error of another type is an issue.
    static func error(_ body: () throws -> TokenClaims) -> TokenError? {
        do {
            _ = try body()
            return nil
        } catch let error as TokenError {
            return error
        } catch {
            Issue.record(error, "not a TokenError")
            return nil
        }
    }
}
