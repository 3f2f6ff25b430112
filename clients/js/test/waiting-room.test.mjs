// The waiting room against a scripted gateway: a join that waits has no timeout until it is let in or turned away,
// tells its position, waits again after a reconnect, and the moderator's helpers send what docs/PROTOCOL.md says.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Rollcall, RollcallError, rosterChecksum } from "../dist/rollcall.js";
import { RequestTracker } from "../dist/requests.js";
import { FakeGateway } from "./support/fake-gateway.mjs";

const fastReconnect = { initialDelayMs: 5, maxDelayMs: 20, jitter: 0, maxAttempts: 5 };
const roster = { room: { participantCount: 1 }, participants: { bob: { uid: "bob", name: "Bob", order: 0, audioMuted: false } } };
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function client(gateway, options = {}) {
    return new Rollcall({ url: "ws://gateway.test/v1/ws", token: "T1", WebSocket: gateway.WebSocket, reconnect: fastReconnect, device: "web-1", ...options });
}

async function connected(gateway, options) {
    const rollcall = client(gateway, options);
    const connecting = rollcall.connect();
    await gateway.welcome();
    await connecting;
    return rollcall;
}

function waiting(join, position, since = 1_000) {
    return { type: "waiting", id: join.id, room: join.room, position, waitingSince: since, expiresAt: since + 900_000 };
}

function admit(gateway, join, seq = 3, state = roster) {
    gateway.last.serverSend({ type: "ack", id: join.id, room: join.room, seq, changed: true, rights: { role: "participant", operator: false, actions: [] } });
    gateway.last.serverSend({ type: "snapshot", room: join.room, seq, roster: state, checksum: rosterChecksum(state) });
}

/** Whether a promise is still pending. */
async function pending(promise) {
    const marker = {};
    return (await Promise.race([promise.then(() => "resolved", () => "rejected"), sleep(0).then(() => marker)])) === marker;
}

test("a waiting join stays pending past the request timeout, tells its position, and resolves on the ack and snapshot", async () => {
    const gateway = new FakeGateway();
    const rollcall = await connected(gateway, { requestTimeoutMs: 40 });
    const statuses = [];
    const joining = rollcall.join("webinar", { onWaiting: (status, subscription) => statuses.push([status.position, subscription.room]) });
    const join = await gateway.received("join");
    const subscription = rollcall.rooms.get("webinar");
    const positions = [];
    let admitted = 0;
    subscription.on("waiting", (status) => positions.push(status.position));
    subscription.on("admitted", () => admitted++);
    gateway.last.serverSend(waiting(join, 3));
    assert.equal(subscription.waitingPosition, 3);
    assert.deepEqual(subscription.waiting, { room: "webinar", position: 3, waitingSince: 1_000, expiresAt: 901_000 });
    await sleep(120);
    assert.equal(await pending(joining), true, "no timeout while it waits");
    gateway.last.serverSend(waiting(join, 1));
    assert.deepEqual(positions, [3, 1]);
    assert.deepEqual(statuses, [[3, "webinar"], [1, "webinar"]]);
    admit(gateway, join);
    assert.equal(await joining, subscription);
    assert.equal(subscription.waitingPosition, null);
    assert.equal(subscription.waiting, null);
    assert.equal(admitted, 1);
    assert.equal(subscription.roster.participant("bob").name, "Bob");
    assert.equal(subscription.rights.role, "participant");
    await rollcall.close();
});

test("once admitted, the roster must follow within the request timeout", async () => {
    const gateway = new FakeGateway();
    const rollcall = await connected(gateway, { requestTimeoutMs: 40 });
    const joining = rollcall.join("webinar");
    const join = await gateway.received("join");
    gateway.last.serverSend(waiting(join, 1));
    await sleep(60);
    gateway.last.serverSend({ type: "ack", id: join.id, room: "webinar", seq: 3, changed: true });
    await assert.rejects(joining, (error) => error.isTimeout);
    assert.equal(rollcall.rooms.size, 0);
    await rollcall.close();
});

