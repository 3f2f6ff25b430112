/// Why a token was refused, or why a key, verifier or signer could not be set up.
///
/// Compare failures through ``kind``. The description is for logs and people: it is stable, names the failed check
/// and never contains the token, a secret, or any value taken from the token, so logging it cannot leak credentials
/// or let a client write into the log.
public struct TokenError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong, coarse enough to act on.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        private enum Base: Hashable, Sendable {
            case malformed
            case tooLarge
            case unsupportedAlgorithm
            case unknownKey
            case badSignature
            case expired
            case notYetValid
            case wrongIssuer
            case wrongAudience
            case invalidClaims
            case invalidKey
            case invalidConfiguration
            case signingFailed
        }

        private let base: Base

        private init(_ base: Base) {
            self.base = base
        }

        /// The token is not a compact JWS: not three base64url parts, a header or payload that is not a JSON
        /// object, or a header without `alg`, with a `typ` other than `JWT`, or with `crit`.
        public static let malformed = Kind(.malformed)
        /// The token is longer than the verifier's limit.
        public static let tooLarge = Kind(.tooLarge)
        /// The header names an algorithm other than `HS256`: `none`, `hs256`, `RS256` or anything else.
        public static let unsupportedAlgorithm = Kind(.unsupportedAlgorithm)
        /// No configured key matches the header's `kid`.
        public static let unknownKey = Kind(.unknownKey)
        /// The signature does not match the header and payload.
        public static let badSignature = Kind(.badSignature)
        /// The `exp` claim is in the past, beyond the leeway.
        public static let expired = Kind(.expired)
        /// The `nbf` or `iat` claim is in the future, beyond the leeway.
        public static let notYetValid = Kind(.notYetValid)
        /// The `iss` claim is missing or is not the configured issuer.
        public static let wrongIssuer = Kind(.wrongIssuer)
        /// The `aud` claim is missing or does not contain the configured audience.
        public static let wrongAudience = Kind(.wrongAudience)
        /// A claim is missing, has the wrong type, or holds a value that is not allowed, such as an unknown role.
        public static let invalidClaims = Kind(.invalidClaims)
        /// A key secret is empty, too short, not valid base64, or a key ID is empty.
        public static let invalidKey = Kind(.invalidKey)
        /// A verifier setting is not allowed: no keys, ambiguous keys, a negative leeway or a bad length limit.
        public static let invalidConfiguration = Kind(.invalidConfiguration)
        /// OpenSSL could not compute a signature.
        public static let signingFailed = Kind(.signingFailed)

        /// The name of the kind, for logs.
        public var description: String {
            switch self.base {
            case .malformed: "malformed token"
            case .tooLarge: "token too large"
            case .unsupportedAlgorithm: "unsupported token algorithm"
            case .unknownKey: "unknown token key"
            case .badSignature: "bad token signature"
            case .expired: "token expired"
            case .notYetValid: "token not yet valid"
            case .wrongIssuer: "wrong token issuer"
            case .wrongAudience: "wrong token audience"
            case .invalidClaims: "invalid token claims"
            case .invalidKey: "invalid token key"
            case .invalidConfiguration: "invalid token verifier configuration"
            case .signingFailed: "token signing failed"
            }
        }
    }

    /// What went wrong.
    public let kind: Kind

    /// The kind and the check that failed, for example `token expired: exp is more than 30 s in the past`.
    public let description: String

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - kind: What went wrong.
    ///   - detail: The failed check, in words fixed by this module; never text taken from the token.
    init(_ kind: Kind, _ detail: String) {
        self.kind = kind
        self.description = "\(kind): \(detail)"
    }
}
