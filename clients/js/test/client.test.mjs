// The client's connection life against a scripted gateway: authentication, requests, reconnects with resume,
// final close codes, the app-level ping and token refresh.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Rollcall, RollcallError, rosterChecksum } from "../dist/rollcall.js";
import { FakeGateway } from "./support/fake-gateway.mjs";

const fastReconnect = { initialDelayMs: 5, maxDelayMs: 20, jitter: 0, maxAttempts: 5 };
const roster = { room: { participantCount: 1 }, participants: { bob: { uid: "bob", name: "Bob", order: 0, audioMuted: false } } };

function client(gateway, options = {}) {
    return new Rollcall({ url: "ws://gateway.test/v1/ws", token: "T1", WebSocket: gateway.WebSocket, reconnect: fastReconnect, device: "web-1", ...options });
}

async function joinRoom(gateway, rollcall, room = "standup", options = {}) {
    const joining = rollcall.join(room, options);
    const join = await gateway.received("join");
    gateway.last.serverSend({ type: "ack", id: join.id, room, seq: 3, changed: true });
    gateway.last.serverSend({ type: "snapshot", room, seq: 3, roster, checksum: rosterChecksum(roster) });
    return { subscription: await joining, join };
}

test("the token goes in an auth message, not the URL, and connect resolves with the welcome", async () => {
    const gateway = new FakeGateway();
    const rollcall = client(gateway);
    const connecting = rollcall.connect();
    const auth = await gateway.welcome();
    assert.deepEqual(auth, { type: "auth", token: "T1", seen: true });
    assert.equal(gateway.last.url, "ws://gateway.test/v1/ws");
    assert.equal((await connecting).uid, "alice");
    assert.equal(rollcall.status, "connected");
    await rollcall.close();
    assert.equal(rollcall.status, "closed");
    assert.deepEqual(gateway.last.closedByClient, { code: 1000, reason: "" });
});

test("with authentication: query the token is a URL parameter", async () => {
    const gateway = new FakeGateway();
    const rollcall = client(gateway, { authentication: "query", token: "a.b+c" });
    const connecting = rollcall.connect();
    await gateway.until(() => gateway.last?.readyState === 1, "open");
    assert.equal(gateway.last.url, "ws://gateway.test/v1/ws?token=a.b%2Bc");
    gateway.last.serverSend({ type: "welcome", uid: "alice", name: "Alice", expiresAt: 0 });
    await connecting;
    await rollcall.close();
});

test("a refused token rejects connect with the server's code, and the client closes", async () => {
    const gateway = new FakeGateway();
    const rollcall = client(gateway);
    const connecting = rollcall.connect();
    await gateway.received("auth");
    gateway.last.serverSend({ type: "error", code: "ERR_UNAUTHORIZED", message: "bad signature" });
    gateway.last.serverClose(4001, "unauthorized");
    await assert.rejects(connecting, (error) => error instanceof RollcallError && error.serverCode === "ERR_UNAUTHORIZED");
    assert.equal(rollcall.status, "closed");
    assert.equal(gateway.sockets.length, 1);
});

test("requests carry ids and end with typed errors", async () => {
    const gateway = new FakeGateway();
    const rollcall = client(gateway);
    const connecting = rollcall.connect();
    await gateway.welcome();
    await connecting;
    const joining = rollcall.join("full-room");
    const join = await gateway.received("join");
    assert.equal(typeof join.id, "number");
    gateway.last.serverSend({ type: "error", id: join.id, code: "ERR_CALL_FULL", message: "no seat left" });
    await assert.rejects(joining, (error) => error.serverCode === "ERR_CALL_FULL" && error.kind === "server");
    assert.equal(rollcall.rooms.size, 0);
    const { subscription } = await joinRoom(gateway, rollcall);
    const acting = subscription.moderate("mute", "bob", "noise");
    const action = await gateway.received("action");
    assert.deepEqual({ ...action, id: 0, seen: 0 }, { type: "action", id: 0, room: "standup", action: "mute", target: "bob", reason: "noise", seen: 0 });
    gateway.last.serverSend({ type: "error", id: action.id, code: "ERR_FORBIDDEN", message: "'mute' needs a moderator" });
    await assert.rejects(acting, (error) => error.serverCode === "ERR_FORBIDDEN");
    await rollcall.close();
});