test("a denied wait rejects with ERR_ADMISSION_DENIED, an expired one with ERR_WAIT_EXPIRED, a full one with ERR_WAITING_ROOM_FULL", async () => {
    const gateway = new FakeGateway();
    const rollcall = await connected(gateway);
    const cases = [
        ["ERR_ADMISSION_DENIED", "a moderator did not let you in: invite only", true],
        ["ERR_WAIT_EXPIRED", "nobody let you in", true],
        ["ERR_WAITING_ROOM_FULL", "the waiting room is full", false],
    ];
    for (const [code, message, waits] of cases) {
        const joining = rollcall.join("webinar");
        const join = await gateway.received("join");
        const subscription = rollcall.rooms.get("webinar");
        const ended = new Promise((resolve) => subscription.on("ended", resolve));
        if (waits) gateway.last.serverSend(waiting(join, 1));
        gateway.last.serverSend({ type: "error", id: join.id, code, message });
        await assert.rejects(joining, (error) => error instanceof RollcallError && error.kind === "server" && error.serverCode === code && error.message.includes(message));
        assert.equal((await ended).serverCode, code);
        assert.equal(rollcall.rooms.size, 0, "the subscription is forgotten; joining again waits again");
    }
    await rollcall.close();
});

test("a connection dropped while waiting: the reconnect joins again and the first join completes when that one is let in", async () => {
    const gateway = new FakeGateway();
    const rollcall = await connected(gateway);
    const joining = rollcall.join("webinar", { callType: "video" });
    const first = await gateway.received("join");
    const subscription = rollcall.rooms.get("webinar");
    const positions = [];
    subscription.on("waiting", (status) => positions.push(status.position));
    gateway.last.serverSend(waiting(first, 2, 5_000));
    gateway.last.serverClose(1006, "");
    await gateway.welcome();
    const again = await gateway.received("join");
    assert.deepEqual(
        { room: again.room, device: again.device, callType: again.callType, resume: again.resume },
        { room: "webinar", device: "web-1", callType: "video", resume: undefined },
        "the same join, without a resume (it had no roster)",
    );
    assert.equal(await pending(joining), true);
    // The gateway kept the place: the same arrival time, a position that moved up meanwhile.
    gateway.last.serverSend(waiting(again, 1, 5_000));
    assert.deepEqual(positions, [2, 1]);
    assert.equal(subscription.waiting.waitingSince, 5_000);
    admit(gateway, again);
    assert.equal(await joining, subscription);
    assert.equal(subscription.waitingPosition, null);
    assert.equal(subscription.active, true);
    await rollcall.close();
});

test("denied after a reconnect, the join rejects and the subscription ends", async () => {
    const gateway = new FakeGateway();
    const rollcall = await connected(gateway);
    const joining = rollcall.join("webinar");
    const first = await gateway.received("join");
    gateway.last.serverSend(waiting(first, 1));
    gateway.last.serverClose(1001, "going away");
    await gateway.welcome();
    const again = await gateway.received("join");
    gateway.last.serverSend(waiting(again, 1));
    gateway.last.serverSend({ type: "error", id: again.id, code: "ERR_ADMISSION_DENIED", message: "a moderator did not let you into the call" });
    await assert.rejects(joining, (error) => error.serverCode === "ERR_ADMISSION_DENIED");
    assert.equal(rollcall.rooms.size, 0);
    await rollcall.close();
});

test("leaving while waiting ends the wait and the join; closing the client does too", async () => {
    const gateway = new FakeGateway();
    const rollcall = await connected(gateway);
    const joining = rollcall.join("webinar");
    const join = await gateway.received("join");
    gateway.last.serverSend(waiting(join, 4));
    const leaving = rollcall.rooms.get("webinar").leave();
    const leave = await gateway.received("leave");
    assert.equal(leave.room, "webinar");
    gateway.last.serverSend({ type: "ack", id: leave.id, room: "webinar", changed: true });
    await leaving;
    await assert.rejects(joining, (error) => error.kind === "closed");
    assert.equal(rollcall.rooms.size, 0);
    const waitingAgain = rollcall.join("webinar");
    const second = await gateway.received("join");
    gateway.last.serverSend(waiting(second, 1));
    await rollcall.close();
    await assert.rejects(waitingAgain, (error) => error.kind === "closed");
});

