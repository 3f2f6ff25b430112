import Testing

@testable import TokenAuth

@Suite struct TokenSignerTests {
    // MARK: - Exact output

    /// Tokens the signer must reproduce byte for byte: the member order and text of the header and the payload
    /// are part of the format, so the same claims and key always give the same token.
    static let goldenTokens: [(name: String, key: TokenKey, claims: TokenClaims, token: String)] = {
        let named = try! Fixture.key(id: "k1")
        let unnamed = try! Fixture.key()
        var manyRooms: [String: TokenRole] = [:]
        for index in 0..<12 {
            manyRooms["room-\(index)"] = TokenRole.allRoles[index % TokenRole.allRoles.count]
        }
        return [
            (
                name: "minimal",
                key: unnamed,
                claims: TokenClaims(subject: "u1", expiresAt: Fixture.now),
                token: "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1MSIsImV4cCI6MTc1MDAwMDAwMH0"
                    + ".ul3wWQiQ2wlx14oJJzP5xYLbQshCTuQpPq8jQTd0oqE"
            ),
            (
                name: "every claim, with escapes",
                key: named,
                claims: TokenClaims(
                    subject: "user-42",
                    expiresAt: Fixture.now + 3600,
                    name: "Ada \"Lovelace\" \\ \u{e9}\u{1F600}\n\t\r\u{8}\u{c}\u{1}\u{1f}\u{7f}/</script>",
                    avatar: "https://example.com/a.png?x=1&y=\"2\"",
                    rooms: ["r2": .viewer, "r1": .admin, "b": .bot, "Z": .moderator, "\u{e9}": .participant],
                    groups: ["g1", "g 2"],
                    capabilities: ["mute", "pin"],
                    notBefore: Fixture.now - 10,
                    issuedAt: Fixture.now - 10,
                    issuer: "auth.example",
                    audience: ["rollcall"],
                    keyID: "ignored"
                ),
                token: "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCIsImtpZCI6ImsxIn0"
                    + ".eyJpc3MiOiJhdXRoLmV4YW1wbGUiLCJzdWIiOiJ1c2VyLTQyIiwiYXVkIjoicm9sbGNhbGwiLCJleHAiOjE3NTAwMDM2"
                    + "MDAsIm5iZiI6MTc0OTk5OTk5MCwiaWF0IjoxNzQ5OTk5OTkwLCJuYW1lIjoiQWRhIFwiTG92ZWxhY2VcIiBcXCDDqfCfmIBc"
                    + "blx0XHJcYlxmXHUwMDAxXHUwMDFmfy88L3NjcmlwdD4iLCJhdmF0YXIiOiJodHRwczovL2V4YW1wbGUuY29tL2EucG5nP3g9"
                    + "MSZ5PVwiMlwiIiwicm9vbXMiOnsiWiI6Im1vZGVyYXRvciIsImIiOiJib3QiLCJyMSI6ImFkbWluIiwicjIiOiJ2aWV3ZXIi"
                    + "LCLDqSI6InBhcnRpY2lwYW50In0sImdyb3VwcyI6WyJnMSIsImcgMiJdLCJjYXBzIjpbIm11dGUiLCJwaW4iXX0"
                    + ".3DZmXjzx_FSyQrsWUFYr0C0t0Ypnw2Tx1PRSpjuxL18"
            ),
            (
                name: "extreme times, several audiences, many rooms",
                key: named,
                claims: TokenClaims(
                    subject: "\u{0}",
                    expiresAt: Int64.min,
                    rooms: manyRooms,
                    notBefore: Int64.max,
                    issuedAt: 0,
                    audience: ["a", "", "c"]
                ),
                token: "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCIsImtpZCI6ImsxIn0"
                    + ".eyJzdWIiOiJcdTAwMDAiLCJhdWQiOlsiYSIsIiIsImMiXSwiZXhwIjotOTIyMzM3MjAzNjg1NDc3NTgwOCwibmJmIjo5"
                    + "MjIzMzcyMDM2ODU0Nzc1ODA3LCJpYXQiOjAsInJvb21zIjp7InJvb20tMCI6ImFkbWluIiwicm9vbS0xIjoibW9kZXJhdG9y"
                    + "Iiwicm9vbS0xMCI6ImFkbWluIiwicm9vbS0xMSI6Im1vZGVyYXRvciIsInJvb20tMiI6InBhcnRpY2lwYW50Iiwicm9vbS0z"
                    + "Ijoidmlld2VyIiwicm9vbS00IjoiYm90Iiwicm9vbS01IjoiYWRtaW4iLCJyb29tLTYiOiJtb2RlcmF0b3IiLCJyb29tLTci"
                    + "OiJwYXJ0aWNpcGFudCIsInJvb20tOCI6InZpZXdlciIsInJvb20tOSI6ImJvdCJ9fQ"
                    + "._K6F7vvmmIXv8JwUo8Zn5Z434XA_q1_AoQrhOFaCC3o"
            ),
        ]
    }()

    @Test func theSameClaimsAlwaysGiveTheSameBytes() throws {
        for golden in Self.goldenTokens {
            #expect(try TokenSigner(key: golden.key).sign(golden.claims) == golden.token, "\(golden.name)")
        }
    }

    @Test func theHeaderIsAlgTypAndKidInThatOrder() throws {
        let withID = try TokenSigner(key: Fixture.key(id: "k1")).sign(TokenClaims(subject: "u1", expiresAt: 1))
        let withoutID = try TokenSigner(key: Fixture.key()).sign(TokenClaims(subject: "u1", expiresAt: 1))
        #expect(Self.header(of: withID) == #"{"alg":"HS256","typ":"JWT","kid":"k1"}"#)
        #expect(Self.header(of: withoutID) == #"{"alg":"HS256","typ":"JWT"}"#)
    }

