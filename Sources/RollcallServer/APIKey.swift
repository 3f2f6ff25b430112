/// A key of the server API: a name (recorded as the actor `api:NAME`) and the secret sent as a bearer token.
public struct APIKey: Sendable, Hashable {
    /// The key's name, e.g. `backend`.
    public let name: String
    /// The secret.
    public let secret: String

    /// - Parameters:
    ///   - name: the name recorded as the actor.
    ///   - secret: the bearer token.
    public init(name: String, secret: String) {
        self.name = name
        self.secret = secret
    }

    /// The actor recorded for actions taken with this key.
    public var actor: String { "api:\(self.name)" }

    /// The key whose secret is `presented`, comparing against every key in constant time per key (the time does not
    /// depend on where the bytes differ, and every key is compared whatever matched).
    ///
    /// - Parameters:
    ///   - presented: the bearer token from the request.
    ///   - keys: the configured keys.
    public static func match(_ presented: String, in keys: [APIKey]) -> APIKey? {
        let bytes = Array(presented.utf8)
        var found: APIKey?
        for key in keys where Self.constantTimeEquals(bytes, Array(key.secret.utf8)) {
            if found == nil { found = key }
        }
        return found
    }

    @inline(never)
    static func constantTimeEquals(_ actual: [UInt8], _ expected: [UInt8]) -> Bool {
        var difference = actual.count == expected.count ? 0 : 1
        for index in 0..<expected.count {
            let other = index < actual.count ? actual[index] : 0
            difference |= Int(expected[index] ^ other)
        }
        return difference == 0
    }
}
