/**
 * The app-level ping (browsers cannot send WebSocket pings): after `intervalMs` without any message from the
 * gateway, it sends `{"type":"ping"}` and, when no `pong` comes within `timeoutMs`, declares the connection dead so
 * the client drops it and reconnects. A half-open TCP connection (a laptop that slept, a network that changed)
 * otherwise looks open for minutes.
 */
export declare class Heartbeat {
    private readonly intervalMs;
    private readonly lastReceivedAt;
    private readonly ping;
    private readonly dead;
    private timer;
    private probing;
    private stopped;
    /**
     * Starts watching.
     * @param intervalMs quiet time before a ping; 0 disables the heartbeat.
     * @param lastReceivedAt when the gateway last sent anything (milliseconds, `Date.now()`).
     * @param ping sends a ping and resolves on its pong, rejects on no answer in time.
     * @param dead called once when a ping got no answer.
     */
    constructor(intervalMs: number, lastReceivedAt: () => number, ping: () => Promise<unknown>, dead: (reason: string) => void);
    /** Pings now, unless a ping is already out: after the page becomes visible again or the network came back. */
    checkNow(): void;
    /** Stops for good. */
    stop(): void;
    private schedule;
    private tick;
    private probe;
}
