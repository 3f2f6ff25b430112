import JSONCoding

extension TokenClaims {
    /// Reads claims from a decoded payload, checking the type and shape of every claim this module knows.
    ///
    /// Required: `sub` (a non-empty string) and `exp` (an integer). Optional: `nbf` and `iat` (integers), `iss` and
    /// `name` (strings), `avatar` (an `https` or `http` URL), `aud` (a string or an array of strings), `rooms` (an
    /// object of non-empty room IDs to role names), `groups` and `caps` (arrays of non-empty strings), `attrs` (an
    /// object of strings), `admission` (an object of non-empty room IDs to `wait` or `bypass`). `null` is not
    /// accepted for any of them. Unknown claims are ignored. Times are not compared with the clock here.
    ///
    /// - Parameters:
    ///   - payload: The decoded payload.
    ///   - keyID: The header's `kid`.
    /// - Throws: ``TokenError/Kind/malformed`` if the payload is not an object, ``TokenError/Kind/invalidClaims``
    ///   for a missing, mistyped or disallowed claim.
    init(payload: JSONValue, keyID: String?) throws(TokenError) {
        guard case .object(let payload) = payload else {
            throw TokenError(.malformed, "the payload is not a JSON object")
        }
        guard let subject = try Self.string(payload, "sub") else {
            throw TokenError(.invalidClaims, "sub is missing")
        }
        guard !subject.isEmpty else {
            throw TokenError(.invalidClaims, "sub is empty")
        }
        guard let expiresAt = try Self.integer(payload, "exp") else {
            throw TokenError(.invalidClaims, "exp is missing")
        }
        let avatar = try Self.string(payload, "avatar")
        if let avatar {
            guard Self.isWebAddress(avatar) else {
                throw TokenError(.invalidClaims, "avatar is not an https or http URL")
            }
        }
        self.init(
            subject: subject,
            expiresAt: expiresAt,
            name: try Self.string(payload, "name"),
            avatar: avatar,
            rooms: try Self.rooms(payload),
            groups: try Self.stringArray(payload, "groups"),
            capabilities: try Self.stringArray(payload, "caps"),
            attributes: try Self.attributes(payload),
            admission: try Self.admission(payload),
            notBefore: try Self.integer(payload, "nbf"),
            issuedAt: try Self.integer(payload, "iat"),
            issuer: try Self.string(payload, "iss"),
            audience: try Self.audience(payload),
            keyID: keyID
        )
    }

