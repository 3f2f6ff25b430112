// The roster store on its own: continuity of from/seq, the checksum after each patch, replays after a resume,
// the external-store contract (stable snapshots), and participant change callbacks.
import assert from "node:assert/strict";
import { test } from "node:test";
import { RosterStore, applyMergePatch, rosterChecksum } from "../dist/rollcall.js";

const alice = { uid: "alice", name: "Alice", role: "moderator", operator: true, state: "joined", order: 0, audioMuted: false };
const bob = { uid: "bob", name: "Bob", role: "participant", operator: false, state: "joined", order: 1, audioMuted: false };

function snapshot(seq, roster, extra = {}) {
    return { type: "snapshot", room: "standup", seq, roster, checksum: rosterChecksum(roster), view: { filter: "all" }, ...extra };
}

function patchFrom(store, from, seq, patch, extra = {}) {
    const roster = applyMergePatch(store.toJSON(), patch);
    return { type: "patch", room: "standup", from, seq, patch, checksum: rosterChecksum(roster), ...extra };
}

const start = () => {
    const store = new RosterStore("standup");
    const outcome = store.applySnapshot(snapshot(3, { room: { participantCount: 2 }, participants: { bob, alice } }));
    assert.deepEqual(outcome, { kind: "applied" });
    return store;
};

test("a snapshot gives the participants in join order, and patches move the roster forward", () => {
    const store = start();
    assert.equal(store.seq, 3);
    assert.deepEqual(store.getSnapshot().participants.map((p) => p.uid), ["alice", "bob"]);
    assert.deepEqual(store.applyPatch(patchFrom(store, 3, 5, { participants: { bob: { audioMuted: true } } })), { kind: "applied" });
    assert.equal(store.seq, 5);
    assert.equal(store.participant("bob").audioMuted, true);
    // Any seq from `from` up to (not including) the patch's seq is a valid base.
    assert.deepEqual(store.applyPatch(patchFrom(store, 4, 6, { participants: { bob: null } })), { kind: "applied" });
    assert.deepEqual(store.getSnapshot().participants.map((p) => p.uid), ["alice"]);
});

test("a patch that starts after the roster's seq is a gap, to resume from", () => {
    const store = start();
    const outcome = store.applyPatch(patchFrom(store, 4, 6, { participants: { bob: { audioMuted: true } } }));
    assert.equal(outcome.kind, "gap");
    assert.equal(store.seq, 3);
    assert.equal(store.participant("bob").audioMuted, false);
});

test("a patch from the past, or one whose checksum differs, is drift and changes nothing", () => {
    const store = start();
    assert.equal(store.applyPatch(patchFrom(store, 1, 3, { participants: { bob: { audioMuted: true } } })).kind, "drift");
    const bad = { ...patchFrom(store, 3, 4, { participants: { bob: { audioMuted: true } } }), checksum: "0000000000000000" };
    assert.equal(store.applyPatch(bad).kind, "drift");
    assert.equal(store.seq, 3);
    assert.equal(store.participant("bob").audioMuted, false);
    assert.equal(store.applySnapshot({ ...snapshot(9, { room: {}, participants: {} }), checksum: "1111111111111111" }).kind, "drift");
    assert.equal(store.seq, 3);
});

test("a replayed patch already applied is ignored; one that moves forward applies", () => {
    const store = start();
    store.applyPatch(patchFrom(store, 3, 5, { participants: { bob: { handRaised: true } } }));
    const replay = patchFrom(store, 3, 5, { participants: { bob: { handRaised: true } } }, { recovered: true });
    assert.deepEqual(store.applyPatch(replay), { kind: "ignored" });
    const next = patchFrom(store, 5, 7, { participants: { bob: { handRaised: false } } }, { recovered: true });
    assert.deepEqual(store.applyPatch(next), { kind: "applied" });
    assert.equal(store.seq, 7);
});

test("a patch before any snapshot is ignored", () => {
    const store = new RosterStore("standup");
    assert.deepEqual(store.applyPatch({ type: "patch", room: "standup", from: 1, seq: 2, patch: {} }), { kind: "ignored" });
    assert.equal(store.getSnapshot().ready, false);
});

test("the snapshot object stays the same until the roster changes, and unchanged entries keep their identity", () => {
    const store = start();
    const first = store.getSnapshot();
    assert.equal(store.getSnapshot(), first);
    const aliceBefore = store.participant("alice");
    store.applyPatch(patchFrom(store, 3, 4, { participants: { bob: { audioMuted: true } } }));
    const second = store.getSnapshot();
    assert.notEqual(second, first);
    assert.equal(store.getSnapshot(), second);
    assert.equal(store.participant("alice"), aliceBefore);
    assert.ok(Object.isFrozen(second) && Object.isFrozen(second.participants) && Object.isFrozen(aliceBefore));
});

test("subscribe calls the listener at once and after each change, until unsubscribed", () => {
    const store = start();
    const seen = [];
    const stop = store.subscribe((snapshot) => seen.push(snapshot.seq));
    store.applyPatch(patchFrom(store, 3, 4, { participants: { bob: { audioMuted: true } } }));
    stop();
    store.applyPatch(patchFrom(store, 4, 5, { participants: { bob: { audioMuted: false } } }));
    assert.deepEqual(seen, [3, 4]);
});

test("participant callbacks tell added, updated and removed, also across a replaced snapshot", () => {
    const store = start();
    const changes = [];
    const bobOnly = [];
    store.onParticipantChange((change) => changes.push(`${change.kind} ${change.uid}`));
    store.onParticipantChange((change) => bobOnly.push(change.kind), "bob");
    const carol = { ...bob, uid: "carol", name: "Carol", order: 2 };
    store.applyPatch(patchFrom(store, 3, 4, { participants: { carol, bob: { audioMuted: true } } }));
    store.applyPatch(patchFrom(store, 4, 5, { participants: { alice: null } }));
    store.applySnapshot(snapshot(9, { room: {}, participants: { bob: { ...bob, audioMuted: true }, dave: { ...bob, uid: "dave", order: 3 } } }));
    assert.deepEqual(changes, ["added carol", "updated bob", "removed alice", "removed carol", "added dave"]);
    assert.deepEqual(bobOnly, ["updated"]);
});

test("a listener that throws does not stop the others", () => {
    const store = start();
    const original = globalThis.reportError;
    const reported = [];
    globalThis.reportError = (error) => reported.push(error.message);
    try {
        let called = false;
        store.subscribe(() => {
            throw new Error("boom");
        });
        store.subscribe(() => {
            called = true;
        });
        assert.ok(called);
        assert.deepEqual(reported, ["boom"]);
    } finally {
        globalThis.reportError = original;
    }
});
