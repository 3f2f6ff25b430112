// The client's connection life as one state value: the public status is derived from the phase, and each way out
// of a phase (welcome, drop, refusal, close, backoff) leads where it should, with the status told matching the
// status read.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Rollcall } from "../dist/rollcall.js";
import { connectionOf, statusOf, waiterOf } from "../dist/connection-state.js";
import { FakeGateway } from "./support/fake-gateway.mjs";

const fastReconnect = { initialDelayMs: 5, maxDelayMs: 20, jitter: 0, maxAttempts: 3 };

function client(gateway, options = {}) {
    return new Rollcall({ url: "ws://gateway.test/v1/ws", token: "T1", WebSocket: gateway.WebSocket, reconnect: fastReconnect,
        device: "web-1", watchPage: false, ...options });
}

/** Records every status told, with the status the client reported at that moment. */
function watch(rollcall) {
    const told = [];
    rollcall.on("status", (change) => told.push({ told: change.status, read: rollcall.status, attempt: change.attempt }));
    return told;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

test("the status is a function of the phase: the first attempt connects, later ones reconnect", () => {
    const waiter = { resolve() {}, reject() {} };
    const first = { kind: "first", waiter };
    const second = { kind: "reconnect", number: 2 };
    const connection = { abort() {} };
    const cases = [
        [{ phase: "idle" }, "idle"],
        [{ phase: "fetching-token", attempt: first }, "connecting"],
        [{ phase: "fetching-token", attempt: second }, "reconnecting"],
        [{ phase: "authenticating", attempt: first, connection }, "connecting"],
        [{ phase: "authenticating", attempt: second, connection }, "reconnecting"],
        [{ phase: "connected", connection }, "connected"],
        [{ phase: "backing-off", attempt: 1 }, "reconnecting"],
        [{ phase: "closing", connection, status: "connected" }, "connected"],
        [{ phase: "closed" }, "closed"],
    ];
    assert.deepEqual(cases.map(([state]) => statusOf(state)), cases.map(([, status]) => status));
    assert.deepEqual(cases.map(([state]) => connectionOf(state) === connection),
        [false, false, false, true, true, true, false, true, false]);
    assert.deepEqual(cases.map(([state]) => waiterOf(state) === waiter),
        [false, true, false, true, false, false, false, false, false], "only the first attempt holds connect()'s promise");
});

test("connect, drop, back off, reconnect, close: every status told is the status read", async () => {
    const gateway = new FakeGateway();
    const rollcall = client(gateway);
    const told = watch(rollcall);
    assert.equal(rollcall.status, "idle");
    const connecting = rollcall.connect();
    assert.equal(rollcall.status, "connecting");
    await gateway.welcome();
    await connecting;
    gateway.last.serverClose(1001, "going away");
    assert.equal(rollcall.status, "reconnecting");
    await gateway.until(() => gateway.sockets.length === 2, "the reconnect");
    assert.equal(rollcall.status, "reconnecting", "an attempt under way is still reconnecting");
    await gateway.welcome();
    await gateway.until(() => rollcall.status === "connected", "connected again");
    await rollcall.close();
    assert.deepEqual(told.map(({ told: status }) => status), ["connecting", "connected", "reconnecting", "connected", "closed"]);
    assert.deepEqual(told.filter(({ told: status, read }) => status !== read), []);
    assert.equal(told[2].attempt, 1);
});

test("a failed reconnect attempt backs off again with the next attempt number", async () => {
    const gateway = new FakeGateway();
    const rollcall = client(gateway, { reconnect: { ...fastReconnect, maxAttempts: 5 } });
    const told = watch(rollcall);
    const connecting = rollcall.connect();
    await gateway.welcome();
    await connecting;
    gateway.refuse = true;
    gateway.last.serverClose(1006, "");
    await gateway.until(() => told.filter(({ told: status }) => status === "reconnecting").length === 2, "two backoffs");
    gateway.refuse = false;
    await gateway.welcome();
    await gateway.until(() => rollcall.status === "connected", "connected again");
    assert.deepEqual(told.filter(({ told: status }) => status === "reconnecting").map(({ attempt }) => attempt), [1, 2]);
    await rollcall.close();
});

test("close while the token is fetched opens no socket and rejects connect", async () => {
    const gateway = new FakeGateway();
    let release;
    const rollcall = client(gateway, { token: undefined, getToken: () => new Promise((resolve) => (release = resolve)) });
    const connecting = rollcall.connect();
    await rollcall.close();
    assert.equal(rollcall.status, "closed");
    release("T1");
    await assert.rejects(connecting, (error) => error.kind === "closed");
    await sleep(20);
    assert.equal(gateway.sockets.length, 0);
});

test("close while authenticating closes the socket with 1000 and rejects connect", async () => {
    const gateway = new FakeGateway();
    const rollcall = client(gateway);
    const told = watch(rollcall);
    const connecting = rollcall.connect();
    await gateway.received("auth");
    const closing = rollcall.close();
    assert.equal(rollcall.status, "connecting", "the status holds until the close completes");
    await assert.rejects(rollcall.ping(), (error) => error.kind === "not-connected");
    await closing;
    await assert.rejects(connecting, (error) => error.kind === "closed");
    assert.deepEqual(gateway.last.closedByClient, { code: 1000, reason: "" });
    assert.deepEqual(told.map(({ told: status }) => status), ["connecting", "closed"]);
});

test("close while backing off cancels the reconnect", async () => {
    const gateway = new FakeGateway();
    const rollcall = client(gateway, { reconnect: { ...fastReconnect, initialDelayMs: 40, maxDelayMs: 40 } });
    const connecting = rollcall.connect();
    await gateway.welcome();
    await connecting;
    gateway.last.serverClose(1006, "");
    assert.equal(rollcall.status, "reconnecting");
    await rollcall.close();
    assert.equal(rollcall.status, "closed");
    await sleep(80);
    assert.equal(gateway.sockets.length, 1, "no attempt after the close");
});

test("a welcome that does not come in time ends a first attempt with a timeout", async () => {
    const gateway = new FakeGateway();
    const rollcall = client(gateway, { requestTimeoutMs: 30 });
    const connecting = rollcall.connect();
    await assert.rejects(connecting, (error) => error.kind === "timeout");
    assert.equal(rollcall.status, "closed");
    assert.equal(gateway.last.closedByClient.code, 4000);
});
