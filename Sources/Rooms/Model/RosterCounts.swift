import JSONCoding

/// The counts every roster view's room entry carries under `counts`, whatever the view's filter: over the
/// participants the lists show (in the call and not hidden, whom `participantCount` counts), how many are in the call
/// (`inCall`), how many have each counted flag (`ParticipantFlag.viewCount`: `muted`, `video`, `presenting`,
/// `handsRaised`) and how many have each role (`roles`).
///
/// A count at zero is left out, and so is `roles` while every role is at zero: a count that drops to zero is a
/// `null` in the patch, and an empty room's `counts` is `{}` (`counts` itself is always there). `RoomState.viewCounts`
/// computes them; `object`, `patch(from:)` and `writeCanonical(into:)` are exactly what the general JSON path
/// (`JSONMergePatch.diff`, `CanonicalJSON`) gives for the objects, which `RoomRecordTests` holds them to.
struct RosterCounts: Hashable, Sendable {
    /// Listed participants in the call.
    private(set) var inCall = 0
    /// By flag ordinal (`ParticipantFlag.ordered`); 0 for a flag the views do not count.
    private var flags: [Int]
    /// By role, in `ParticipantRole.allCases` order.
    private var roles: [Int]

    /// No one counted.
    init() {
        self.flags = Array(repeating: 0, count: ParticipantFlag.ordered.count)
        self.roles = Array(repeating: 0, count: Self.roleOrder.count)
    }

    /// Counts one listed participant in the call.
    mutating func add(_ participant: Participant) {
        self.inCall += 1
        for counted in Self.countedFlags where participant.flags.contains(ordinal: counted.ordinal) == counted.whenSet {
            self.flags[counted.ordinal] += 1
        }
        self.roles[Self.roleIndex[participant.role]!] += 1
    }

    /// How many have `flag` counted (its `viewCount` value); 0 for a flag the views do not count.
    func count(_ flag: ParticipantFlag) -> Int { self.flags[flag.ordinal] }

    /// How many have `role`.
    func count(_ role: ParticipantRole) -> Int { self.roles[Self.roleIndex[role]!] }

    // MARK: The entry

    /// The members of the entry, in its order: `inCall`, the counted flags in their order, `roles`.
    private enum Member {
        case inCall
        case flag(Int)
        case roles
    }

    private static let countedFlags: [(ordinal: Int, whenSet: Bool)] = ParticipantFlag.ordered.compactMap { flag in
        flag.viewCount.map { (flag.ordinal, $0.whenSet) }
    }

    private static let members: [(name: String, member: Member)] =
        [("inCall", .inCall)]
        + ParticipantFlag.ordered.compactMap { flag in flag.viewCount.map { ($0.name, .flag(flag.ordinal)) } }
        + [("roles", .roles)]

    private static let roleOrder = ParticipantRole.allCases
    private static let roleIndex: [ParticipantRole: Int] = Dictionary(
        uniqueKeysWithValues: ParticipantRole.allCases.enumerated().map { ($0.element, $0.offset) })

    /// The members and the roles in canonical order, with their names encoded as `,"name":` once.
    private static let canonicalMembers: [(key: [UInt8], member: Member)] = members.sorted {
        CanonicalJSON.keyPrecedes($0.name, $1.name)
    }.map { (Array(",\"\($0.name)\":".utf8), $0.member) }
    private static let canonicalRoles: [(key: [UInt8], index: Int)] = roleOrder.enumerated().sorted {
        CanonicalJSON.keyPrecedes($0.element.rawValue, $1.element.rawValue)
    }.map { (Array(",\"\($0.element.rawValue)\":".utf8), $0.offset) }

    private func value(_ member: Member) -> Int {
        switch member {
        case .inCall: return self.inCall
        case .flag(let ordinal): return self.flags[ordinal]
        case .roles: return self.roles.contains { $0 != 0 } ? 1 : 0
        }
    }

    /// The entry as a JSON object, zeros left out.
    var object: JSONObject {
        var object = JSONObject()
        for (name, member) in Self.members {
            if case .roles = member {
                if let roles = self.rolesObject { object[name] = .object(roles) }
            } else if self.value(member) != 0 {
                object[name] = .int(Int64(self.value(member)))
            }
        }
        return object
    }

    /// The roles above zero, nil while there are none.
    private var rolesObject: JSONObject? {
        var object = JSONObject()
        for (index, role) in Self.roleOrder.enumerated() where self.roles[index] != 0 {
            object[role.rawValue] = .int(Int64(self.roles[index]))
        }
        return object.isEmpty ? nil : object
    }

    /// The merge patch from `old`, nil when they are the same: exactly `JSONMergePatch.diff(old.object, object)`
    /// (members dropping to zero as `null` first, then those added or changed, each in the entry's order).
    func patch(from old: RosterCounts) -> JSONObject? {
        guard self != old else { return nil }
        var patch = JSONObject()
        for (name, member) in Self.members where old.value(member) != 0 && self.value(member) == 0 {
            patch[name] = .null
        }
        for (name, member) in Self.members {
            if case .roles = member {
                guard self.roles != old.roles, let roles = self.rolesObject else { continue }
                patch[name] = .object(old.rolesObject == nil ? roles : self.rolesPatch(from: old))
            } else {
                let value = self.value(member)
                if value != 0 && value != old.value(member) { patch[name] = .int(Int64(value)) }
            }
        }
        return patch.isEmpty ? nil : patch
    }

    /// The patch of `roles` between two sets of counts that both have some.
    private func rolesPatch(from old: RosterCounts) -> JSONObject {
        var patch = JSONObject()
        for (index, role) in Self.roleOrder.enumerated() where old.roles[index] != 0 && self.roles[index] == 0 {
            patch[role.rawValue] = .null
        }
        for (index, role) in Self.roleOrder.enumerated() where self.roles[index] != 0 {
            if self.roles[index] != old.roles[index] { patch[role.rawValue] = .int(Int64(self.roles[index])) }
        }
        return patch
    }

    /// Appends the entry's canonical JSON (`CanonicalJSON.write(.object(object))`) to `output`.
    func writeCanonical(into output: inout [UInt8]) {
        // Every member is written after a comma; the first one's comma becomes the opening brace.
        let start = output.count
        for (key, member) in Self.canonicalMembers {
            if case .roles = member {
                guard self.value(.roles) != 0 else { continue }
                output.append(contentsOf: key)
                let inner = output.count
                for (roleKey, index) in Self.canonicalRoles where self.roles[index] != 0 {
                    output.append(contentsOf: roleKey)
                    JSONWriter.appendInteger(Int64(self.roles[index]), to: &output)
                }
                output[inner] = UInt8(ascii: "{")
                output.append(UInt8(ascii: "}"))
            } else if self.value(member) != 0 {
                output.append(contentsOf: key)
                JSONWriter.appendInteger(Int64(self.value(member)), to: &output)
            }
        }
        if output.count == start {
            output.append(contentsOf: [UInt8(ascii: "{"), UInt8(ascii: "}")])
        } else {
            output[start] = UInt8(ascii: "{")
            output.append(UInt8(ascii: "}"))
        }
    }
}
