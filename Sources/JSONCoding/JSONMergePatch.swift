/// RFC 7386 JSON Merge Patch: the smallest patch between two objects, and applying one.
public enum JSONMergePatch {
    /// The patch that turns `old` into `new`, nil when they are equal: members of `old` missing from `new` become
    /// `null`, changed members their new value, changed objects their own patch.
    ///
    /// - Parameters:
    ///   - old: the object before.
    ///   - new: the object after; it must hold no `null` member (a merge patch cannot set one).
    public static func diff(_ old: JSONObject, _ new: JSONObject) -> JSONObject? {
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
