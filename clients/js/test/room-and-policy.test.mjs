// A room subscription's resume bookkeeping and drift decisions, the reconnect policy, and request tracking.
import assert from "node:assert/strict";
import { test } from "node:test";
import { ReconnectPolicy, RollcallError, RoomSubscription, rosterChecksum } from "../dist/rollcall.js";
import { RequestTracker } from "../dist/requests.js";
import { refreshDelay } from "../dist/token.js";

function channel() {
    return { request: async () => ({ type: "ack", changed: true }), send() {}, forget() {} };
}

const roster = { room: {}, participants: { bob: { uid: "bob", order: 0, audioMuted: false } } };
const snapshot = (seq) => ({ type: "snapshot", room: "r", seq, roster, checksum: rosterChecksum(roster) });

test("a join resumes from the roster's seq and the last event's, once a snapshot arrived", () => {
    const room = new RoomSubscription(channel(), "r", "web-1", { as: "observer", view: { filter: "raised_hands", limit: 4 }, events: "notable" });
    assert.deepEqual(room.joinFields(true), {
        room: "r", as: "observer", device: "web-1", view: { filter: "raised_hands", limit: 4 }, events: "notable",
    });
    room.handle(snapshot(5));
    room.handle({ type: "event", room: "r", seq: 7, event: "participant.hand_raised", data: { uid: "bob" } });
    assert.equal(room.roster.seq, 5);
    assert.equal(room.lastEventSeq, 7);
    assert.deepEqual(room.joinFields(true), {
        room: "r", as: "observer", device: "web-1", view: { filter: "raised_hands", limit: 4 }, events: "notable",
        resume: 5, resumeEvents: 7,
    });
    assert.equal(room.joinFields(false).resume, undefined);
});

test("a patch moves the position too: a quiet event mode resumes from its roster, not from its first event", () => {
    const room = new RoomSubscription(channel(), "r", "web-1", { as: "observer", events: "notable" });
    room.handle(snapshot(5));
    room.handle({ type: "event", room: "r", seq: 7, event: "meeting.message", data: {} });
    const muted = { ...roster, participants: { bob: { ...roster.participants.bob, audioMuted: true } } };
    room.handle({ type: "patch", room: "r", from: 5, seq: 495, patch: { participants: { bob: { audioMuted: true } } },
        checksum: rosterChecksum(muted) });
    // Messages arrive in log order: the patch at 495 means every event up to 495 the subscription takes came first.
    assert.equal(room.lastEventSeq, 495);
    assert.deepEqual({ resume: room.joinFields(true).resume, resumeEvents: room.joinFields(true).resumeEvents },
        { resume: 495, resumeEvents: 495 });
});

test("events are delivered once each, replays included; resumed records whether all was recovered", () => {
    const room = new RoomSubscription(channel(), "r", "web-1", { callType: "audio" });
    const seen = [];
    const resumes = [];
    room.on("event", (event) => seen.push(`${event.seq}${event.recovered ? "r" : ""}`));
    room.on("resumed", ({ recovered }) => resumes.push(recovered));
    room.handle(snapshot(2));
    room.handle({ type: "event", room: "r", seq: 3, event: "participant.audio_muted", data: {} });
    room.handle({ type: "event", room: "r", seq: 3, event: "participant.audio_muted", data: {}, recovered: true });
    room.handle({ type: "event", room: "r", seq: 4, event: "participant.audio_unmuted", data: {}, recovered: true });
    room.handle({ type: "resumed", room: "r", seq: 6, recovered: true });
    room.handle({ ...snapshot(9), recovered: false });
    assert.deepEqual(seen, ["3", "4r"]);
    assert.deepEqual(resumes, [true, false]);
    assert.equal(room.recovered, false);
    assert.equal(room.lastEventSeq, 9);
    assert.equal(room.joinFields(false).callType, "audio");
});

