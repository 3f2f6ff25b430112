// The client against a running gateway (`rollcall serve` on a free loopback port): every part of the protocol the
// client covers, over real sockets. The Node WebSocket is the test-only one in support/node-websocket.mjs.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Rollcall, jsonEqual } from "../dist/rollcall.js";
import { eventually, mint, next, startGateway } from "./support/gateway.mjs";
import { NodeWebSocket } from "./support/node-websocket.mjs";

const ROOM = "standup";
const open = new Set();

function client(token, options = {}) {
    const rollcall = new Rollcall({
        url: options.url,
        token: typeof token === "string" ? token : undefined,
        getToken: typeof token === "function" ? token : undefined,
        WebSocket: NodeWebSocket,
        reconnect: { initialDelayMs: 50, maxDelayMs: 300, maxAttempts: 40 },
        requestTimeoutMs: 5000,
        ...options,
    });
    open.add(rollcall);
    return rollcall;
}

async function connected(token, options) {
    const rollcall = client(token, options);
    await rollcall.connect();
    return rollcall;
}

/** The roster a newly joined observer gets, to compare a long-lived store with. */
async function freshRoster(url, room = ROOM, view = undefined) {
    const observer = await connected(mint("fresh-observer", { rooms: [room], role: "admin" }), { url });
    const subscription = await observer.join(room, { as: "observer", events: "none", ...(view ? { view } : {}) });
    const roster = subscription.roster.getSnapshot();
    await observer.close();
    return roster;
}

async function closeAll() {
    await Promise.all(Array.from(open, (rollcall) => rollcall.close()));
    open.clear();
}