test("lock, unlock and version-checked writes send their fields; a stale version rejects with ERR_CONFLICT", async () => {
    const gateway = new FakeGateway();
    const rollcall = client(gateway);
    const connecting = rollcall.connect();
    await gateway.welcome();
    await connecting;
    const { subscription } = await joinRoom(gateway, rollcall);
    const locking = subscription.lock("starting");
    const lock = await gateway.received("action");
    assert.deepEqual({ action: lock.action, reason: lock.reason, target: lock.target }, { action: "lock", reason: "starting", target: undefined });
    gateway.last.serverSend({ type: "ack", id: lock.id, room: "standup", seq: 4, changed: true });
    assert.equal((await locking).changed, true);
    const unlocking = subscription.unlock();
    const unlock = await gateway.received("action");
    assert.equal(unlock.action, "unlock");
    gateway.last.serverSend({ type: "ack", id: unlock.id, room: "standup", seq: 5, changed: true });
    await unlocking;
    const writing = subscription.setMetadata({ topic: "Q4" }, 3);
    const write = await gateway.received("metadata");
    assert.deepEqual({ metadata: write.metadata, ifSeq: write.ifSeq }, { metadata: { topic: "Q4" }, ifSeq: 3 });
    gateway.last.serverSend({ type: "error", id: write.id, code: "ERR_CONFLICT", message: "the room's metadata changed at seq 5" });
    await assert.rejects(writing, (error) => error.serverCode === "ERR_CONFLICT");
    const permitting = subscription.setPermissions("bob", { share: false });
    const permissions = await gateway.received("permissions");
    assert.equal("ifSeq" in permissions, false, "without a version the write is not checked");
    gateway.last.serverSend({ type: "ack", id: permissions.id, room: "standup", seq: 6, changed: true });
    await permitting;
    const attributing = subscription.setAttributes({ team: "core" }, 6);
    const attributes = await gateway.received("attributes");
    assert.equal(attributes.ifSeq, 6);
    gateway.last.serverSend({ type: "ack", id: attributes.id, room: "standup", seq: 7, changed: true });
    await attributing;
    await rollcall.close();
});

test("a dropped connection reconnects with a fresh token and resumes every room from where it was", async () => {
    const gateway = new FakeGateway();
    let tokens = 0;
    const rollcall = client(gateway, { token: undefined, getToken: async () => `T${++tokens}` });
    const statuses = [];
    rollcall.on("status", (change) => statuses.push(change.status));
    const connecting = rollcall.connect();
    await gateway.welcome();
    await connecting;
    const { subscription } = await joinRoom(gateway, rollcall, "standup", { as: "observer", view: { filter: "muted" } });
    gateway.last.serverSend({ type: "event", room: "standup", seq: 4, event: "participant.audio_muted", actor: "bob", data: { uid: "bob" } });
    const lost = new Promise((resolve) => subscription.on("connectionLost", resolve));
    gateway.last.serverClose(1001, "going away");
    await lost;
    const auth = await gateway.welcome();
    assert.equal(auth.token, "T2", "getToken is asked again on reconnect");
    const rejoin = await gateway.received("join");
    assert.deepEqual(
        { room: rejoin.room, as: rejoin.as, view: rejoin.view, resume: rejoin.resume, resumeEvents: rejoin.resumeEvents },
        { room: "standup", as: "observer", view: { filter: "muted" }, resume: 3, resumeEvents: 4 },
    );
    const resumed = new Promise((resolve) => subscription.on("resumed", resolve));
    gateway.last.serverSend({ type: "ack", id: rejoin.id, room: "standup", seq: 6, changed: true });
    gateway.last.serverSend({ type: "patch", room: "standup", from: 3, seq: 5, patch: { participants: { bob: { audioMuted: true } } },
        checksum: rosterChecksum({ ...roster, participants: { bob: { ...roster.participants.bob, audioMuted: true } } }), recovered: true });
    gateway.last.serverSend({ type: "resumed", room: "standup", seq: 6, recovered: true });
    assert.deepEqual(await resumed, { recovered: true });
    assert.equal(subscription.roster.participant("bob").audioMuted, true);
    assert.deepEqual(statuses, ["connecting", "connected", "reconnecting", "connected"]);
    await rollcall.close();
});

test("close codes 4001-4005 end the client without a reconnect", async () => {
    for (const code of [4003, 4005]) {
        const gateway = new FakeGateway();
        const rollcall = client(gateway);
        const connecting = rollcall.connect();
        await gateway.welcome();
        await connecting;
        const { subscription } = await joinRoom(gateway, rollcall);
        const ended = new Promise((resolve) => subscription.on("ended", resolve));
        const closed = new Promise((resolve) => rollcall.on("closed", resolve));
        gateway.last.serverClose(code, "over");
        assert.equal((await ended).closeCode, code);
        assert.equal((await closed).isFinal, true);
        await new Promise((resolve) => setTimeout(resolve, 40));
        assert.equal(gateway.sockets.length, 1, `no reconnect after ${code}`);
    }
});

