import type { JsonObject, JsonValue } from "./json.js";
/**
 * The roster checksum (docs/PROTOCOL.md, "patch"): the sum modulo 2^64 of one 64-bit FNV-1a hash per roster entry
 * (`room`, and each participant by uid), each over the entry's key, a zero byte and the entry's canonical JSON,
 * written as 16 lower-case hex digits.
 *
 * JavaScript numbers hold 53 bits, so the 64-bit arithmetic runs on two unsigned 32-bit halves.
 */
/** A 64-bit unsigned value as two unsigned 32-bit halves. */
interface Halves {
    hi: number;
    lo: number;
}
/**
 * Whether `a` sorts before `b` by their UTF-8 bytes, which is Unicode code point order. JavaScript's own string
 * comparison uses UTF-16 code units, which puts astral characters (surrogate pairs, U+D800..U+DFFF) before
 * U+E000..U+FFFF; this comparison does not.
 */
export declare function compareUtf8(a: string, b: string): number;
/**
 * The canonical JSON text of a value: object members sorted by their names' UTF-8 bytes, no whitespace, strings
 * escaping only `"`, `\` and control characters (`\b`, `\f`, `\n`, `\r`, `\t`, otherwise `\u00xx`).
 */
export declare function canonicalJson(value: JsonValue): string;
/** FNV-1a (64-bit) over the UTF-8 bytes of `key`, a zero byte and the canonical JSON of `value`. */
export declare function entryHash(key: string, value: JsonValue): Halves;
/**
 * The checksum of a roster object `{"room": {...}, "participants": {uid: {...}}}`, in 16 lower-case hex digits.
 *
 * Entry hashes are remembered per entry object, so after a patch only the entries it replaced are hashed again.
 * The roster's entries must therefore not be modified in place (the roster store freezes them).
 */
export declare function rosterChecksum(roster: JsonObject): string;
export {};
