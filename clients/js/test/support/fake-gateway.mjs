// A scripted stand-in for the gateway behind a fake WebSocket constructor, for client tests without a server:
// each connection records what the client sent, and the test answers as the gateway would.

export class FakeGateway {
    constructor() {
        this.sockets = [];
        this.waiters = [];
        const gateway = this;
        this.WebSocket = class FakeSocket {
            constructor(url) {
                this.url = url;
                this.readyState = 0;
                this.sent = [];
                this.onopen = this.onmessage = this.onclose = this.onerror = null;
                gateway.sockets.push(this);
                setTimeout(() => {
                    if (this.readyState !== 0) return;
                    if (gateway.refuse) {
                        this.readyState = 3;
                        this.onerror?.({});
                        this.onclose?.({ code: 1006, reason: "", wasClean: false });
                        return;
                    }
                    this.readyState = 1;
                    this.onopen?.({});
                    gateway.notify();
                }, 1);
            }
            send(text) {
                this.sent.push(JSON.parse(text));
                gateway.notify();
            }
            close(code = 1000, reason = "") {
                if (this.readyState >= 2) return;
                this.readyState = 2;
                this.closedByClient = { code, reason };
                setTimeout(() => this.serverClose(code, reason), 1);
            }
            serverSend(message) {
                this.onmessage?.({ data: JSON.stringify(message) });
            }
            serverClose(code, reason = "") {
                if (this.readyState === 3) return;
                this.readyState = 3;
                this.onclose?.({ code, reason, wasClean: true });
            }
        };
    }

    get last() {
        return this.sockets[this.sockets.length - 1];
    }

    notify() {
        for (const waiter of this.waiters.splice(0)) waiter();
    }

    /** Waits (bounded) until `predicate()` holds; resolves with its value. */
    async until(predicate, what, timeoutMs = 3000) {
        const deadline = Date.now() + timeoutMs;
        for (;;) {
            const value = predicate();
            if (value) return value;
            if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
            await new Promise((resolve) => {
                this.waiters.push(resolve);
                setTimeout(resolve, 5);
            });
        }
    }

    /** Waits for the client to send a message of `type` on the latest socket; returns it. */
    async received(type, socket = undefined) {
        return this.until(() => (socket ?? this.last)?.sent.find((message) => message.type === type && !message.seen && (message.seen = true)), type);
    }

    /** Opens the latest socket as the gateway would: answers the auth message with a welcome. */
    async welcome(expiresAt = Math.floor(Date.now() / 1000) + 3600) {
        const auth = await this.received("auth");
        this.last.serverSend({ type: "welcome", uid: "alice", name: "Alice", expiresAt });
        return auth;
    }
}
