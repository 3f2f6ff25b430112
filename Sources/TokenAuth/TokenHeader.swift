import JSONCoding

/// The JOSE header of an HS256 JWT (RFC 7515 §4, RFC 7519 §5): the algorithm, the type and the key ID.
struct TokenHeader: Hashable, Sendable {
    /// The only algorithm this module signs and verifies with, spelled exactly as in RFC 7518 §3.1.
    static let algorithm = "HS256"
    /// The `typ` value written by the signer.
    static let type = "JWT"

    /// The `kid` member, naming the key the token was signed with.
    var keyID: String?

    /// Creates the header the signer writes.
    ///
    /// - Parameters:
    ///   - keyID: The `kid` member, or nil to leave it out.
    init(keyID: String?) {
        self.keyID = keyID
    }

    /// Reads and checks a received header.
    ///
    /// `alg` must be exactly `HS256`; every other value, `none` and case variants included, is refused. `typ`, if
    /// present, must be `JWT` in any letter case (media type names are case-insensitive, RFC 7515 §4.1.9). A `crit`
    /// member is refused because this module implements no header extension (RFC 7515 §4.1.11). Other members are
    /// ignored; nothing is ever fetched from `jku` or `x5u`.
    ///
    /// - Parameters:
    ///   - json: The decoded header.
    /// - Throws: ``TokenError/Kind/malformed`` or ``TokenError/Kind/unsupportedAlgorithm``.
    init(json: JSONValue) throws(TokenError) {
        guard case .object(let members) = json else {
            throw TokenError(.malformed, "the header is not a JSON object")
        }
        guard let algorithm = members["alg"] else {
            throw TokenError(.malformed, "the header has no alg")
        }
        guard case .string(let name) = algorithm else {
            throw TokenError(.malformed, "the header's alg is not a string")
        }
        guard name == Self.algorithm else {
            throw TokenError(.unsupportedAlgorithm, "only \(Self.algorithm) is accepted")
        }
        if let type = members["typ"] {
            guard case .string(let value) = type, value.lowercased() == Self.type.lowercased() else {
                throw TokenError(.malformed, "the header's typ is not JWT")
            }
        }
        guard members["crit"] == nil else {
            throw TokenError(.malformed, "the header has crit, and no header extension is supported")
        }
        switch members["kid"] {
        case nil:
            self.keyID = nil
        case .string(let keyID) where !keyID.isEmpty:
            self.keyID = keyID
        default:
            throw TokenError(.malformed, "the header's kid is not a non-empty string")
        }
    }

    /// The header as JSON: `{"alg":"HS256","typ":"JWT"}` and `kid` when there is one.
    var json: JSONValue {
        var members: JSONObject = ["alg": .string(Self.algorithm), "typ": .string(Self.type)]
        if let keyID = self.keyID {
            members["kid"] = .string(keyID)
        }
        return .object(members)
    }
}
