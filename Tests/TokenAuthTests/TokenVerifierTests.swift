import Testing

@testable import TokenAuth

@Suite struct TokenVerifierTests {
    // MARK: - The RFC 7515 example

    @Test func theRFC7515ExampleSignatureVerifiesWithItsJWKKey() throws {
        let key = try TokenKey(base64: RFC7515.key)
        let verifier = try TokenVerifier(keys: [key], issuer: "joe")
        // The signature and the header pass; the example has no sub, which is the first claim check that fails.
        let error = Fixture.error {
            try verifier.verify(RFC7515.token, now: RFC7515.expiresAt - 60)
        }
        #expect(error?.kind == .invalidClaims)
        #expect(error?.description == "invalid token claims: sub is missing")
    }

    @Test func theRFC7515ExampleWithAnotherSignatureIsRefused() throws {
        let verifier = try TokenVerifier(keys: [TokenKey(base64: RFC7515.key)])
        let token = "\(RFC7515.header).\(RFC7515.payload).eBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
        #expect(Fixture.failure { try verifier.verify(token, now: 0) } == .badSignature)
    }

    // MARK: - Accepted tokens

    @Test func aMinimalTokenVerifies() throws {
        let token = Fixture.forge(payload: Fixture.payload(), key: try Fixture.key())
        let claims = try Fixture.verifier().verify(token, now: Fixture.now)
        #expect(claims == TokenClaims(subject: "u1", expiresAt: Fixture.now + 3600))
    }

    @Test func everyClaimIsRead() throws {
        let payload = Fixture.payload(
            #""iss":"auth.example","aud":["rollcall","other"],"nbf":\#(Fixture.now - 10),"iat":\#(Fixture.now - 10),"#
                + #""name":"Ada \u00e9\ud83d\ude00","avatar":"https://example.com/a.png","#
                + #""rooms":{"r1":"admin","r2":"viewer","r3":"bot"},"groups":["g1","g2"],"caps":["mute","pin"],"#
                + #""jti":"ignored","extra":{"nested":[1,2.5,null,true]}"#
        )
        let token = Fixture.forge(
            header: #"{"alg":"HS256","typ":"JWT","kid":"k1"}"#, payload: payload,
            key: try Fixture.key(id: "k1"))
        let verifier = try Fixture.verifier(keys: [Fixture.key(id: "k1")], issuer: "auth.example", audience: "rollcall")
        let claims = try verifier.verify(token, now: Fixture.now)
        #expect(claims.subject == "u1")
        #expect(claims.name == "Ada \u{e9}\u{1F600}")
        #expect(claims.avatar == "https://example.com/a.png")
        #expect(claims.rooms == ["r1": .admin, "r2": .viewer, "r3": .bot])
        #expect(claims.groups == ["g1", "g2"])
        #expect(claims.capabilities == ["mute", "pin"])
        #expect(claims.expiresAt == Fixture.now + 3600)
        #expect(claims.notBefore == Fixture.now - 10)
        #expect(claims.issuedAt == Fixture.now - 10)
        #expect(claims.issuer == "auth.example")
        #expect(claims.audience == ["rollcall", "other"])
        #expect(claims.keyID == "k1")
    }

    @Test func aTypInAnyLetterCaseAndNoTypAreAccepted() throws {
        let key = try Fixture.key()
        for header in [#"{"alg":"HS256"}"#, #"{"alg":"HS256","typ":"jwt"}"#, #"{"typ":"JWT","alg":"HS256"}"#] {
            let token = Fixture.forge(header: header, payload: Fixture.payload(), key: key)
            #expect(throws: Never.self) { try Fixture.verifier().verify(token, now: Fixture.now) }
        }
    }

    // MARK: - Keys and rotation

    @Test func theKidSelectsTheSecondKeyAfterARotation() throws {
        let old = try Fixture.key(id: "2024", secret: Fixture.secret)
        let new = try Fixture.key(id: "2025", secret: Fixture.otherSecret)
        let verifier = try Fixture.verifier(keys: [old, new])
        let token = try TokenSigner(key: new).sign(TokenClaims(subject: "u1", expiresAt: Fixture.now + 60))
        #expect(try verifier.verify(token, now: Fixture.now).keyID == "2025")
        let oldToken = try TokenSigner(key: old).sign(TokenClaims(subject: "u1", expiresAt: Fixture.now + 60))
        #expect(try verifier.verify(oldToken, now: Fixture.now).keyID == "2024")
    }

