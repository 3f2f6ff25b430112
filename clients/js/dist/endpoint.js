import { RollcallError } from "./errors.js";
/** A `ws://` or `wss://` URL; a path is taken relative to the page's own address. */
export function resolveUrl(url) {
    if (/^wss?:\/\//i.test(url))
        return url;
    const location = globalThis.location;
    if (location === undefined)
        throw new RollcallError("protocol", `not a ws:// or wss:// URL: ${url}`);
    const resolved = new URL(url, location.href);
    resolved.protocol = resolved.protocol === "https:" ? "wss:" : "ws:";
    return resolved.toString();
}
/** `url` with one more query parameter. */
export function withQueryParameter(url, name, value) {
    return url + (url.includes("?") ? "&" : "?") + name + "=" + encodeURIComponent(value);
}
/** A device id that survives a reload of the tab (sessionStorage), or a new one. */
export function defaultDevice() {
    const fresh = "web-" + randomId();
    try {
        const storage = globalThis.sessionStorage;
        if (storage === undefined)
            return fresh;
        const kept = storage.getItem("rollcall.device");
        if (kept !== null && kept !== "")
            return kept;
        storage.setItem("rollcall.device", fresh);
    }
    catch {
        // Storage may be blocked.
    }
    return fresh;
}
function randomId() {
    const crypto = globalThis.crypto;
    const bytes = new Uint8Array(6);
    if (crypto?.getRandomValues !== undefined) {
        crypto.getRandomValues(bytes);
    }
    else {
        for (let index = 0; index < bytes.length; index++)
            bytes[index] = Math.floor(Math.random() * 256);
    }
    return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}