test("the waiting room's helpers send their actions, listWaiting reads typed entries, and the room entry says admission and waiting", async () => {
    const gateway = new FakeGateway();
    const rollcall = await connected(gateway);
    const joining = rollcall.join("webinar");
    const join = await gateway.received("join");
    const state = { ...roster, room: { participantCount: 1, admission: true, waiting: 2 } };
    admit(gateway, join, 3, state);
    const room = await joining;
    assert.equal(room.waitingPosition, null, "a join that never waited");
    assert.equal(room.admissionRequired, true);
    assert.equal(room.waitingCount, 2);
    const calls = [
        [() => room.requireAdmission("webinar starts"), { action: "require_admission", reason: "webinar starts" }],
        [() => room.openAdmission(), { action: "open_admission" }],
        [() => room.admit("carol"), { action: "admit", target: "carol" }],
        [() => room.admitAll(), { action: "admit_all" }],
        [() => room.deny("dave", { reason: "invite only" }), { action: "deny", target: "dave", reason: "invite only" }],
        [() => room.deny("erin"), { action: "deny", target: "erin" }],
        [() => room.denyAll({ reason: "full" }), { action: "deny_all", reason: "full" }],
    ];
    let seq = 4;
    for (const [call, expected] of calls) {
        const acting = call();
        const action = await gateway.received("action");
        const { type, id, seen, ...fields } = action;
        assert.deepEqual(fields, { room: "webinar", ...expected });
        gateway.last.serverSend({ type: "ack", id, room: "webinar", seq: seq++, changed: true });
        assert.equal((await acting).changed, true);
    }
    const listing = room.listWaiting({ limit: 50, after: 2 });
    const query = await gateway.received("query");
    assert.deepEqual({ query: query.query, room: query.room, limit: query.limit, after: query.after }, { query: "waiting", room: "webinar", limit: 50, after: 2 });
    gateway.last.serverSend({
        type: "result", id: query.id, query: "waiting", room: "webinar", seq: 11, admissionRequired: true, total: 4, next: null,
        waiting: [
            { uid: "carol", name: "Carol", role: "participant", attributes: { company: "acme" }, waitingSince: 1_000 },
            { uid: "dave", name: "Dave", avatar: "https://example.com/d.png", role: "viewer", waitingSince: 2_000 },
        ],
    });
    assert.deepEqual(await listing, {
        admissionRequired: true, total: 4, next: null, seq: 11,
        waiting: [
            { uid: "carol", name: "Carol", role: "participant", attributes: { company: "acme" }, waitingSince: 1_000 },
            { uid: "dave", name: "Dave", avatar: "https://example.com/d.png", role: "viewer", waitingSince: 2_000 },
        ],
    });
    const refusing = room.listWaiting();
    const refused = await gateway.received("query");
    assert.equal("limit" in refused, false);
    gateway.last.serverSend({ type: "error", id: refused.id, code: "ERR_FORBIDDEN", message: "only those who may admit" });
    await assert.rejects(refusing, (error) => error.serverCode === "ERR_FORBIDDEN");
    // The waiting room off and nobody waiting: both absent from the room entry.
    const off = { ...roster };
    gateway.last.serverSend({ type: "patch", room: "webinar", from: 3, seq: 12, patch: { room: { admission: null, waiting: null } }, checksum: rosterChecksum(off) });
    assert.equal(room.admissionRequired, false);
    assert.equal(room.waitingCount, 0);
    await rollcall.close();
});

test("a held request has no timeout; its ack starts one for the roster; rejectRoom fails what waits for a room's roster", async () => {
    const requests = new RequestTracker(30);
    const { id, answer } = requests.create("join", { room: "r", completesOnRoster: true });
    assert.equal(requests.hold(id), true);
    assert.equal(requests.hold(999), false);
    await sleep(60);
    assert.equal(requests.size, 1);
    requests.acknowledge(id, { type: "ack", id });
    await assert.rejects(answer, (error) => error.isTimeout);
    const other = requests.create("join", { room: "r", completesOnRoster: true });
    const action = requests.create("action", { room: "r" });
    requests.hold(other.id);
    requests.rejectRoom("r", new RollcallError("closed", "ended"));
    await assert.rejects(other.answer, (error) => error.kind === "closed");
    assert.equal(requests.size, 1, "requests answered by their ack stay");
    requests.failAll(new RollcallError("closed", "done"));
    await assert.rejects(action.answer);
});
