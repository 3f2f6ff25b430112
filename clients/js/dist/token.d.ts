/** Where a token comes from: a fixed string, or a callback that fetches a fresh one (from the app's backend). */
export declare type TokenSource = string | (() => string | Promise<string>);
/**
 * When to refresh a token that expires at `expiresAt` (seconds since the epoch), in milliseconds from `now`:
 * `marginMs` before expiry, or halfway there for a token that lives shorter than twice the margin; never sooner
 * than one second.
 * @param expiresAt the token's expiry, from the gateway's `welcome`.
 * @param marginMs how long before expiry to refresh.
 * @param now the current time in milliseconds.
 */
export declare function refreshDelay(expiresAt: number, marginMs: number, now: number): number;
/**
 * A fresh token from a source.
 * @param source the token or the callback.
 */
export declare function fetchToken(source: TokenSource): Promise<string>;
