import { isJsonObject } from "./json.js";
const TWO_TO_32 = 4294967296;
/**
 * Whether `a` sorts before `b` by their UTF-8 bytes, which is Unicode code point order. JavaScript's own string
 * comparison uses UTF-16 code units, which puts astral characters (surrogate pairs, U+D800..U+DFFF) before
 * U+E000..U+FFFF; this comparison does not.
 */
export function compareUtf8(a, b) {
    const length = Math.min(a.length, b.length);
    for (let index = 0; index < length; index++) {
        const x = a.charCodeAt(index);
        const y = b.charCodeAt(index);
        if (x !== y)
            return codePointRank(x) - codePointRank(y);
    }
    return a.length - b.length;
}
/** Maps a UTF-16 code unit so that comparing ranks compares code points: surrogates above the rest of the BMP. */
function codePointRank(unit) {
    if (unit >= 0xd800 && unit < 0xe000)
        return unit + 0x2000;
    if (unit >= 0xe000)
        return unit - 0x800;
    return unit;
}
/**
 * The canonical JSON text of a value: object members sorted by their names' UTF-8 bytes, no whitespace, strings
 * escaping only `"`, `\` and control characters (`\b`, `\f`, `\n`, `\r`, `\t`, otherwise `\u00xx`).
 */
export function canonicalJson(value) {
    if (value === null)
        return "null";
    switch (typeof value) {
        case "boolean":
            return value ? "true" : "false";
        case "number":
            return Number.isFinite(value) ? String(value) : "null";
        case "bigint":
            return value.toString();
        case "string":
            return JSON.stringify(value);
    }
    if (Array.isArray(value)) {
        return "[" + value.map(canonicalJson).join(",") + "]";
    }
    const object = value;
    const keys = Object.keys(object).sort(compareUtf8);
    let text = "{";
    for (let index = 0; index < keys.length; index++) {
        const key = keys[index];
        if (index > 0)
            text += ",";
        text += JSON.stringify(key) + ":" + canonicalJson(object[key]);
    }
    return text + "}";
}
/** FNV-1a (64-bit) over the UTF-8 bytes of `key`, a zero byte and the canonical JSON of `value`. */
export function entryHash(key, value) {
    const state = { hi: 0xcbf29ce4, lo: 0x84222325 };
    hashText(state, key);
    hashByte(state, 0);
    hashText(state, canonicalJson(value));
    return state;
}
function hashByte(state, byte) {
    // hash = (hash ^ byte) * 0x100000001b3 mod 2^64, where the prime is 2^40 + 0x1b3.
    const lo = (state.lo ^ byte) >>> 0;
    const loProduct = lo * 0x1b3;
    const carry = Math.floor(loProduct / TWO_TO_32);
    state.hi = (state.hi * 0x1b3 + carry + ((lo << 8) >>> 0)) >>> 0;
    state.lo = loProduct >>> 0;
}
/** Feeds the UTF-8 bytes of `text`; a lone surrogate counts as U+FFFD, as a UTF-8 encoder writes it. */
function hashText(state, text) {
    const length = text.length;
    for (let index = 0; index < length; index++) {
        let unit = text.charCodeAt(index);
        if (unit < 0x80) {
            hashByte(state, unit);
            continue;
        }
        if (unit < 0x800) {
            hashByte(state, 0xc0 | (unit >> 6));
            hashByte(state, 0x80 | (unit & 0x3f));
            continue;
        }
        if (unit >= 0xd800 && unit < 0xe000) {
            const next = index + 1 < length ? text.charCodeAt(index + 1) : 0;
            if (unit < 0xdc00 && next >= 0xdc00 && next < 0xe000) {
                const point = 0x10000 + ((unit - 0xd800) << 10) + (next - 0xdc00);
                index++;
                hashByte(state, 0xf0 | (point >> 18));
                hashByte(state, 0x80 | ((point >> 12) & 0x3f));
                hashByte(state, 0x80 | ((point >> 6) & 0x3f));
                hashByte(state, 0x80 | (point & 0x3f));
                continue;
            }
            unit = 0xfffd;
        }
        hashByte(state, 0xe0 | (unit >> 12));
        hashByte(state, 0x80 | ((unit >> 6) & 0x3f));
        hashByte(state, 0x80 | (unit & 0x3f));
    }
}
/** Per entry object, the key it was hashed under and its hash: entries are immutable, so the hash stays valid. */
const entryHashes = new WeakMap();
function cachedEntryHash(key, value) {
    if (typeof value !== "object" || value === null)
        return entryHash(key, value);
    const cached = entryHashes.get(value);
    if (cached !== undefined && cached.key === key)
        return cached.hash;
    const hash = entryHash(key, value);
    entryHashes.set(value, { key, hash });
    return hash;
}
/**
 * The checksum of a roster object `{"room": {...}, "participants": {uid: {...}}}`, in 16 lower-case hex digits.
 *
 * Entry hashes are remembered per entry object, so after a patch only the entries it replaced are hashed again.
 * The roster's entries must therefore not be modified in place (the roster store freezes them).
 */
export function rosterChecksum(roster) {
    let hi = 0;
    let lo = 0;
    const add = (hash) => {
        const sum = lo + hash.lo;
        lo = sum >>> 0;
        hi = (hi + hash.hi + (sum >= TWO_TO_32 ? 1 : 0)) >>> 0;
    };
    add(cachedEntryHash("room", roster.room === undefined ? {} : roster.room));
    const participants = roster.participants;
    if (isJsonObject(participants)) {
        for (const uid of Object.keys(participants))
            add(cachedEntryHash(uid, participants[uid]));
    }
    return hex32(hi) + hex32(lo);
}
function hex32(value) {
    return value.toString(16).padStart(8, "0");
}
