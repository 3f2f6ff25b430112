// A real gateway for the live tests: `rollcall serve` (ROLLCALL_BIN, default .build/debug/rollcall) on a free
// loopback port with --set overrides, tokens signed with the configured development key, and a bounded wait for
// anything the tests expect.
import { spawn } from "node:child_process";
import crypto from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
const BINARY = path.resolve(PROJECT_ROOT, process.env.ROLLCALL_BIN ?? ".build/debug/rollcall");
const CONFIG = path.join(PROJECT_ROOT, "config/rollcall.conf");
const STARTUP_TIMEOUT_MS = 10_000;
const SHUTDOWN_TIMEOUT_MS = 5_000;

/** Starts a gateway; resolves once it logged its listening line. */
export async function startGateway(settings = {}, listen = "127.0.0.1:0") {
    // Rooms in memory: the shipped configuration's store file (storage.path) is not for tests to share.
    const all = {
        "timeouts.shutdown_grace_ms": 1000, "rooms.reconnect_grace_ms": 2000, "log.level": "error", "storage.path": "",
        ...settings,
    };
    const args = ["serve", "--config", CONFIG, "--listen", listen];
    for (const [key, value] of Object.entries(all)) args.push("--set", `${key}=${value}`);
    const child = spawn(BINARY, args, { cwd: PROJECT_ROOT, stdio: ["ignore", "ignore", "pipe"] });
    const log = [];
    const line = await new Promise((resolve, reject) => {
        let pending = "";
        const timer = setTimeout(() => reject(new Error(`no listening line within ${STARTUP_TIMEOUT_MS} ms: ${pending}`)), STARTUP_TIMEOUT_MS);
        child.stderr.on("data", (chunk) => {
            pending += chunk.toString();
            const lines = pending.split("\n");
            pending = lines.pop();
            for (const text of lines) {
                log.push(text);
                if (text.includes("msg=listening")) {
                    clearTimeout(timer);
                    resolve(text);
                }
            }
        });
        child.on("exit", (code) => {
            clearTimeout(timer);
            reject(new Error(`the gateway exited with ${code}: ${log.join("\n")}`));
        });
    });
    const address = /addresses=ws:\/\/(\S+)/.exec(line)[1];
    const roomsPath = /rooms=(\S+)/.exec(line)[1];
    return {
        address,
        url: `ws://${address}${roomsPath}`,
        http: `http://${address}`,
        log,
        async stop() {
            if (child.exitCode !== null) return child.exitCode;
            const exited = new Promise((resolve) => child.once("exit", (code) => resolve(code)));
            child.kill("SIGTERM");
            const timer = setTimeout(() => child.kill("SIGKILL"), SHUTDOWN_TIMEOUT_MS);
            const code = await exited;
            clearTimeout(timer);
            return code;
        },
    };
}

const [kid, secret] = /^keys\s*=\s*([^:\s]+):(\S+)/m.exec(readFileSync(CONFIG, "utf8")).slice(1);

const base64url = (data) => Buffer.from(data).toString("base64url");

/** A token signed with the configured key, as `rollcall token` makes them. */
export function mint(uid, { name, rooms = [], role = "participant", groups = [], ttl = 3600, caps } = {}) {
    const now = Math.floor(Date.now() / 1000);
    const claims = { sub: uid, iat: now, exp: now + ttl };
    if (name !== undefined) claims.name = name;
    if (rooms.length > 0) claims.rooms = Object.fromEntries(rooms.map((room) => [room, role]));
    if (groups.length > 0) claims.groups = groups;
    if (caps !== undefined) claims.caps = caps;
    const input = `${base64url(JSON.stringify({ alg: "HS256", typ: "JWT", kid }))}.${base64url(JSON.stringify(claims))}`;
    return `${input}.${crypto.createHmac("sha256", secret).update(input).digest("base64url")}`;
}

/** Waits (bounded) until `predicate()` holds; resolves with its value. */
export async function eventually(predicate, what, timeoutMs = 5000) {
    const deadline = Date.now() + timeoutMs;
    let last;
    while (Date.now() < deadline) {
        try {
            last = await predicate();
            if (last) return last;
        } catch (error) {
            last = error;
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error(`timed out waiting for ${what} (last: ${last})`);
}

/** Resolves with the next value of a client or room event (bounded). */
export function next(emitter, name, timeoutMs = 5000, filter = () => true) {
    return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
            stop();
            reject(new Error(`no ${name} within ${timeoutMs} ms`));
        }, timeoutMs);
        const stop = emitter.on(name, (value) => {
            if (!filter(value)) return;
            clearTimeout(timer);
            stop();
            resolve(value);
        });
    });
}
