/** When and how often the client reconnects after its connection drops. */
export interface ReconnectOptions {
    /** The most attempts after one drop; 0 disables reconnecting. Default 10. */
    maxAttempts?: number;
    /** Milliseconds before the first attempt. Default 200. */
    initialDelayMs?: number;
    /** The largest delay in milliseconds. Default 10,000. */
    maxDelayMs?: number;
    /** The factor between consecutive delays. Default 2. */
    multiplier?: number;
    /** The fraction of each delay added at random, 0 to 1, so many clients do not reconnect in step. Default 0.2. */
    jitter?: number;
}
/**
 * Exponential backoff with jitter: the delay before attempt n (from 1) is `initialDelayMs * multiplier^(n-1)`,
 * capped at `maxDelayMs`, plus up to `jitter` of it at random. Attempts count again from 1 after a connection that
 * authenticated.
 */
export declare class ReconnectPolicy {
    /** The most attempts after one drop; 0 disables reconnecting. */
    readonly maxAttempts: number;
    /** Milliseconds before the first attempt. */
    readonly initialDelayMs: number;
    /** The largest delay in milliseconds. */
    readonly maxDelayMs: number;
    /** The factor between consecutive delays. */
    readonly multiplier: number;
    /** The fraction of each delay added at random. */
    readonly jitter: number;
    private readonly random;
    /**
     * Creates a policy.
     * @param options the numbers; defaults for those left out.
     * @param random a source of numbers in [0, 1); `Math.random` by default (tests pass their own).
     */
    constructor(options?: ReconnectOptions, random?: () => number);
    /** Whether attempt `attempt` (from 1) may be made. */
    allows(attempt: number): boolean;
    /** The delay before attempt `attempt` (from 1), in milliseconds. */
    delayBefore(attempt: number): number;
}