test("other closes are retried with backoff until the policy's attempts run out", async () => {
    const gateway = new FakeGateway();
    const rollcall = client(gateway, { reconnect: { ...fastReconnect, maxAttempts: 3 } });
    const connecting = rollcall.connect();
    await gateway.welcome();
    await connecting;
    const attempts = [];
    rollcall.on("status", (change) => change.status === "reconnecting" && attempts.push(change.attempt));
    const closed = new Promise((resolve) => rollcall.on("closed", resolve));
    gateway.refuse = true;
    gateway.last.serverClose(1006, "");
    const error = await closed;
    assert.deepEqual(attempts, [1, 2, 3]);
    assert.equal(gateway.sockets.length, 4);
    assert.equal(error.kind, "connection-closed");
});

test("without maxAttempts the client makes ten attempts, as the Swift and Python clients do", { timeout: 10_000 }, async () => {
    const gateway = new FakeGateway();
    const rollcall = client(gateway, { reconnect: { initialDelayMs: 1, maxDelayMs: 2, jitter: 0 } });
    const connecting = rollcall.connect();
    await gateway.welcome();
    await connecting;
    const attempts = [];
    rollcall.on("status", (change) => change.status === "reconnecting" && attempts.push(change.attempt));
    const closed = new Promise((resolve) => rollcall.on("closed", resolve));
    gateway.refuse = true;
    gateway.last.serverClose(1006, "");
    await closed;
    assert.deepEqual(attempts, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    assert.equal(gateway.sockets.length, 11);
});

test("a ping without a pong drops the connection and reconnects", async () => {
    const gateway = new FakeGateway();
    const rollcall = client(gateway, { pingIntervalMs: 30, pongTimeoutMs: 30 });
    const connecting = rollcall.connect();
    await gateway.welcome();
    await connecting;
    const first = gateway.last;
    const ping = await gateway.received("ping", first);
    first.serverSend({ type: "pong", id: ping.id });
    await gateway.received("ping", first);
    // No pong this time: the client gives up on the socket and opens another.
    await gateway.until(() => gateway.sockets.length === 2, "a second connection");
    assert.equal(first.closedByClient.code, 4000);
    await gateway.welcome();
    await rollcall.close();
});

test("before the token expires, getToken's new token is sent with an auth message on the same connection", async () => {
    const gateway = new FakeGateway();
    let tokens = 0;
    const rollcall = client(gateway, { token: undefined, getToken: () => `T${++tokens}`, tokenRefreshMarginMs: 60_000 });
    const welcomes = [];
    rollcall.on("welcome", (identity) => welcomes.push(identity.expiresAt));
    const connecting = rollcall.connect();
    await gateway.welcome(Math.floor(Date.now() / 1000) + 2);
    await connecting;
    const refresh = await gateway.until(() => gateway.last.sent.find((message) => message.type === "auth" && message.id !== undefined), "the refresh");
    assert.equal(refresh.token, "T2");
    gateway.last.serverSend({ type: "welcome", id: refresh.id, uid: "alice", name: "Alice", expiresAt: 4_000_000_000 });
    await gateway.until(() => welcomes.length === 2, "the second welcome");
    assert.equal(rollcall.identity.expiresAt, 4_000_000_000);
    assert.equal(gateway.sockets.length, 1);
    await rollcall.close();
});

test("a refused refresh keeps the connection and is reported", async () => {
    const gateway = new FakeGateway();
    const rollcall = client(gateway);
    const connecting = rollcall.connect();
    await gateway.welcome();
    await connecting;
    const refreshing = rollcall.refreshToken("T-other");
    const auth = await gateway.until(() => gateway.last.sent.find((message) => message.type === "auth" && message.id !== undefined), "the refresh");
    gateway.last.serverSend({ type: "error", id: auth.id, code: "ERR_FORBIDDEN", message: "another user" });
    await assert.rejects(refreshing, (error) => error.serverCode === "ERR_FORBIDDEN");
    assert.equal(rollcall.status, "connected");
    await rollcall.close();
});

test("requests while not connected fail at once", async () => {
    const gateway = new FakeGateway();
    const rollcall = client(gateway);
    await assert.rejects(rollcall.ping(), (error) => error.kind === "not-connected");
    assert.throws(() => new Rollcall({ url: "ws://x/v1/ws" }), RollcallError);
});
