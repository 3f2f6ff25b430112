import Testing

@testable import TokenAuth

@Suite struct TokenConfigurationTests {
    @Test func aKeyFromBase64AndFromBase64URLHoldTheSameSecret() throws {
        let bytes = (0..<48).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 250) }
        let urlText = Base64URL.encode(bytes)
        let standardText = String(urlText.map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
        #expect(urlText != standardText)
        #expect(try TokenKey(keyID: "a", base64: urlText).secret == bytes)
        #expect(try TokenKey(keyID: "a", base64: standardText).secret == bytes)
        let padded = String(Base64URL.encode(bytes.prefix(32)).map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 }) + "="
        #expect(try TokenKey(base64: padded).secret == Array(bytes.prefix(32)))
        #expect(try TokenKey(bytes: bytes).secret == bytes)
        #expect(try TokenKey(secret: Fixture.secret).secret == Array(Fixture.secret.utf8))
    }

    @Test func keysAreCheckedWhenMade() {
        let attempts: [() throws -> TokenKey] = [
            { try TokenKey(secret: "too short") },
            { try TokenKey(secret: String(repeating: "x", count: 31)) },
            { try TokenKey(bytes: [UInt8](repeating: 1, count: 1025)) },
            { try TokenKey(keyID: "", secret: Fixture.secret) },
            { try TokenKey(base64: "not base64 at all!") },
            { try TokenKey(base64: "+vtP-gEX") },
            { try TokenKey(base64: "c2hvcnQ=") },
        ]
        for attempt in attempts {
            let error = #expect(throws: TokenError.self) { try attempt() }
            #expect(error?.kind == .invalidKey)
        }
        #expect(throws: Never.self) { try TokenKey(secret: String(repeating: "x", count: 32)) }
    }

    @Test func aKeyDescriptionHidesTheSecret() throws {
        let key = try TokenKey(keyID: "k1", secret: Fixture.secret)
        #expect(key.description == #"TokenKey(kid: "k1", 50 bytes)"#)
        #expect("\(key)" == key.description)
        #expect(String(reflecting: key) == key.description)
        #expect(!String(describing: [key]).contains("horse"))
    }

    @Test func verifierSettingsAreCheckedWhenMade() throws {
        let a = try Fixture.key(id: "a")
        let plain = try Fixture.key()
        let attempts: [() throws -> TokenVerifier] = [
            { try TokenVerifier(keys: []) },
            { try TokenVerifier(keys: [a, a]) },
            { try TokenVerifier(keys: [plain, plain]) },
            { try TokenVerifier(keys: [plain], issuer: "") },
            { try TokenVerifier(keys: [plain], audience: "") },
            { try TokenVerifier(keys: [plain], leeway: -1) },
            { try TokenVerifier(keys: [plain], leeway: 3601) },
            { try TokenVerifier(keys: [plain], maximumTokenLength: 0) },
            { try TokenVerifier(keys: [plain], maximumTokenLength: 16 * 1024 + 1) },
        ]
        for attempt in attempts {
            let error = #expect(throws: TokenError.self) { try attempt() }
            #expect(error?.kind == .invalidConfiguration)
        }
        let verifier = try TokenVerifier(keys: [a, plain])
        #expect(verifier.leeway == 30)
        #expect(verifier.maximumTokenLength == 8192)
        #expect(verifier.algorithm == "HS256")
    }

    @Test func rolesAreTheFiveKnownNamesExactly() {
        #expect(TokenRole.allRoles.map(\.rawValue) == ["admin", "moderator", "participant", "viewer", "bot"])
        for role in TokenRole.allRoles {
            #expect(TokenRole(rawValue: role.rawValue) == role)
            #expect(role.description == role.rawValue)
        }
        for name in ["", "Admin", "ADMIN", "owner", "admin ", "guest"] {
            #expect(TokenRole(rawValue: name) == nil)
        }
    }

    @Test func errorKindsCompareAndDescribeThemselves() {
        let error = TokenError(.expired, "exp is more than 30 s in the past")
        #expect(error.kind == .expired)
        #expect(error.kind != .notYetValid)
        #expect(error.description == "token expired: exp is more than 30 s in the past")
        #expect(TokenError.Kind.badSignature.description == "bad token signature")
    }
}
