import { isJsonObject, jsonEqual } from "./json.js";
import type { JsonObject, JsonValue } from "./json.js";

/**
 * Applies an RFC 7386 JSON Merge Patch: an object patch merges member by member, `null` removes a member, anything
 * else replaces the target.
 *
 * Neither argument is modified. Members the patch does not touch keep their identity in the result, so a roster
 * entry that did not change is the same object before and after (which is what lets views skip unchanged rows and
 * the checksum reuse its per-entry hashes).
 */
export function applyMergePatch(target: JsonValue | undefined, patch: JsonValue): JsonValue {
    if (!isJsonObject(patch)) return patch;
    const base: JsonObject = isJsonObject(target) ? target : {};
    const result: JsonObject = { ...base };
    for (const key of Object.keys(patch)) {
        const value = patch[key];
        if (value === null) {
            delete result[key];
        } else {
            const current = Object.prototype.hasOwnProperty.call(result, key) ? result[key] : undefined;
            setMember(result, key, applyMergePatch(current, value));
        }
    }
    return result;
}

/**
 * The smallest merge patch that turns `before` into `after`, or `undefined` when they are equal: members missing
 * from `after` become `null`, changed members their new value, changed objects their own patch. `after` must hold
 * no `null` member (a merge patch cannot set one).
 */
export function diffMergePatch(before: JsonObject, after: JsonObject): JsonObject | undefined {
    const patch: JsonObject = {};
    let changed = false;
    for (const key of Object.keys(before)) {
        if (!Object.prototype.hasOwnProperty.call(after, key)) {
            setMember(patch, key, null);
            changed = true;
        }
    }
    for (const key of Object.keys(after)) {
        const newValue = after[key];
        if (!Object.prototype.hasOwnProperty.call(before, key)) {
            setMember(patch, key, newValue);
            changed = true;
            continue;
        }
        const oldValue = before[key];
        if (jsonEqual(oldValue, newValue)) continue;
        if (isJsonObject(oldValue) && isJsonObject(newValue)) {
            const inner = diffMergePatch(oldValue, newValue);
            if (inner !== undefined) {
                setMember(patch, key, inner);
                changed = true;
            }
        } else {
            setMember(patch, key, newValue);
            changed = true;
        }
    }
    return changed ? patch : undefined;
}

/** Sets an own data member, also for the key `__proto__` (which a plain assignment would take as the prototype). */
export function setMember(object: JsonObject, key: string, value: JsonValue): void {
    if (key === "__proto__") {
        Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
    } else {
        object[key] = value;
    }
}
