/**
 * The app-level ping (browsers cannot send WebSocket pings): after `intervalMs` without any message from the
 * gateway, it sends `{"type":"ping"}` and, when no `pong` comes within `timeoutMs`, declares the connection dead so
 * the client drops it and reconnects. A half-open TCP connection (a laptop that slept, a network that changed)
 * otherwise looks open for minutes.
 */
export class Heartbeat {
    /**
     * Starts watching.
     * @param intervalMs quiet time before a ping; 0 disables the heartbeat.
     * @param lastReceivedAt when the gateway last sent anything (milliseconds, `Date.now()`).
     * @param ping sends a ping and resolves on its pong, rejects on no answer in time.
     * @param dead called once when a ping got no answer.
     */
    constructor(intervalMs, lastReceivedAt, ping, dead) {
        this.intervalMs = intervalMs;
        this.lastReceivedAt = lastReceivedAt;
        this.ping = ping;
        this.dead = dead;
        this.probing = false;
        this.stopped = false;
        this.schedule(intervalMs);
    }
    /** Pings now, unless a ping is already out: after the page becomes visible again or the network came back. */
    checkNow() {
        if (this.stopped || this.intervalMs <= 0)
            return;
        this.probe();
    }
    /** Stops for good. */
    stop() {
        this.stopped = true;
        if (this.timer !== undefined)
            clearTimeout(this.timer);
        this.timer = undefined;
    }
    schedule(delayMs) {
        if (this.stopped || this.intervalMs <= 0)
            return;
        if (this.timer !== undefined)
            clearTimeout(this.timer);
        this.timer = setTimeout(() => this.tick(), Math.max(10, delayMs));
    }
    tick() {
        this.timer = undefined;
        if (this.stopped)
            return;
        const quiet = Date.now() - this.lastReceivedAt();
        if (quiet < this.intervalMs) {
            this.schedule(this.intervalMs - quiet);
        }
        else {
            this.probe();
        }
    }
    probe() {
        if (this.probing)
            return;
        this.probing = true;
        this.ping().then(() => {
            this.probing = false;
            this.schedule(this.intervalMs);
        }, () => {
            this.probing = false;
            if (this.stopped)
                return;
            this.stop();
            this.dead("no pong from the gateway");
        });
    }
}