describe("against a running gateway", () => {
    let gateway;
    before(async () => {
        gateway = await startGateway({ "rooms.patch_window_ms": 20, "rooms.capacity": 3 });
    });
    after(async () => {
        await closeAll();
        assert.equal(await gateway.stop(), 0);
    });

    test("a participant's roster follows another's changes, every patch continuous and checksum-verified", async () => {
        const alice = await connected(mint("alice", { name: "Alice", rooms: [ROOM], role: "moderator" }), { url: gateway.url });
        assert.equal(alice.identity.uid, "alice");
        const room = await alice.join(ROOM, { callType: "video", view: { filter: "all" } });
        const drifts = [];
        room.on("drift", (drift) => drifts.push(drift));
        const bob = await connected(mint("bob", { name: "Bob", groups: [ROOM] }), { url: gateway.url });
        const bobRoom = await bob.join(ROOM);
        // The join's answer says what each may do.
        assert.equal(room.rights?.operator, true);
        assert.ok(room.rights?.actions.includes("mute"));
        assert.equal(bobRoom.rights?.operator, false);
        assert.deepEqual(bobRoom.rights?.actions, []);
        await eventually(() => room.roster.participant("bob"), "Bob in Alice's roster");
        const ack = await bobRoom.setState({ audioMuted: true, handRaised: true });
        assert.equal(ack.changed, true);
        assert.equal((await bobRoom.setAudioMuted(true)).changed, false);
        await eventually(() => room.roster.participant("bob")?.handRaised === true, "Bob's hand");
        const unmuted = next(room, "event", 5000, (event) => event.event === "participant.audio_unmuted");
        await bobRoom.setAudioMuted(false);
        assert.equal((await unmuted).actor, "bob");
        await eventually(() => room.roster.participant("bob")?.audioMuted === false, "Bob unmuted");
        assert.deepEqual(drifts, []);
        assert.equal(room.roster.getSnapshot().checksum, (await freshRoster(gateway.url)).checksum);
        await bob.close();
        await alice.close();
    });

    test("refusals reject with the protocol's codes", async () => {
        const carol = await connected(mint("carol", { rooms: ["elsewhere"] }), { url: gateway.url });
        await assert.rejects(carol.join(ROOM), (error) => error.serverCode === "ERR_NOT_GROUP_MEMBER");
        const full = [];
        for (const uid of ["p1", "p2", "p3"]) {
            full.push(await connected(mint(uid, { rooms: ["small"] }), { url: gateway.url }));
            await full.at(-1).join("small");
        }
        const late = await connected(mint("p4", { rooms: ["small"] }), { url: gateway.url });
        await assert.rejects(late.join("small"), (error) => error.serverCode === "ERR_CALL_FULL");
        await assert.rejects(full[0].rooms.get("small").moderate("mute", "p2"), (error) => error.serverCode === "ERR_FORBIDDEN");
        const watcher = await connected(mint("w", { rooms: ["small"], role: "viewer" }), { url: gateway.url });
        const watched = await watcher.join("small", { as: "observer" });
        await assert.rejects(watched.setHandRaised(true), (error) => error.serverCode === "ERR_NOT_IN_ROOM");
        await assert.rejects(carol.join("elsewhere", { view: { filter: "nonsense" } }), (error) => error.serverCode === "ERR_BAD_REQUEST");
        await closeAll();
    });

    test("an observer switches views and leaves; queries answer", async () => {
        const dave = await connected(mint("dave", { rooms: ["views"], role: "moderator" }), { url: gateway.url });
        const daveRoom = await dave.join("views");
        const erin = await connected(mint("erin", { rooms: ["views"] }), { url: gateway.url });
        const erinRoom = await erin.join("views");
        await erinRoom.setHandRaised(true);
        const ops = await connected(mint("ops", { rooms: ["views"], role: "admin" }), { url: gateway.url });
        const watched = await ops.join("views", { as: "observer", view: { filter: "raised_hands" } });
        await eventually(() => watched.roster.getSnapshot().participants.length === 1, "one raised hand");
        // The raised-hands view counts everyone in the call, and its total is its one hand.
        assert.equal(watched.viewTotal, 1);
        assert.deepEqual(watched.counts, {
            inCall: 2, muted: 0, video: 2, presenting: 0, handsRaised: 1, roles: { moderator: 1, participant: 1 },
        });
        await watched.changeView({ filter: "all" });
        assert.deepEqual(watched.view, { filter: "all" });
        await eventually(() => watched.roster.getSnapshot().participants.map((p) => p.uid).join() === "dave,erin", "everyone");
        const members = await watched.query("members");
        assert.deepEqual(members.uids, ["dave", "erin"]);
        const rooms = await ops.listRooms();
        assert.deepEqual(rooms.map((room) => [room.room, room.participants]), [["views", 2]]);
        const history = await ops.query("history", { room: "views", after: 0, limit: 10 });
        assert.ok(history.events.length >= 3);
        assert.ok((await ops.ping()) >= 0);
        await watched.leave();
        assert.equal(watched.active, false);
        assert.equal(ops.rooms.size, 0);
        await daveRoom.leave();
        await closeAll();
    });

    test("meeting messages reach group members without a subscription; moderator actions and their events", async () => {
        const host = await connected(mint("host", { rooms: ["team"], role: "moderator" }), { url: gateway.url });
        const hostRoom = await host.join("team");
        const member = await connected(mint("member", { groups: ["team"] }), { url: gateway.url });
        const meeting = next(member, "meeting");
        await host.sendMeeting({ group: "team", sessionId: "call-1", text: "Daily standup" });
        const message = await meeting;
        assert.equal(message.data.text, "Daily standup");
        assert.equal((await member.query("active_meeting", { group: "team" })).meeting.sessionId, "call-1");
        const memberRoom = await member.join("team");
        const moderated = next(hostRoom, "event", 5000, (event) => event.event === "moderation.muted");
        assert.equal((await hostRoom.moderate("mute", "member", "echo")).changed, true);
        const event = await moderated;
        assert.equal(event.actor, "host");
        assert.equal(event.reason, "echo");
        await eventually(() => memberRoom.roster.participant("member")?.mutedByModerator === true, "muted by a moderator");
        const closed = next(member, "closed");
        const ended = next(memberRoom, "ended");
        await hostRoom.moderate("remove", "member");
        assert.equal((await closed).closeCode, 4003);
        assert.equal((await ended).closeCode, 4003);
        assert.equal(member.status, "closed");
        await closeAll();
    });

    test("signals reach the room or one participant, take no seq, and observers may not send them", async () => {
        const ann = await connected(mint("ann", { groups: ["sig"] }), { url: gateway.url });
        const annRoom = await ann.join("sig");
        const ben = await connected(mint("ben", { groups: ["sig"] }), { url: gateway.url });
        const benRoom = await ben.join("sig");
        const vic = await connected(mint("vic", { rooms: ["sig"], role: "viewer" }), { url: gateway.url });
        const vicRoom = await vic.join("sig", { as: "observer" });
        await eventually(() => annRoom.roster.participant("ben"), "Ben in Ann's roster");
        const seq = (await annRoom.setAttributes({ mark: "0" })).seq;
        const atBen = next(benRoom, "signal");
        const atVic = next(vicRoom, "signal");
        await annRoom.signal("reaction", { emoji: "👍" });
        for (const signal of [await atBen, await atVic]) {
            assert.deepEqual(signal, { room: "sig", from: "ann", kind: "reaction", data: { emoji: "👍" } });
        }
        const nudge = next(annRoom, "signal");
        await benRoom.signal("nudge", null, "ann");
        assert.deepEqual(await nudge, { room: "sig", from: "ben", kind: "nudge", data: null, to: "ann" });
        await assert.rejects(vicRoom.signal("reaction", { emoji: "👋" }), (error) => error.serverCode === "ERR_FORBIDDEN");
        assert.equal((await benRoom.setAttributes({ mark: "1" })).seq, seq + 1);
        await closeAll();
    });

    test("the waiting room: a join waits past the request timeout, is admitted or denied, and waits again in its place after a reconnect", async () => {
        const host = await connected(mint("host", { rooms: ["lobby"], role: "moderator" }), { url: gateway.url });
        const hostRoom = await host.join("lobby");
        assert.ok(hostRoom.rights?.actions.includes("admit"));
        await hostRoom.requireAdmission();
        await eventually(() => hostRoom.admissionRequired, "the waiting room on in the roster");
        const gus = await connected(mint("gus", { name: "Gus", groups: ["lobby"] }), { url: gateway.url, requestTimeoutMs: 300 });
        const positions = [];
        const gusJoin = gus.join("lobby", { onWaiting: (status) => positions.push(status.position) });
        await eventually(() => gus.rooms.get("lobby")?.waitingPosition === 1, "Gus waiting first");
        const hal = await connected(mint("hal", { name: "Hal", groups: ["lobby"] }), { url: gateway.url });
        const halJoin = hal.join("lobby");
        await eventually(() => hal.rooms.get("lobby")?.waitingPosition === 2, "Hal waiting second");
        await eventually(() => hostRoom.waitingCount === 2, "two waiting in the host's roster");
        const page = await hostRoom.listWaiting();
        assert.deepEqual(page.waiting.map((entry) => [entry.uid, entry.name]), [["gus", "Gus"], ["hal", "Hal"]]);
        assert.equal(page.admissionRequired, true);
        // The waiting view: the same entries as a live roster, in arrival order; for those who may admit only.
        const desk = await connected(mint("desk", { rooms: ["lobby"], role: "moderator" }), { url: gateway.url });
        const deskRoom = await desk.join("lobby", { as: "observer", view: { filter: "waiting" } });
        assert.deepEqual(deskRoom.roster.getSnapshot().participants.map((entry) => entry.uid), ["gus", "hal"]);
        await assert.rejects(gus.query("waiting", { room: "lobby" }), (error) => error.serverCode === "ERR_FORBIDDEN");
        // Gus's connection drops; the gateway keeps his place for the reconnect grace period, so the reconnect's
        // join waits again first, and the first join is still open, past its request timeout.
        const since = gus.rooms.get("lobby").waiting.waitingSince;
        gus.dropConnection("test cut");
        await eventually(() => positions.length === 2, "Gus told his place again after the reconnect", 10_000);
        assert.equal(gus.rooms.get("lobby").waitingPosition, 1);
        assert.equal(gus.rooms.get("lobby").waiting.waitingSince, since);
        assert.equal(hal.rooms.get("lobby")?.waitingPosition, 2);
        await new Promise((resolve) => setTimeout(resolve, 400));
        await hostRoom.admit("gus");
        const gusRoom = await gusJoin;
        assert.equal(gusRoom.waitingPosition, null);
        assert.ok(gusRoom.roster.participant("gus"));
        assert.deepEqual(positions, [1, 1]);
        await hostRoom.deny("hal", { reason: "invite only" });
        await assert.rejects(halJoin, (error) => error.serverCode === "ERR_ADMISSION_DENIED" && error.message.includes("invite only"));
        assert.equal(hal.rooms.size, 0);
        await eventually(() => hostRoom.waitingCount === 0, "nobody waiting");
        await eventually(() => deskRoom.roster.getSnapshot().participants.length === 0, "the waiting view empty");
        await hostRoom.openAdmission();
        await eventually(() => !hostRoom.admissionRequired, "the waiting room off");
        assert.ok(await hal.join("lobby"));
        await closeAll();
    });

    test("a uid with an emoji joins, and every roster verifies its checksum", async () => {
        const fox = await connected(mint("🦊-fox", { name: "Fox 🦊 𝒜", groups: ["emoji"] }), { url: gateway.url });
        const foxRoom = await fox.join("emoji");
        const ops = await connected(mint("ops", { rooms: ["emoji"], role: "admin" }), { url: gateway.url });
        const watched = await ops.join("emoji", { as: "observer" });
        const drifts = [];
        watched.on("drift", (drift) => drifts.push(drift));
        await foxRoom.setState({ handRaised: true, cameraFacing: "front", mid: "m-😀" });
        await eventually(() => watched.roster.participant("🦊-fox")?.mid === "m-😀", "the fox's media id");
        assert.deepEqual(drifts, []);
        assert.equal(watched.roster.getSnapshot().checksum, (await freshRoster(gateway.url, "emoji")).checksum);
        await closeAll();
    });

    test("a cut connection resumes with recovered: true and the store equals a fresh snapshot", async () => {
        const sockets = [];
        const Tracked = class extends NodeWebSocket {
            constructor(url) {
                super(url);
                sockets.push(this);
            }
        };
        const ops = await connected(mint("ops", { rooms: ["resume"], role: "admin" }), { url: gateway.url, WebSocket: Tracked });
        const watched = await ops.join("resume", { as: "observer", view: { filter: "all", limit: 10 } });
        const frank = await connected(mint("frank", { groups: ["resume"] }), { url: gateway.url });
        const frankRoom = await frank.join("resume");
        await eventually(() => watched.roster.participant("frank"), "Frank");
        const lost = next(watched, "connectionLost");
        sockets.at(-1).drop();
        await lost;
        await frankRoom.setState({ presenting: true, handRaised: true });
        const resumed = await next(watched, "resumed", 10_000);
        assert.deepEqual(resumed, { recovered: true });
        await eventually(() => watched.roster.participant("frank")?.presenting === true, "the change made while away");
        const fresh = await freshRoster(gateway.url, "resume", { filter: "all", limit: 10 });
        assert.ok(jsonEqual(watched.roster.getSnapshot().byUid, fresh.byUid));
        assert.equal(watched.roster.getSnapshot().checksum, fresh.checksum);
        await closeAll();
    });

    test("a device joining from another window ends the first subscription, which does not rejoin", async () => {
        const first = await connected(mint("ivy", { groups: ["windows"] }), { url: gateway.url, device: "laptop" });
        const second = await connected(mint("ivy", { groups: ["windows"] }), { url: gateway.url, device: "laptop" });
        const firstRoom = await first.join("windows");
        const unsubscribed = next(firstRoom, "unsubscribed");
        const ended = next(firstRoom, "ended");
        const secondRoom = await second.join("windows");
        assert.deepEqual(await unsubscribed, { reason: "replaced" });
        const error = await ended;
        assert.equal(error.kind, "unsubscribed");
        assert.equal(error.unsubscribeReason, "replaced");
        assert.equal(firstRoom.active, false);
        // The first window reconnects: it does not take the room back from the second.
        const kept = [];
        secondRoom.on("unsubscribed", (change) => kept.push(change));
        first.dropConnection("test cut");
        await next(first, "welcome", 10_000);
        await first.ping();
        await new Promise((resolve) => setTimeout(resolve, 200));
        assert.deepEqual(kept, []);
        assert.equal(secondRoom.active, true);
        assert.equal(secondRoom.roster.participant("ivy")?.state, "joined");
        await closeAll();
    });

    test("getToken refreshes the token on the live connection before it expires", async () => {
        let calls = 0;
        const rollcall = await connected(
            () => {
                calls += 1;
                return mint("gina", { groups: ["refresh"], ttl: 4 });
            },
            { url: gateway.url, tokenRefreshMarginMs: 60_000 },
        );
        const first = rollcall.identity.expiresAt;
        const room = await rollcall.join("refresh");
        const refreshed = await next(rollcall, "welcome", 8000);
        assert.ok(refreshed.expiresAt >= first);
        assert.equal(calls, 2);
        assert.equal(rollcall.status, "connected");
        assert.equal((await room.setHandRaised(true)).changed, true);
        await closeAll();
    });

    test("a token the gateway refuses rejects connect, without retries", async () => {
        const rollcall = client("not.a.token", { url: gateway.url });
        await assert.rejects(rollcall.connect(), (error) => error.serverCode === "ERR_UNAUTHORIZED");
        assert.equal(rollcall.status, "closed");
    });
});