    @Test func aTokenSignedWithTheOtherKeyButNamingThisKidIsRefused() throws {
        let old = try Fixture.key(id: "2024", secret: Fixture.secret)
        let new = try Fixture.key(id: "2025", secret: Fixture.otherSecret)
        let verifier = try Fixture.verifier(keys: [old, new])
        let token = Fixture.forge(header: #"{"alg":"HS256","kid":"2025"}"#, payload: Fixture.payload(), key: old)
        #expect(
            Fixture.failure { try verifier.verify(token, now: Fixture.now) }
                == .badSignature)
    }

    @Test func anUnknownKidIsRefused() throws {
        let verifier = try Fixture.verifier(keys: [Fixture.key(id: "2024"), Fixture.key(id: "2025")])
        let token = Fixture.forge(
            header: #"{"alg":"HS256","kid":"2023"}"#, payload: Fixture.payload(),
            key: try Fixture.key(id: "2023"))
        #expect(
            Fixture.failure { try verifier.verify(token, now: Fixture.now) }
                == .unknownKey)
    }

    @Test func aKidIsRefusedWhenTheOnlyKeyHasNoID() throws {
        let token = Fixture.forge(
            header: #"{"alg":"HS256","kid":"k1"}"#, payload: Fixture.payload(),
            key: try Fixture.key())
        #expect(
            Fixture.failure { try Fixture.verifier().verify(token, now: Fixture.now) }
                == .unknownKey)
    }

    @Test func aTokenWithoutKidUsesTheKeyWithoutID() throws {
        let named = try Fixture.key(id: "k1", secret: Fixture.otherSecret)
        let unnamed = try Fixture.key()
        let verifier = try Fixture.verifier(keys: [named, unnamed])
        let token = Fixture.forge(payload: Fixture.payload(), key: unnamed)
        #expect(try verifier.verify(token, now: Fixture.now).keyID == nil)
    }

    @Test func aTokenWithoutKidUsesTheOnlyKeyEvenIfItHasAnID() throws {
        let key = try Fixture.key(id: "k1")
        let token = Fixture.forge(payload: Fixture.payload(), key: key)
        #expect(try Fixture.verifier(keys: [key]).verify(token, now: Fixture.now).keyID == nil)
    }

    @Test func aTokenWithoutKidIsRefusedWhenSeveralKeysHaveIDs() throws {
        let verifier = try Fixture.verifier(keys: [Fixture.key(id: "a"), Fixture.key(id: "b")])
        let token = Fixture.forge(payload: Fixture.payload(), key: try Fixture.key(id: "a"))
        #expect(
            Fixture.failure { try verifier.verify(token, now: Fixture.now) }
                == .unknownKey)
    }

    @Test func aNonStringOrEmptyKidIsMalformed() throws {
        for header in [#"{"alg":"HS256","kid":1}"#, #"{"alg":"HS256","kid":""}"#, #"{"alg":"HS256","kid":null}"#] {
            let token = Fixture.forge(header: header, payload: Fixture.payload(), key: try Fixture.key())
            #expect(
                Fixture.failure { try Fixture.verifier().verify(token, now: Fixture.now) }
                    == .malformed,
                "\(header)"
            )
        }
    }

    // MARK: - Algorithms

    @Test func algNoneWithAnEmptySignatureIsRefused() throws {
        let header = Base64URL.encode(Array(#"{"alg":"none","typ":"JWT"}"#.utf8))
        let payload = Base64URL.encode(Array(Fixture.payload().utf8))
        let token = "\(header).\(payload)."
        #expect(
            Fixture.failure { try Fixture.verifier().verify(token, now: Fixture.now) }
                == .unsupportedAlgorithm)
    }

    @Test(arguments: ["none", "None", "NONE", "hs256", "Hs256", "HS256 ", "RS256", "ES256", "HS384", "HS512", ""])
    func everyAlgorithmButHS256IsRefusedEvenWithAGoodHMAC(algorithm: String) throws {
        let token = Fixture.forge(
            header: #"{"alg":"\#(algorithm)","typ":"JWT"}"#, payload: Fixture.payload(),
            key: try Fixture.key())
        #expect(
            Fixture.failure { try Fixture.verifier().verify(token, now: Fixture.now) }
                == .unsupportedAlgorithm)
    }

    @Test(arguments: [
        #"{"typ":"JWT"}"#, #"{"alg":null}"#, #"{"alg":["HS256"]}"#, #"{"alg":"HS256","typ":"JWE"}"#,
        #"{"alg":"HS256","typ":1}"#, #"{"alg":"HS256","crit":["exp"]}"#, #"["HS256"]"#, #""HS256""#,
        #"{"alg":"HS256","alg":"HS256"}"#, #"{"alg":"HS256"} x"#,
    ])
    func aHeaderWithoutAUsableAlgOrWithAnUnsupportedMemberIsMalformed(header: String) throws {
        let token = Fixture.forge(header: header, payload: Fixture.payload(), key: try Fixture.key())
        #expect(
            Fixture.failure { try Fixture.verifier().verify(token, now: Fixture.now) }
                == .malformed)
    }

    @Test func aVerifierForAnotherAlgorithmCannotBeMade() throws {
        for algorithm in ["RS256", "none", "hs256"] {
            let error = #expect(throws: TokenError.self) {
                try TokenVerifier(keys: [Fixture.key()], algorithm: algorithm)
            }
            #expect(error?.kind == .unsupportedAlgorithm)
        }
    }

    // MARK: - Signatures

    @Test func aTamperedPayloadIsRefused() throws {
        let key = try Fixture.key()
        let token = Fixture.forge(payload: Fixture.payload(#""rooms":{"r1":"viewer"}"#), key: key)
        let parts = token.split(separator: ".")
        let forged = Base64URL.encode(Array(Fixture.payload(#""rooms":{"r1":"admin"}"#).utf8))
        let tampered = "\(parts[0]).\(forged).\(parts[2])"
        #expect(
            Fixture.failure { try Fixture.verifier().verify(tampered, now: Fixture.now) }
                == .badSignature)
    }

    @Test func aTamperedSignatureIsRefused() throws {
        let token = Fixture.forge(payload: Fixture.payload(), key: try Fixture.key())
        let parts = token.split(separator: ".")
        var signature = Array(parts[2].utf8)
        signature[0] = signature[0] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        let tampered = "\(parts[0]).\(parts[1]).\(String(decoding: signature, as: UTF8.self))"
        #expect(
            Fixture.failure { try Fixture.verifier().verify(tampered, now: Fixture.now) }
                == .badSignature)
    }

    @Test func aTruncatedSignatureIsRefused() throws {
        let token = Fixture.forge(payload: Fixture.payload(), key: try Fixture.key())
        // 40 of the 43 characters: valid base64url for 30 bytes.
        let truncated = String(token.dropLast(3))
        #expect(
            Fixture.failure { try Fixture.verifier().verify(truncated, now: Fixture.now) }
                == .badSignature)
    }

    @Test func aTokenSignedWithAnotherKeyIsRefused() throws {
        let token = Fixture.forge(payload: Fixture.payload(), key: try Fixture.key(secret: Fixture.otherSecret))
        #expect(
            Fixture.failure { try Fixture.verifier().verify(token, now: Fixture.now) }
                == .badSignature)
    }

    @Test func aSignedPayloadThatIsNotAnObjectIsMalformed() throws {
        for payload in [#"["u1"]"#, #""u1""#, "42", "null", #"{"sub":"u1""#, #"{"sub":"u1","sub":"u2","exp":1}"#] {
            let token = Fixture.forge(payload: payload, key: try Fixture.key())
            #expect(
                Fixture.failure { try Fixture.verifier().verify(token, now: Fixture.now) }
                    == .malformed,
                "\(payload)"
            )
        }
    }

    // MARK: - Structure

    @Test func tooFewOrTooManyPartsAreMalformed() throws {
        let token = Fixture.forge(payload: Fixture.payload(), key: try Fixture.key())
        let parts = token.split(separator: ".")
        for candidate in ["", ".", "..", "...", "\(parts[0])", "\(parts[0]).\(parts[1])", "\(token).", "\(token).x"] {
            #expect(
                Fixture.failure { try Fixture.verifier().verify(candidate, now: Fixture.now) }
                    == .malformed
            )
        }
    }

    @Test func garbageBase64URLIsMalformed() throws {
        let token = Fixture.forge(payload: Fixture.payload(), key: try Fixture.key())
        let parts = token.split(separator: ".").map(String.init)
        let candidates = [
            "!!!.\(parts[1]).\(parts[2])",
            "\(parts[0])=.\(parts[1]).\(parts[2])",
            "\(parts[0]).\(parts[1]).\(parts[2])=",
            "\(parts[0]).\(parts[1]).\(parts[2].replacingFirst("-", with: "+"))",
            " \(token)",
            "Bearer \(token)",
        ]
        for candidate in candidates {
            #expect(
                Fixture.failure { try Fixture.verifier().verify(candidate, now: Fixture.now) }
                    == .malformed
            )
        }
    }

    @Test func aSignedPayloadThatIsNotBase64URLIsMalformed() throws {
        let key = try Fixture.key()
        let signingInput = Base64URL.encode(Array(#"{"alg":"HS256"}"#.utf8)) + ".e30="
        let tag = try #require(HMACSHA256.authenticationCode(key: key.secret, message: Array(signingInput.utf8)))
        let token = signingInput + "." + Base64URL.encode(tag)
        #expect(
            Fixture.failure { try Fixture.verifier().verify(token, now: Fixture.now) }
                == .malformed)
    }

    @Test func aTokenLongerThanTheLimitIsRefusedBeforeAnythingElse() throws {
        let padding = String(repeating: "x", count: 9000)
        let token = Fixture.forge(payload: Fixture.payload(#""name":"\#(padding)""#), key: try Fixture.key())
        #expect(
            Fixture.failure { try Fixture.verifier().verify(token, now: Fixture.now) }
                == .tooLarge)
        #expect(
            Fixture.failure {
                try Fixture.verifier().verify(String(repeating: "A", count: 8193), now: Fixture.now)
            } == .tooLarge)
        let small = try TokenVerifier(keys: [Fixture.key()], maximumTokenLength: 64)
        let normal = Fixture.forge(payload: Fixture.payload(), key: try Fixture.key())
        #expect(Fixture.failure { try small.verify(normal, now: Fixture.now) } == .tooLarge)
    }

    @Test func aTokenAtTheDefaultLimitIsAccepted() throws {
        let key = try Fixture.key()
        let base = Fixture.forge(payload: Fixture.payload(#""name":"""#), key: key)
        // Every 3 bytes of name add 4 characters to the token.
        let nameLength = (TokenVerifier.defaultMaximumTokenLength - base.utf8.count) / 4 * 3
        let token = Fixture.forge(
            payload: Fixture.payload(#""name":"\#(String(repeating: "n", count: nameLength))""#),
            key: key
        )
        #expect(token.utf8.count <= TokenVerifier.defaultMaximumTokenLength)
        #expect(token.utf8.count > TokenVerifier.defaultMaximumTokenLength - 8)
        #expect(try Fixture.verifier().verify(token, now: Fixture.now).name?.count == nameLength)
    }

    // MARK: - Times

    @Test func expiryIsCheckedWithTheLeeway() throws {
        let key = try Fixture.key()
        let verifier = try Fixture.verifier()
        func verify(expiresIn seconds: Int64) -> TokenError.Kind? {
            let token = Fixture.forge(payload: #"{"sub":"u1","exp":\#(Fixture.now + seconds)}"#, key: key)
            return Fixture.failure { try verifier.verify(token, now: Fixture.now) }
        }
        #expect(verify(expiresIn: 1) == nil)
        #expect(verify(expiresIn: 0) == nil)
        #expect(verify(expiresIn: -29) == nil)
        #expect(verify(expiresIn: -30) == .expired)
        #expect(verify(expiresIn: -31) == .expired)
        #expect(verify(expiresIn: -86_400) == .expired)
    }

    @Test func aZeroLeewayExpiresExactlyAtExp() throws {
        let key = try Fixture.key()
        let verifier = try Fixture.verifier(leeway: 0)
        let token = Fixture.forge(payload: #"{"sub":"u1","exp":\#(Fixture.now)}"#, key: key)
        #expect(Fixture.failure { try verifier.verify(token, now: Fixture.now - 1) } == nil)
        #expect(Fixture.failure { try verifier.verify(token, now: Fixture.now) } == .expired)
    }

    @Test func notBeforeIsCheckedWithTheLeeway() throws {
        let key = try Fixture.key()
        func verify(notBeforeIn seconds: Int64) throws -> TokenError.Kind? {
            let token = Fixture.forge(payload: Fixture.payload(#""nbf":\#(Fixture.now + seconds)"#), key: key)
            return Fixture.failure { try Fixture.verifier().verify(token, now: Fixture.now) }
        }
        #expect(try verify(notBeforeIn: -100) == nil)
        #expect(try verify(notBeforeIn: 30) == nil)
        #expect(try verify(notBeforeIn: 31) == .notYetValid)
        #expect(try verify(notBeforeIn: 3000) == .notYetValid)
    }

    @Test func issuedAtInTheFutureIsRefusedBeyondTheLeeway() throws {
        let key = try Fixture.key()
        func verify(issuedIn seconds: Int64) throws -> TokenError.Kind? {
            let token = Fixture.forge(payload: Fixture.payload(#""iat":\#(Fixture.now + seconds)"#), key: key)
            return Fixture.failure { try Fixture.verifier().verify(token, now: Fixture.now) }
        }
        #expect(try verify(issuedIn: -100) == nil)
        #expect(try verify(issuedIn: 30) == nil)
        #expect(try verify(issuedIn: 31) == .notYetValid)
    }

    @Test func extremeTimesDoNotOverflow() throws {
        let key = try Fixture.key()
        let verifier = try Fixture.verifier()
        let forever = Fixture.forge(payload: #"{"sub":"u1","exp":\#(Int64.max),"nbf":\#(Int64.max)}"#, key: key)
        #expect(try verifier.verify(forever, now: Int64.max - 10).subject == "u1")
        let longAgo = Fixture.forge(payload: #"{"sub":"u1","exp":\#(Int64.min),"nbf":\#(Int64.min)}"#, key: key)
        #expect(Fixture.failure { try verifier.verify(longAgo, now: Fixture.now) } == .expired)
        #expect(Fixture.failure { try verifier.verify(longAgo, now: Int64.min) } == nil)
    }

    // MARK: - Issuer and audience

    @Test func theIssuerIsCheckedWhenConfigured() throws {
        let key = try Fixture.key()
        let verifier = try Fixture.verifier(issuer: "auth.example")
        let right = Fixture.forge(payload: Fixture.payload(#""iss":"auth.example""#), key: key)
        let wrong = Fixture.forge(payload: Fixture.payload(#""iss":"evil.example""#), key: key)
        let missing = Fixture.forge(payload: Fixture.payload(), key: key)
        #expect(try verifier.verify(right, now: Fixture.now).issuer == "auth.example")
        #expect(Fixture.failure { try verifier.verify(wrong, now: Fixture.now) } == .wrongIssuer)
        #expect(
            Fixture.failure { try verifier.verify(missing, now: Fixture.now) }
                == .wrongIssuer)
        #expect(try Fixture.verifier().verify(wrong, now: Fixture.now).issuer == "evil.example")
    }

    @Test func theAudienceIsCheckedWhenConfigured() throws {
        let key = try Fixture.key()
        let verifier = try Fixture.verifier(audience: "rollcall")
        func verify(_ audience: String) -> TokenError.Kind? {
            let token = Fixture.forge(payload: Fixture.payload(audience), key: key)
            return Fixture.failure { try verifier.verify(token, now: Fixture.now) }
        }
        #expect(verify(#""aud":"rollcall""#) == nil)
        #expect(verify(#""aud":["other","rollcall"]"#) == nil)
        #expect(verify(#""aud":"other""#) == .wrongAudience)
        #expect(verify(#""aud":["other","Rollcall"]"#) == .wrongAudience)
        #expect(verify(#""aud":[]"#) == .wrongAudience)
        #expect(verify("") == .wrongAudience)
        #expect(verify(#""aud":7"#) == .invalidClaims)
        #expect(verify(#""aud":["rollcall",7]"#) == .invalidClaims)
    }

    // MARK: - Claims

    @Test(arguments: [
        ("missing sub", #"{"exp":1750003600}"#),
        ("empty sub", #"{"sub":"","exp":1750003600}"#),
        ("numeric sub", #"{"sub":42,"exp":1750003600}"#),
        ("null sub", #"{"sub":null,"exp":1750003600}"#),
        ("missing exp", #"{"sub":"u1"}"#),
        ("string exp", #"{"sub":"u1","exp":"1750003600"}"#),
        ("fractional exp", #"{"sub":"u1","exp":1750003600.5}"#),
        ("exponent exp", #"{"sub":"u1","exp":1.75e9}"#),
        ("string nbf", #"{"sub":"u1","exp":1750003600,"nbf":"0"}"#),
        ("boolean iat", #"{"sub":"u1","exp":1750003600,"iat":true}"#),
        ("numeric iss", #"{"sub":"u1","exp":1750003600,"iss":1}"#),
        ("numeric name", #"{"sub":"u1","exp":1750003600,"name":1}"#),
        ("javascript avatar", #"{"sub":"u1","exp":1750003600,"avatar":"javascript:alert(1)"}"#),
        ("bare scheme avatar", #"{"sub":"u1","exp":1750003600,"avatar":"https://"}"#),
        ("non-string role", #"{"sub":"u1","exp":1750003600,"rooms":{"r1":1}}"#),
        ("null role", #"{"sub":"u1","exp":1750003600,"rooms":{"r1":null}}"#),
        ("unknown role", #"{"sub":"u1","exp":1750003600,"rooms":{"r1":"owner"}}"#),
        ("role in another case", #"{"sub":"u1","exp":1750003600,"rooms":{"r1":"Admin"}}"#),
        ("rooms as an array", #"{"sub":"u1","exp":1750003600,"rooms":["r1"]}"#),
        ("an empty room ID", #"{"sub":"u1","exp":1750003600,"rooms":{"":"viewer"}}"#),
        ("groups as a string", #"{"sub":"u1","exp":1750003600,"groups":"g1"}"#),
        ("a numeric group", #"{"sub":"u1","exp":1750003600,"groups":["g1",2]}"#),
        ("an empty group", #"{"sub":"u1","exp":1750003600,"groups":[""]}"#),
        ("caps as an object", #"{"sub":"u1","exp":1750003600,"caps":{"mute":true}}"#),
        ("nested caps", #"{"sub":"u1","exp":1750003600,"caps":[["mute"]]}"#),
    ])
    func claimsOfTheWrongShapeAreRefused(case name: String, payload: String) throws {
        let token = Fixture.forge(payload: payload, key: try Fixture.key())
        #expect(
            Fixture.failure { try Fixture.verifier().verify(token, now: Fixture.now) }
                == .invalidClaims)
    }

    @Test func anUnknownRoleIsNamedInTheErrorWithoutEchoingIt() throws {
        let token = Fixture.forge(payload: Fixture.payload(#""rooms":{"r1":"superuser"}"#), key: try Fixture.key())
        let error = Fixture.error { try Fixture.verifier().verify(token, now: Fixture.now) }
        #expect(error?.kind == .invalidClaims)
        #expect(
            error?.description
                == "invalid token claims: rooms has an unknown role; the roles are admin, moderator, participant, "
                + "viewer, bot"
        )
    }

    @Test func errorDescriptionsNeverContainTheTokenOrItsParts() throws {
        let key = try Fixture.key()
        let tokens = [
            Fixture.forge(payload: Fixture.payload(#""iss":"SECRETISSUER""#), key: key),
            Fixture.forge(payload: #"{"sub":"SECRETSUBJECT","exp":1}"#, key: key),
            Fixture.forge(header: #"{"alg":"HS256","kid":"SECRETKID"}"#, payload: Fixture.payload(), key: key),
            Fixture.forge(payload: Fixture.payload(), key: try Fixture.key(secret: Fixture.otherSecret)),
            Fixture.forge(payload: Fixture.payload(#""rooms":{"r1":"SECRETROLE"}"#), key: key),
        ]
        let verifier = try Fixture.verifier(issuer: "auth.example")
        for token in tokens {
            let error = try #require(Fixture.error { try verifier.verify(token, now: Fixture.now) })
            #expect(!error.description.contains("SECRET"))
            for part in token.split(separator: ".") {
                #expect(!error.description.contains(part))
            }
        }
    }
}

extension String {
    fileprivate func replacingFirst(_ target: Character, with replacement: Character) -> String {
        guard let index = self.firstIndex(of: target) else {
            return String(replacement) + self.dropFirst()
        }
        var copy = self
        copy.replaceSubrange(index...index, with: String(replacement))
        return copy
    }
}
