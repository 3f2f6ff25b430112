/** Where a token comes from: a fixed string, or a callback that fetches a fresh one (from the app's backend). */
export type TokenSource = string | (() => string | Promise<string>);

/**
 * When to refresh a token that expires at `expiresAt` (seconds since the epoch), in milliseconds from `now`:
 * `marginMs` before expiry, or halfway there for a token that lives shorter than twice the margin; never sooner
 * than one second.
 * @param expiresAt the token's expiry, from the gateway's `welcome`.
 * @param marginMs how long before expiry to refresh.
 * @param now the current time in milliseconds.
 */
export function refreshDelay(expiresAt: number, marginMs: number, now: number): number {
    const remaining = expiresAt * 1000 - now;
    const delay = remaining > 2 * marginMs ? remaining - marginMs : remaining / 2;
    return Math.min(2_147_000_000, Math.max(1000, Math.floor(delay)));
}

/**
 * A fresh token from a source.
 * @param source the token or the callback.
 */
export async function fetchToken(source: TokenSource): Promise<string> {
    const token = typeof source === "string" ? source : await source();
    if (typeof token !== "string" || token.length === 0) throw new Error("the token source gave no token");
    return token;
}

/**
 * Refreshes a token before it expires: `schedule` after each `welcome` sets the time, `refresh` gets a new token
 * to the gateway, and a failed refresh is tried again every five seconds while `shouldRetry` says so.
 */
export class TokenRefresher {
    private timer: ReturnType<typeof setTimeout> | undefined;
    private dueAt = Infinity;

    /**
     * Creates a refresher that does nothing until `schedule`.
     * @param marginMs how long before expiry to refresh.
     * @param refresh fetches a new token and sends it; rejects when that failed.
     * @param failed told about each failed refresh.
     * @param shouldRetry whether a failed refresh is worth another try (the connection is still up).
     */
    constructor(
        private readonly marginMs: number,
        private readonly refresh: () => Promise<unknown>,
        private readonly failed: (error: unknown) => void,
        private readonly shouldRetry: () => boolean,
    ) {}

    /** Whether a refresh is due and has not run (timers run late or not at all in a hidden page). */
    get overdue(): boolean {
        return Date.now() >= this.dueAt;
    }

    /**
     * Plans the next refresh for a token that expires at `expiresAt` (seconds since the epoch; 0 for unknown).
     * @param expiresAt the expiry from the gateway's `welcome`.
     */
    schedule(expiresAt: number): void {
        this.stop();
        if (!(expiresAt > 0)) return;
        this.plan(refreshDelay(expiresAt, this.marginMs, Date.now()));
    }

    /** Refreshes now. */
    async runNow(): Promise<void> {
        this.stop();
        try {
            await this.refresh();
        } catch (error) {
            this.failed(error);
            if (this.shouldRetry() && this.timer === undefined) this.plan(5000);
        }
    }

    /** Cancels the planned refresh. */
    stop(): void {
        if (this.timer !== undefined) clearTimeout(this.timer);
        this.timer = undefined;
        this.dueAt = Infinity;
    }

    private plan(delayMs: number): void {
        this.dueAt = Date.now() + delayMs;
        this.timer = setTimeout(() => void this.runNow(), delayMs);
    }
}
