import type { JsonObject, JsonValue } from "./json.js";
/**
 * Applies an RFC 7386 JSON Merge Patch: an object patch merges member by member, `null` removes a member, anything
 * else replaces the target.
 *
 * Neither argument is modified. Members the patch does not touch keep their identity in the result, so a roster
 * entry that did not change is the same object before and after (which is what lets views skip unchanged rows and
 * the checksum reuse its per-entry hashes).
 */
export declare function applyMergePatch(target: JsonValue | undefined, patch: JsonValue): JsonValue;
/**
 * The smallest merge patch that turns `before` into `after`, or `undefined` when they are equal: members missing
 * from `after` become `null`, changed members their new value, changed objects their own patch. `after` must hold
 * no `null` member (a merge patch cannot set one).
 */
export declare function diffMergePatch(before: JsonObject, after: JsonObject): JsonObject | undefined;
/** Sets an own data member, also for the key `__proto__` (which a plain assignment would take as the prototype). */
export declare function setMember(object: JsonObject, key: string, value: JsonValue): void;
