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
/**
 * Refreshes a token before it expires: `schedule` after each `welcome` sets the time, `refresh` gets a new token
 * to the gateway, and a failed refresh is tried again every five seconds while `shouldRetry` says so.
 */
export declare class TokenRefresher {
    private readonly marginMs;
    private readonly refresh;
    private readonly failed;
    private readonly shouldRetry;
    private timer;
    private dueAt;
    /**
     * Creates a refresher that does nothing until `schedule`.
     * @param marginMs how long before expiry to refresh.
     * @param refresh fetches a new token and sends it; rejects when that failed.
     * @param failed told about each failed refresh.
     * @param shouldRetry whether a failed refresh is worth another try (the connection is still up).
     */
    constructor(marginMs: number, refresh: () => Promise<unknown>, failed: (error: unknown) => void, shouldRetry: () => boolean);
    /** Whether a refresh is due and has not run (timers run late or not at all in a hidden page). */
    get overdue(): boolean;
    /**
     * Plans the next refresh for a token that expires at `expiresAt` (seconds since the epoch; 0 for unknown).
     * @param expiresAt the expiry from the gateway's `welcome`.
     */
    schedule(expiresAt: number): void;
    /** Refreshes now. */
    runNow(): Promise<void>;
    /** Cancels the planned refresh. */
    stop(): void;
    private plan;
}
