import TokenAuth

/// Fuzzes `TokenVerifier.verify` with the input as a token string (UTF-8 decoded leniently), a fixed key and clock.
///
/// Invariant: the verifier only throws `TokenError` (typed throws) and never traps; an accepted token's claims
/// sign and verify again to the same claims.

private let now: Int64 = 1_750_000_000
private let key = try! TokenKey(secret: "correct horse battery staple, rollcall test secret")
private let rotatedKey = try! TokenKey(keyID: "k2", secret: "an entirely different secret of sufficient length")
private let verifier = try! TokenVerifier(keys: [key, rotatedKey])
private let strictVerifier = try! TokenVerifier(keys: [key], issuer: "https://issuer.example", audience: "rollcall")

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let token = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    _ = try? strictVerifier.verify(token, now: now)
    guard let claims = try? verifier.verify(token, now: now) else { return 0 }
    precondition(claims.expiresAt > now - TokenVerifier.defaultLeeway, "accepted an expired token")
    var unsigned = claims
    unsigned.keyID = nil
    if let again = try? TokenSigner(key: key).sign(unsigned) {
        precondition((try? verifier.verify(again, now: now)) == unsigned, "claims changed when signed again")
    }
    return 0
}
