/**
 * When to refresh a token that expires at `expiresAt` (seconds since the epoch), in milliseconds from `now`:
 * `marginMs` before expiry, or halfway there for a token that lives shorter than twice the margin; never sooner
 * than one second.
 * @param expiresAt the token's expiry, from the gateway's `welcome`.
 * @param marginMs how long before expiry to refresh.
 * @param now the current time in milliseconds.
 */
export function refreshDelay(expiresAt, marginMs, now) {
    const remaining = expiresAt * 1000 - now;
    const delay = remaining > 2 * marginMs ? remaining - marginMs : remaining / 2;
    return Math.min(2147000000, Math.max(1000, Math.floor(delay)));
}
/**
 * A fresh token from a source.
 * @param source the token or the callback.
 */
export async function fetchToken(source) {
    const token = typeof source === "string" ? source : await source();
    if (typeof token !== "string" || token.length === 0)
        throw new Error("the token source gave no token");
    return token;
}
