/// RFC 7386 JSON Merge Patch: the smallest patch between two objects, and applying one.
public enum JSONMergePatch {
    /// The patch that turns `old` into `new`, nil when they are equal: members of `old` missing from `new` become
    /// `null`, changed members their new value, changed objects their own patch.
    ///
    /// - Parameters:
    ///   - old: the object before.
    ///   - new: the object after; it must hold no `null` member (a merge patch cannot set one).
    public static func diff(_ old: JSONObject, _ new: JSONObject) -> JSONObject? {
        if let patch = Self.diffOfSameMembers(old, new) { return patch.isEmpty ? nil : patch }
        var patch = JSONObject()
        for (key, _) in old.entries where new[key] == nil {
            patch[key] = .null
        }
        for (key, newValue) in new.entries {
            guard let oldValue = old[key] else {
                patch[key] = newValue
                continue
            }
            if oldValue == newValue { continue }
            if case .object(let oldObject) = oldValue, case .object(let newObject) = newValue {
                if let inner = Self.diff(oldObject, newObject) { patch[key] = .object(inner) }
            } else {
                patch[key] = newValue
            }
        }
        return patch.isEmpty ? nil : patch
    }

    /// The patch between two objects with the same member names in the same order (the usual case: one producer
    /// wrote both), walked side by side without a lookup by name; nil when the names differ. The members are those
    /// `diff` gives: the changed ones, in `new`'s order.
    private static func diffOfSameMembers(_ old: JSONObject, _ new: JSONObject) -> JSONObject? {
        let oldEntries = old.entries
        let newEntries = new.entries
        guard oldEntries.count == newEntries.count else { return nil }
        for index in oldEntries.indices where oldEntries[index].key != newEntries[index].key { return nil }
        var patch = JSONObject()
        for index in newEntries.indices {
            let (key, newValue) = newEntries[index]
            let oldValue = oldEntries[index].value
            if oldValue == newValue { continue }
            if case .object(let oldObject) = oldValue, case .object(let newObject) = newValue {
                if let inner = Self.diff(oldObject, newObject) { patch[key] = .object(inner) }
            } else {
                patch[key] = newValue
            }
        }
        return patch
    }

    /// Applies `patch` to `target` (RFC 7386 §2): an object patch merges member by member, `null` removes a member,
    /// anything else replaces the target.
    ///
    /// - Parameters:
    ///   - patch: the merge patch.
    ///   - target: the document it applies to.
    public static func apply(_ patch: JSONValue, to target: JSONValue) -> JSONValue {
        guard case .object(let patchObject) = patch else { return patch }
        var result: JSONObject
        if case .object(let object) = target { result = object } else { result = JSONObject() }
        for (key, value) in patchObject.entries {
            if case .null = value {
                result[key] = nil
            } else {
                result[key] = Self.apply(value, to: result[key] ?? .null)
            }
        }
        return .object(result)
    }
}
