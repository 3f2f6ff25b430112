import { parseJson } from "./json.js";
/**
 * One WebSocket connection to the gateway: JSON text messages in both directions, and an end reported exactly
 * once, whether the gateway closed, the network dropped, or the client gave up on it (`abort`).
 */
export class Connection {
    /**
     * Opens a connection.
     * @param url the `ws://` or `wss://` URL.
     * @param WebSocketClass the WebSocket implementation.
     * @param handlers what to tell.
     */
    constructor(url, WebSocketClass, handlers) {
        this.handlers = handlers;
        this.finished = false;
        /** When a message last arrived (milliseconds, `Date.now()`). */
        this.lastReceivedAt = 0;
        const socket = new WebSocketClass(url);
        this.socket = socket;
        socket.onopen = () => {
            if (this.socket !== socket)
                return;
            this.lastReceivedAt = Date.now();
            this.handlers.opened();
        };
        socket.onmessage = (event) => {
            if (this.socket !== socket)
                return;
            this.lastReceivedAt = Date.now();
            if (typeof event.data !== "string")
                return;
            let message;
            try {
                message = parseJson(event.data);
            }
            catch {
                return;
            }
            const object = message;
            if (typeof message === "object" && message !== null && typeof object.type === "string") {
                this.handlers.received(object);
            }
        };
        socket.onclose = (event) => {
            if (this.socket !== socket)
                return;
            this.finish({ code: event.code, reason: event.reason });
        };
        socket.onerror = () => {
            // A close event follows.
        };
    }
    /** Whether the socket is open for sending. */
    get isOpen() {
        return !this.finished && this.socket !== undefined && this.socket.readyState === 1;
    }
    /**
     * Sends one message as JSON text; false when the socket is not open.
     * @param message the message.
     */
    send(message) {
        if (!this.isOpen || this.socket === undefined)
            return false;
        this.socket.send(JSON.stringify(message));
        return true;
    }
    /**
     * Closes the connection with a close handshake; the end is reported when the gateway answers.
     * @param code the close code (1000, or 3000-4999).
     * @param reason the reason.
     */
    close(code = 1000, reason = "") {
        try {
            this.socket?.close(code, reason);
        }
        catch {
            this.abort(reason);
        }
    }
    /**
     * Gives up on the connection at once, as when it stopped answering: its end is reported now (code undefined),
     * whatever the socket still does.
     * @param reason why, for the report.
     */
    abort(reason) {
        const socket = this.socket;
        if (socket === undefined || this.finished)
            return;
        this.socket = undefined;
        socket.onopen = null;
        socket.onmessage = null;
        socket.onclose = null;
        socket.onerror = null;
        try {
            socket.close(4000, reason.slice(0, 100));
        }
        catch {
            // Already closed.
        }
        this.finish({ code: undefined, reason });
    }
    finish(info) {
        if (this.finished)
            return;
        this.finished = true;
        this.socket = undefined;
        this.handlers.closed(info);
    }
}