    @Test func signedClaimsVerifyBackToTheSameClaims() throws {
        for golden in Self.goldenTokens {
            let verifier = try TokenVerifier(keys: [golden.key])
            if golden.claims.expiresAt < Fixture.now {
                // Long expired: everything before the clock check, the JSON included, still passes.
                #expect(Fixture.failure { try verifier.verify(golden.token, now: Fixture.now) } == .expired)
                continue
            }
            var expected = golden.claims
            expected.keyID = golden.key.keyID
            #expect(try verifier.verify(golden.token, now: Fixture.now - 10) == expected, "\(golden.name)")
        }
    }

    @Test func claimsAVerifierWouldRefuseAreNotSigned() throws {
        let signer = try TokenSigner(key: Fixture.key())
        for claims in [
            TokenClaims(subject: "", expiresAt: 1),
            TokenClaims(subject: "u1", expiresAt: 1, avatar: "javascript:alert(1)"),
            TokenClaims(subject: "u1", expiresAt: 1, rooms: ["": .viewer]),
            TokenClaims(subject: "u1", expiresAt: 1, groups: [""]),
        ] {
            let error = #expect(throws: TokenError.self) { try signer.sign(claims) }
            #expect(error?.kind == .invalidClaims)
        }
    }

    // MARK: - JSON limits

    @Test func containersNestAtMostFourDeep() throws {
        let key = try Fixture.key()
        let deepest = Fixture.forge(payload: Fixture.payload(#""x":[{"y":[]}]"#), key: key)
        #expect(Fixture.failure { try Fixture.verifier().verify(deepest, now: Fixture.now) } == nil)
        let tooDeep = Fixture.forge(payload: Fixture.payload(#""x":[{"y":[[]]}]"#), key: key)
        let error = Fixture.error { try Fixture.verifier().verify(tooDeep, now: Fixture.now) }
        #expect(error?.kind == .malformed)
        #expect(error?.description == "malformed token: the payload nests deeper than 4 levels")

        let deepHeader = Fixture.forge(header: #"{"alg":"HS256","x":[[[]]]}"#, payload: Fixture.payload(), key: key)
        #expect(Fixture.failure { try Fixture.verifier().verify(deepHeader, now: Fixture.now) } == nil)
        let tooDeepHeader = Fixture.forge(
            header: #"{"alg":"HS256","x":[[[1,[]]]]}"#, payload: Fixture.payload(),
            key: key)
        #expect(
            Fixture.error { try Fixture.verifier().verify(tooDeepHeader, now: Fixture.now) }?.description
                == "malformed token: the header nests deeper than 4 levels"
        )
    }

    @Test func aDecodedPartLongerThan8KiBIsTooLarge() throws {
        let key = try Fixture.key()
        let verifier = try TokenVerifier(keys: [key], maximumTokenLength: TokenVerifier.maximumTokenLengthLimit)
        let base = Fixture.payload(#""name":"""#)
        let longest = Fixture.payload(#""name":"\#(String(repeating: "n", count: 8192 - base.utf8.count))""#)
        #expect(longest.utf8.count == 8192)
        let accepted = Fixture.forge(payload: longest, key: key)
        #expect(Fixture.failure { try verifier.verify(accepted, now: Fixture.now) } == nil)

        let tooLong = Fixture.forge(payload: longest + " ", key: key)
        let error = Fixture.error { try verifier.verify(tooLong, now: Fixture.now) }
        #expect(error?.kind == .tooLarge)
        #expect(error?.description == "token too large: the payload is longer than 8192 bytes")

        let header = #"{"alg":"HS256","x":"\#(String(repeating: "h", count: 8192))"}"#
        let longHeader = Fixture.forge(header: header, payload: Fixture.payload(), key: key)
        #expect(
            Fixture.error { try verifier.verify(longHeader, now: Fixture.now) }?.description
                == "token too large: the header is longer than 8192 bytes"
        )
    }

    @Test func invalidJSONIsMalformedWithoutEchoingIt() throws {
        let key = try Fixture.key()
        for payload in [
            #"{"sub":"SECRET","exp":1,}"#, #"{"sub":"SECRET","exp":01}"#, #"{"sub":"SECRET","sub":"x","exp":1}"#,
            #"{"sub":"SECRET\u"}"#, #"{"sub":"SECRET\ud800"}"#, "{\"sub\":\"SECRET\u{1}\"}", #"{"sub":'SECRET'}"#,
            #"{"sub":"SECRET"} {}"#, #"{"sub":"SECRET","exp":1e999}"#, "",
        ] {
            let token = Fixture.forge(payload: payload, key: key)
            let error = Fixture.error { try Fixture.verifier().verify(token, now: Fixture.now) }
            #expect(error?.description == "malformed token: the payload is not JSON", "\(payload)")
        }
        let invalidUTF8 =
            Base64URL.encode(Array(#"{"alg":"HS256"}"#.utf8)) + "."
            + Base64URL.encode(Array(#"{"sub":""#.utf8) + [0xC0, 0x80] + Array(#"","exp":1}"#.utf8))
        let tag = try #require(HMACSHA256.authenticationCode(key: key.secret, message: Array(invalidUTF8.utf8)))
        let token = invalidUTF8 + "." + Base64URL.encode(tag)
        #expect(Fixture.failure { try Fixture.verifier().verify(token, now: Fixture.now) } == .malformed)
    }

    private static func header(of token: String) -> String? {
        guard let part = token.split(separator: ".").first, let bytes = Base64URL.decode(part.utf8) else {
            return nil
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