    /// The claims as a payload object, in a fixed member order; empty collections and nil values are left out.
    var payload: JSONValue {
        var members = JSONObject()
        if let issuer = self.issuer {
            members["iss"] = .string(issuer)
        }
        members["sub"] = .string(self.subject)
        if self.audience.count == 1 {
            members["aud"] = .string(self.audience[0])
        } else if !self.audience.isEmpty {
            members["aud"] = .array(self.audience.map { .string($0) })
        }
        members["exp"] = .int(self.expiresAt)
        if let notBefore = self.notBefore {
            members["nbf"] = .int(notBefore)
        }
        if let issuedAt = self.issuedAt {
            members["iat"] = .int(issuedAt)
        }
        if let name = self.name {
            members["name"] = .string(name)
        }
        if let avatar = self.avatar {
            members["avatar"] = .string(avatar)
        }
        if !self.rooms.isEmpty {
            let rooms = self.rooms.sorted { $0.key < $1.key }.map { room in
                (room.key, JSONValue.string(room.value.rawValue))
            }
            members["rooms"] = .object(JSONObject(uniqueKeysWithValues: rooms))
        }
        if !self.groups.isEmpty {
            members["groups"] = .array(self.groups.map { .string($0) })
        }
        if !self.capabilities.isEmpty {
            members["caps"] = .array(self.capabilities.map { .string($0) })
        }
        if !self.attributes.isEmpty {
            let attributes = self.attributes.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.string($0.value)) }
            members["attrs"] = .object(JSONObject(uniqueKeysWithValues: attributes))
        }
        if !self.admission.isEmpty {
            let rules = self.admission.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.string($0.value.rawValue)) }
            members["admission"] = .object(JSONObject(uniqueKeysWithValues: rules))
        }
        return .object(members)
    }

    private static func admission(_ payload: JSONObject) throws(TokenError) -> [String: TokenAdmission] {
        guard let value = payload["admission"] else { return [:] }
        guard case .object(let members) = value else {
            throw TokenError(.invalidClaims, "admission is not an object of room IDs to 'wait' or 'bypass'")
        }
        var rules: [String: TokenAdmission] = [:]
        for member in members.entries {
            guard !member.key.isEmpty else { throw TokenError(.invalidClaims, "admission has an empty room ID") }
            guard case .string(let name) = member.value, let rule = TokenAdmission(rawValue: name) else {
                throw TokenError(.invalidClaims, "admission has a value other than 'wait' or 'bypass'")
            }
            rules[member.key] = rule
        }
        return rules
    }

    private static func string(_ payload: JSONObject, _ claim: String) throws(TokenError) -> String? {
        switch payload[claim] {
        case nil:
            return nil
        case .string(let value):
            return value
        default:
            throw TokenError(.invalidClaims, "\(claim) is not a string")
        }
    }

    private static func attributes(_ payload: JSONObject) throws(TokenError) -> [String: String] {
        guard let value = payload["attrs"] else { return [:] }
        guard case .object(let object) = value else { throw TokenError(.invalidClaims, "attrs is not an object") }
        var attributes: [String: String] = [:]
        for (key, value) in object.entries {
            guard case .string(let text) = value else {
                throw TokenError(.invalidClaims, "attrs.\(key.prefix(32)) is not a string")
            }
            attributes[key] = text
        }
        return attributes
    }

    private static func integer(_ payload: JSONObject, _ claim: String) throws(TokenError) -> Int64? {
        switch payload[claim] {
        case nil:
            return nil
        case .int(let value):
            return value
        default:
            throw TokenError(.invalidClaims, "\(claim) is not an integer number of seconds")
        }
    }

    private static func stringArray(_ payload: JSONObject, _ claim: String) throws(TokenError) -> [String] {
        guard let value = payload[claim] else {
            return []
        }
        guard case .array(let elements) = value else {
            throw TokenError(.invalidClaims, "\(claim) is not an array of strings")
        }
        var strings: [String] = []
        strings.reserveCapacity(elements.count)
        for element in elements {
            guard case .string(let string) = element, !string.isEmpty else {
                throw TokenError(.invalidClaims, "\(claim) is not an array of non-empty strings")
            }
            strings.append(string)
        }
        return strings
    }

    private static func audience(_ payload: JSONObject) throws(TokenError) -> [String] {
        switch payload["aud"] {
        case nil:
            return []
        case .string(let audience):
            return [audience]
        case .array(let elements):
            var audience: [String] = []
            for element in elements {
                guard case .string(let string) = element else {
                    throw TokenError(.invalidClaims, "aud is neither a string nor an array of strings")
                }
                audience.append(string)
            }
            return audience
        default:
            throw TokenError(.invalidClaims, "aud is neither a string nor an array of strings")
        }
    }

    private static func rooms(_ payload: JSONObject) throws(TokenError) -> [String: TokenRole] {
        guard let value = payload["rooms"] else {
            return [:]
        }
        guard case .object(let members) = value else {
            throw TokenError(.invalidClaims, "rooms is not an object of room IDs to roles")
        }
        var rooms: [String: TokenRole] = [:]
        rooms.reserveCapacity(members.count)
        for member in members.entries {
            guard !member.key.isEmpty else {
                throw TokenError(.invalidClaims, "rooms has an empty room ID")
            }
            guard case .string(let name) = member.value else {
                throw TokenError(.invalidClaims, "rooms has a role that is not a string")
            }
            guard let role = TokenRole(rawValue: name) else {
                let known = TokenRole.allRoles.map(\.rawValue).joined(separator: ", ")
                throw TokenError(.invalidClaims, "rooms has an unknown role; the roles are \(known)")
            }
            rooms[member.key] = role
        }
        return rooms
    }

    /// Whether `text` starts with `https://` or `http://` (in any letter case) and has something after it.
    private static func isWebAddress(_ text: String) -> Bool {
        let lowercased = text.lowercased()
        for scheme in ["https://", "http://"] where lowercased.hasPrefix(scheme) {
            return lowercased.utf8.count > scheme.utf8.count
        }
        return false
    }
}
