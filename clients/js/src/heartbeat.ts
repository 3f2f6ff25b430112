/**
 * The app-level ping (browsers cannot send WebSocket pings): after `intervalMs` without any message from the
 * gateway, it sends `{"type":"ping"}` and, when no `pong` comes within `timeoutMs`, declares the connection dead so
 * the client drops it and reconnects. A half-open TCP connection (a laptop that slept, a network that changed)
 * otherwise looks open for minutes.
 */
export class Heartbeat {
    private timer: ReturnType<typeof setTimeout> | undefined;
    private probing = false;
    private stopped = false;

    /**
     * Starts watching.
     * @param intervalMs quiet time before a ping; 0 disables the heartbeat.
     * @param lastReceivedAt when the gateway last sent anything (milliseconds, `Date.now()`).
     * @param ping sends a ping and resolves on its pong, rejects on no answer in time.
     * @param dead called once when a ping got no answer.
     */
    constructor(
        private readonly intervalMs: number,
        private readonly lastReceivedAt: () => number,
        private readonly ping: () => Promise<unknown>,
        private readonly dead: (reason: string) => void,
    ) {
        this.schedule(intervalMs);
    }

    /** Pings now, unless a ping is already out: after the page becomes visible again or the network came back. */
    checkNow(): void {
        if (this.stopped || this.intervalMs <= 0) return;
        this.probe();
    }

    /** Stops for good. */
    stop(): void {
        this.stopped = true;
        if (this.timer !== undefined) clearTimeout(this.timer);
        this.timer = undefined;
    }

    private schedule(delayMs: number): void {
        if (this.stopped || this.intervalMs <= 0) return;
        if (this.timer !== undefined) clearTimeout(this.timer);
        this.timer = setTimeout(() => this.tick(), Math.max(10, delayMs));
    }

    private tick(): void {
        this.timer = undefined;
        if (this.stopped) return;
        const quiet = Date.now() - this.lastReceivedAt();
        if (quiet < this.intervalMs) {
            this.schedule(this.intervalMs - quiet);
        } else {
            this.probe();
        }
    }

    private probe(): void {
        if (this.probing) return;
        this.probing = true;
        this.ping().then(
            () => {
                this.probing = false;
                this.schedule(this.intervalMs);
            },
            () => {
                this.probing = false;
                if (this.stopped) return;
                this.stop();
                this.dead("no pong from the gateway");
            },
        );
    }
}
