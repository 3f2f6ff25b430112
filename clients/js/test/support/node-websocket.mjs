// A small WebSocket client for the Node tests only (RFC 6455 over node:http's upgrade), with the part of the
// WHATWG WebSocket API the Rollcall client uses. Node 20 has no global WebSocket without a flag, and Debian's
// nodejs package is older still; the client takes any implementation through its `WebSocket` option.
// No compression, text frames only; `drop()` cuts the TCP connection as a network failure would.
import crypto from "node:crypto";
import http from "node:http";

const GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

export class NodeWebSocket {
    static instances = new Set();

    constructor(url) {
        const target = new URL(url);
        if (target.protocol !== "ws:") throw new SyntaxError(`only ws:// URLs in tests: ${url}`);
        this.url = url;
        this.readyState = 0;
        this.onopen = null;
        this.onmessage = null;
        this.onclose = null;
        this.onerror = null;
        this.buffer = Buffer.alloc(0);
        this.fragments = [];
        this.closeCode = undefined;
        this.closeReason = "";
        this.closeSent = false;
        this.finished = false;
        NodeWebSocket.instances.add(this);
        const key = crypto.randomBytes(16).toString("base64");
        const request = http.request({
            host: target.hostname,
            port: target.port,
            path: target.pathname + target.search,
            headers: { Connection: "Upgrade", Upgrade: "websocket", "Sec-WebSocket-Key": key, "Sec-WebSocket-Version": "13" },
        });
        request.on("upgrade", (response, socket, head) => {
            const expected = crypto.createHash("sha1").update(key + GUID).digest("base64");
            if (response.headers["sec-websocket-accept"] !== expected) {
                socket.destroy();
                this.fail();
                return;
            }
            this.socket = socket;
            socket.setNoDelay(true);
            socket.on("data", (chunk) => this.receive(chunk));
            socket.on("close", () => this.finish());
            socket.on("error", () => {});
            this.readyState = 1;
            this.onopen?.({ type: "open" });
            if (head.length > 0) this.receive(head);
        });
        request.on("response", (response) => {
            response.resume();
            this.fail();
        });
        request.on("error", () => this.fail());
        request.end();
    }

    send(text) {
        if (this.readyState !== 1) throw new Error("not open");
        this.writeFrame(0x1, Buffer.from(text, "utf8"));
    }

    close(code = 1000, reason = "") {
        if (this.readyState >= 2) return;
        if (this.readyState === 0) {
            this.readyState = 3;
            return;
        }
        this.readyState = 2;
        const reasonBytes = Buffer.from(reason, "utf8");
        const payload = Buffer.alloc(2 + reasonBytes.length);
        payload.writeUInt16BE(code, 0);
        reasonBytes.copy(payload, 2);
        this.writeFrame(0x8, payload);
        this.closeSent = true;
        this.closeTimer = setTimeout(() => this.socket?.destroy(), 2000);
    }

    /** Cuts the TCP connection without a close handshake. */
    drop() {
        this.socket?.destroy();
    }

    writeFrame(opcode, payload) {
        const mask = crypto.randomBytes(4);
        let header;
        if (payload.length < 126) {
            header = Buffer.from([0x80 | opcode, 0x80 | payload.length]);
        } else if (payload.length < 65536) {
            header = Buffer.alloc(4);
            header[0] = 0x80 | opcode;
            header[1] = 0x80 | 126;
            header.writeUInt16BE(payload.length, 2);
        } else {
            header = Buffer.alloc(10);
            header[0] = 0x80 | opcode;
            header[1] = 0x80 | 127;
            header.writeBigUInt64BE(BigInt(payload.length), 2);
        }
        const masked = Buffer.alloc(payload.length);
        for (let index = 0; index < payload.length; index++) masked[index] = payload[index] ^ mask[index & 3];
        this.socket?.write(Buffer.concat([header, mask, masked]));
    }

    receive(chunk) {
        this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
        for (;;) {
            if (this.buffer.length < 2) return;
            const fin = (this.buffer[0] & 0x80) !== 0;
            const opcode = this.buffer[0] & 0x0f;
            let length = this.buffer[1] & 0x7f;
            let offset = 2;
            if (length === 126) {
                if (this.buffer.length < 4) return;
                length = this.buffer.readUInt16BE(2);
                offset = 4;
            } else if (length === 127) {
                if (this.buffer.length < 10) return;
                length = Number(this.buffer.readBigUInt64BE(2));
                offset = 10;
            }
            if (this.buffer.length < offset + length) return;
            const payload = this.buffer.subarray(offset, offset + length);
            this.buffer = this.buffer.subarray(offset + length);
            this.frame(fin, opcode, Buffer.from(payload));
        }
    }

    frame(fin, opcode, payload) {
        if (opcode === 0x9) {
            if (this.readyState === 1) this.writeFrame(0xa, payload);
        } else if (opcode === 0x8) {
            this.closeCode = payload.length >= 2 ? payload.readUInt16BE(0) : 1005;
            this.closeReason = payload.length > 2 ? payload.subarray(2).toString("utf8") : "";
            if (!this.closeSent && this.socket) {
                this.writeFrame(0x8, payload.subarray(0, 2));
                this.closeSent = true;
            }
            this.readyState = 2;
            this.socket?.end();
        } else if (opcode === 0x1 || opcode === 0x2 || opcode === 0x0) {
            this.fragments.push(payload);
            if (!fin) return;
            const whole = Buffer.concat(this.fragments);
            this.fragments = [];
            if (this.readyState === 1) this.onmessage?.({ data: whole.toString("utf8") });
        }
    }

    fail() {
        if (this.finished) return;
        this.onerror?.({ type: "error" });
        this.finish();
    }

    finish() {
        if (this.finished) return;
        this.finished = true;
        clearTimeout(this.closeTimer);
        NodeWebSocket.instances.delete(this);
        this.readyState = 3;
        const wasClean = this.closeCode !== undefined;
        this.onclose?.({ code: this.closeCode ?? 1006, reason: this.closeReason, wasClean });
    }
}
