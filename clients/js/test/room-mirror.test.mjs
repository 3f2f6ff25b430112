// A room's bookkeeping without I/O: the mirror takes plain messages and returns what changed and what to do next;
// no socket, no client, no listener is involved.
import assert from "node:assert/strict";
import { test } from "node:test";
import { MAX_DRIFT_STREAK, RoomMirror, diffMergePatch, rosterChecksum } from "../dist/rollcall.js";

const bob = { uid: "bob", name: "Bob", order: 0, audioMuted: false };
const roster = { room: { participantCount: 1 }, participants: { bob } };
const snapshot = (seq, extra = {}) => ({ type: "snapshot", room: "r", seq, roster, checksum: rosterChecksum(roster), ...extra });

function patch(before, after, from, seq) {
    return { type: "patch", room: "r", from, seq, patch: diffMergePatch(before, after), checksum: rosterChecksum(after) };
}

test("a snapshot fills the mirror's roster and reports itself; a later patch moves both positions", () => {
    const mirror = new RoomMirror("r", "web-1");
    assert.deepEqual(mirror.handle(snapshot(5, { resync: true })), {
        changes: [{ kind: "snapshot", resync: true, recovered: undefined }],
        followUp: "none",
    });
    assert.equal(mirror.roster.seq, 5);
    const muted = { ...roster, participants: { bob: { ...bob, audioMuted: true } } };
    assert.deepEqual(mirror.handle(patch(roster, muted, 5, 9)), { changes: [], followUp: "none" });
    assert.equal(mirror.roster.participant("bob").audioMuted, true);
    assert.deepEqual([mirror.roster.seq, mirror.lastEventSeq], [9, 9]);
    assert.deepEqual({ resume: mirror.joinFields(true).resume, resumeEvents: mirror.joinFields(true).resumeEvents },
        { resume: 9, resumeEvents: 9 });
});

test("the join it describes names the view, the events and the call type, and resumes only after a snapshot", () => {
    const mirror = new RoomMirror("r", "web-1", { view: { filter: "speakers", limit: 3 }, events: "none", callType: "audio" });
    assert.deepEqual(mirror.joinFields(true), {
        room: "r", device: "web-1", callType: "audio", view: { filter: "speakers", limit: 3 }, events: "none",
    });
    mirror.view = { filter: "all" };
    mirror.handle(snapshot(2));
    assert.deepEqual(mirror.joinFields(true).view, { filter: "all" });
    assert.equal(mirror.joinFields(true).resume, 2);
    const observer = new RoomMirror("r", "web-1", { as: "observer", callType: "video" });
    assert.equal(observer.joinFields(false).as, "observer");
    assert.equal(observer.joinFields(false).callType, undefined, "an observer starts no call");
});

test("events come out once each; resumed and a snapshot after a failed resume record the outcome", () => {
    const mirror = new RoomMirror("r", "d");
    mirror.handle(snapshot(2));
    const event = { type: "event", room: "r", seq: 3, event: "participant.audio_muted", data: { uid: "bob" } };
    const [first] = mirror.handle(event).changes;
    assert.equal(first.kind, "event");
    assert.equal(first.event.seq, 3);
    assert.deepEqual(mirror.handle({ ...event, recovered: true }).changes, [], "a replayed event is not told twice");
    assert.deepEqual(mirror.handle({ type: "resumed", room: "r", seq: 7, recovered: true }).changes,
        [{ kind: "resumed", recovered: true }]);
    assert.deepEqual([mirror.recovered, mirror.lastEventSeq], [true, 7]);
    assert.deepEqual(mirror.handle(snapshot(8, { recovered: false })).changes, [
        { kind: "snapshot", resync: false, recovered: false },
        { kind: "resumed", recovered: false },
    ]);
    assert.equal(mirror.recovered, false);
    assert.deepEqual(mirror.handle({ type: "welcome" }), { changes: [], followUp: "none" });
});

test("drift asks for one rejoin at a time, resuming after a gap, at most MAX_DRIFT_STREAK times in a row", () => {
    const mirror = new RoomMirror("r", "d");
    mirror.handle(snapshot(5));
    const gap = { type: "patch", room: "r", from: 7, seq: 8, patch: {}, checksum: rosterChecksum(roster) };
    const asked = mirror.handle(gap);
    assert.equal(asked.followUp, "rejoin-resume");
    assert.equal(asked.changes[0].kind, "drift");
    assert.equal(asked.changes[0].resume, true);
    assert.deepEqual(mirror.handle(gap), { changes: [], followUp: "none" }, "nothing more while the rejoin waits");
    mirror.connectionLost();
    const bad = { type: "patch", room: "r", from: 5, seq: 6, patch: { room: { x: 1 } }, checksum: "0" };
    const followUps = [];
    for (let round = 0; round < MAX_DRIFT_STREAK + 1; round += 1) {
        followUps.push(mirror.handle(bad).followUp);
        mirror.rejoinFailed();
    }
    // The gap was the first drift of the streak: two more rejoins, then the mirror stops asking.
    assert.equal(MAX_DRIFT_STREAK, 3);
    assert.deepEqual(followUps, ["rejoin-fresh", "rejoin-fresh", "none", "none"]);
    assert.equal(mirror.roster.seq, 5, "a drifted patch changes nothing");
    mirror.handle(snapshot(9));
    assert.equal(mirror.handle(bad).followUp, "rejoin-fresh", "a snapshot starts the count again");
});