describe("history and restarts", () => {
    test("a resume beyond the retained history gets a fresh snapshot (recovered: false)", async () => {
        const gateway = await startGateway({ "rooms.patch_window_ms": 10, "rooms.history_max_events": 4 });
        try {
            const ops = await connected(mint("ops", { rooms: ["short"], role: "admin" }), { url: gateway.url });
            const watched = await ops.join("short", { as: "observer" });
            const hal = await connected(mint("hal", { groups: ["short"] }), { url: gateway.url });
            const halRoom = await hal.join("short");
            await eventually(() => watched.roster.participant("hal"), "Hal");
            ops.dropConnection("test cut");
            for (let round = 0; round < 6; round++) await halRoom.setHandRaised(round % 2 === 0);
            const resumed = await next(watched, "resumed", 10_000);
            assert.deepEqual(resumed, { recovered: false });
            assert.equal(watched.recovered, false);
            assert.equal(watched.roster.getSnapshot().checksum, (await freshRoster(gateway.url, "short")).checksum);
        } finally {
            await closeAll();
            assert.equal(await gateway.stop(), 0);
        }
    });

    test("a gateway restart: the client reconnects to the new process and gets the room again", async () => {
        let gateway = await startGateway({ "rooms.patch_window_ms": 10 });
        const address = gateway.address;
        try {
            const ops = await connected(mint("ops", { rooms: ["restart"], role: "admin" }), { url: gateway.url });
            const watched = await ops.join("restart", { as: "observer" });
            const statuses = [];
            ops.on("status", (change) => statuses.push(change.status));
            assert.equal(await gateway.stop(), 0);
            await eventually(() => ops.status === "reconnecting", "reconnecting");
            gateway = await startGateway({ "rooms.patch_window_ms": 10 }, address);
            const ivy = await connected(mint("ivy", { groups: ["restart"] }), { url: gateway.url });
            await ivy.join("restart");
            await eventually(() => ops.status === "connected", "connected again", 10_000);
            await eventually(() => watched.roster.participant("ivy"), "Ivy in the new process's room", 10_000);
            assert.equal(watched.active, true);
            assert.ok(statuses.includes("reconnecting"));
        } finally {
            await closeAll();
            assert.equal(await gateway.stop(), 0);
        }
    });

    test("the platform's own WebSocket works as well, where Node has one", { skip: typeof globalThis.WebSocket !== "function" }, async () => {
        const gateway = await startGateway();
        try {
            const rollcall = new Rollcall({ url: gateway.url, token: mint("kim", { groups: ["native"] }) });
            open.add(rollcall);
            await rollcall.connect();
            const room = await rollcall.join("native");
            assert.equal(room.roster.participant("kim").uid, "kim");
        } finally {
            await closeAll();
            assert.equal(await gateway.stop(), 0);
        }
    });
});