test("a gap asks for a resume, a checksum mismatch for a fresh snapshot, at most three times in a row", () => {
    const room = new RoomSubscription(channel(), "r", "d");
    const drifts = [];
    room.on("drift", (drift) => drifts.push(drift.resume));
    room.handle(snapshot(5));
    const gap = { type: "patch", room: "r", from: 7, seq: 8, patch: {}, checksum: rosterChecksum(roster) };
    assert.equal(room.handle(gap), "rejoin-resume");
    assert.equal(room.handle(gap), "none", "patches in flight while the rejoin waits ask for nothing more");
    room.rejoinFailed();
    const bad = { type: "patch", room: "r", from: 5, seq: 6, patch: { room: { x: 1 } }, checksum: "0" };
    assert.equal(room.handle(bad), "rejoin-fresh");
    room.rejoinFailed();
    assert.equal(room.handle(bad), "rejoin-fresh");
    room.rejoinFailed();
    assert.equal(room.handle(bad), "none", "the fourth drift in a row gives up");
    assert.deepEqual(drifts, [true, false, false, false]);
    room.handle(snapshot(9));
    assert.equal(room.handle(bad), "rejoin-fresh", "a new snapshot starts the count again");
});

test("an ended subscription ignores messages and refuses requests", async () => {
    let forgotten = 0;
    const room = new RoomSubscription({ ...channel(), forget: () => forgotten++ }, "r", "d");
    const ends = [];
    room.on("ended", (error) => ends.push(error));
    room.end(undefined);
    room.end(undefined);
    assert.equal(forgotten, 1);
    assert.deepEqual(ends, [undefined]);
    assert.equal(room.handle(snapshot(1)), "none");
    assert.equal(room.roster.ready, false);
    await assert.rejects(room.setAudioMuted(true), (error) => error instanceof RollcallError && error.kind === "protocol");
});

test("the reconnect delay grows by the multiplier up to the cap, with jitter on top", () => {
    const low = new ReconnectPolicy({ initialDelayMs: 100, maxDelayMs: 1000, multiplier: 2, jitter: 0.5, maxAttempts: 5 }, () => 0);
    const high = new ReconnectPolicy({ initialDelayMs: 100, maxDelayMs: 1000, multiplier: 2, jitter: 0.5, maxAttempts: 5 }, () => 0.999999);
    assert.deepEqual([1, 2, 3, 4, 5, 6].map((n) => low.delayBefore(n)), [100, 200, 400, 800, 1000, 1000]);
    for (const n of [1, 2, 3, 4, 5, 6]) {
        assert.ok(high.delayBefore(n) <= low.delayBefore(n) * 1.5 && high.delayBefore(n) > low.delayBefore(n) * 1.49);
    }
    assert.ok(low.allows(5) && !low.allows(6) && !low.allows(0));
    assert.ok(!new ReconnectPolicy({ maxAttempts: 0 }).allows(1));
    assert.ok(new ReconnectPolicy({ maxAttempts: Infinity }).allows(1e9));
    assert.equal(new ReconnectPolicy({ initialDelayMs: 100 }).delayBefore(10_000) <= 12_000, true);
});

test("a token is refreshed a margin before it expires, or halfway for a short one", () => {
    const now = 1_000_000_000_000;
    assert.equal(refreshDelay(now / 1000 + 3600, 60_000, now), 3_540_000);
    assert.equal(refreshDelay(now / 1000 + 60, 60_000, now), 30_000);
    assert.equal(refreshDelay(now / 1000 - 5, 60_000, now), 1000);
});

test("requests complete by id, wait for the roster when asked, time out, and fail together on a close", async () => {
    const tracker = new RequestTracker(50);
    const plain = tracker.create("state", { room: "r" });
    const join = tracker.create("join", { room: "r", completesOnRoster: true });
    const late = tracker.create("query");
    assert.notEqual(plain.id, join.id);
    tracker.acknowledge(plain.id, { type: "ack", id: plain.id, changed: true });
    tracker.acknowledge(join.id, { type: "ack", id: join.id, changed: true });
    assert.equal((await plain.answer).changed, true);
    assert.equal(tracker.size, 2, "the join waits for its snapshot");
    tracker.rosterArrived("r");
    assert.equal((await join.answer).id, join.id);
    await assert.rejects(late.answer, (error) => error.isTimeout && error.kind === "timeout");
    const refused = tracker.create("join");
    tracker.reject(refused.id, RollcallError.fromServer("ERR_CALL_FULL", "no seat"));
    await assert.rejects(refused.answer, (error) => error.serverCode === "ERR_CALL_FULL");
    const pending = [tracker.create("a"), tracker.create("b")];
    tracker.failAll(RollcallError.closed(4003, "removed"));
    for (const { answer } of pending) {
        await assert.rejects(answer, (error) => error.closeCode === 4003 && error.isFinal && error.isConnectionFailure);
    }
    assert.equal(tracker.size, 0);
});
