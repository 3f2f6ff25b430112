// The vectors every Rollcall client shares (Tests/Vectors): the JavaScript checksum and merge patch must give
// exactly what they say, as the Swift implementation must (Tests/JSONCodingTests/SharedVectorTests.swift), and the
// client's protocol constants must be the ones the server checks itself against (Tests/RoomsTests/ProtocolVectorTests.swift).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import {
    CLIENT_MESSAGE_TYPES,
    CLOSE_CODES,
    EVENT_NAMES,
    FINAL_CLOSE_CODES,
    LEAVE_REASONS,
    PARTICIPANT_FLAGS,
    PARTICIPANT_ROLES,
    RosterStore,
    SERVER_ERROR_CODES,
    SERVER_MESSAGE_TYPES,
    UNSUBSCRIBE_REASONS,
    VIEW_COUNTS,
    VIEW_FILTERS,
    applyMergePatch,
    canonicalJson,
    compareUtf8,
    diffMergePatch,
    parseJson,
    rosterChecksum,
} from "../dist/rollcall.js";

const vectors = (name) => parseJson(readFileSync(new URL(`../../../Tests/Vectors/${name}`, import.meta.url), "utf8"));

test("every roster checksum vector matches", () => {
    const { cases } = vectors("roster-checksum.json");
    assert.ok(cases.length >= 7);
    for (const vector of cases) {
        assert.equal(rosterChecksum(vector.roster), vector.checksum, vector.name);
    }
});

test("every merge patch application vector matches", () => {
    const { apply } = vectors("merge-patch.json");
    assert.equal(apply.length, 15);
    for (const vector of apply) {
        const target = clone(vector.target);
        assert.deepEqual(applyMergePatch(target, vector.patch), vector.result, JSON.stringify(vector.patch));
        assert.deepEqual(target, vector.target, "the target is not modified");
    }
});

test("every merge patch diff vector is the smallest patch and applies back", () => {
    const { diff } = vectors("merge-patch.json");
    assert.ok(diff.length >= 3);
    for (const vector of diff) {
        const patch = diffMergePatch(vector.before, vector.after) ?? {};
        assert.deepEqual(patch, vector.patch, vector.name);
        assert.deepEqual(applyMergePatch(vector.before, patch), vector.after, vector.name);
    }
});

test("the canonical form sorts keys by UTF-8 bytes, not UTF-16 code units", () => {
    assert.equal(canonicalJson({ "\u{1F600}": 1, "\u{FF61}": 2 }), '{"\u{FF61}":2,"\u{1F600}":1}');
    assert.ok(compareUtf8("\u{FF61}", "\u{1F600}") < 0);
    assert.ok("\u{FF61}" > "\u{1F600}", "JavaScript's own order is the other way round");
    assert.ok(compareUtf8("a", "ab") < 0);
    assert.equal(compareUtf8("é", "é"), 0);
});

test("strings escape only quotes, backslashes and control characters", () => {
    assert.equal(canonicalJson("a\"b\\c\n\t\u0001/\u2028é\u{1F98A}"), '"a\\"b\\\\c\\n\\t\\u0001/\u2028é\u{1F98A}"');
});

test("a patch keeps the identity of the members it does not touch", () => {
    const roster = { room: { a: 1 }, participants: { x: { uid: "x" }, y: { uid: "y" } } };
    const next = applyMergePatch(roster, { participants: { y: { name: "Y" } } });
    assert.equal(next.room, roster.room);
    assert.equal(next.participants.x, roster.participants.x);
    assert.notEqual(next.participants.y, roster.participants.y);
    assert.deepEqual(roster.participants.y, { uid: "y" });
});

test("a member named __proto__ is an ordinary member", () => {
    const result = applyMergePatch({}, JSON.parse('{"__proto__":{"uid":"p"}}'));
    assert.deepEqual(Object.keys(result), ["__proto__"]);
    assert.equal(Object.getPrototypeOf(result), Object.prototype);
});

test("the cached per-entry hashes give the same checksum as hashing afresh", () => {
    const { cases } = vectors("roster-checksum.json");
    let roster = clone(cases[2].roster);
    const first = rosterChecksum(roster);
    roster = applyMergePatch(roster, { participants: { "u-bob": { audioMuted: false } } });
    const patched = rosterChecksum(roster);
    assert.notEqual(patched, first);
    assert.equal(rosterChecksum(clone(roster)), patched);
    roster = applyMergePatch(roster, { participants: { "u-bob": { audioMuted: true } } });
    assert.equal(rosterChecksum(roster), first);
});

function clone(value) {
    return parseJson(canonicalJson(value));
}

test("integers beyond 2^53 keep every digit", () => {
    const value = parseJson('{"big":9007199254740993,"neg":-12345678901234567890,"small":1.5e3,"s":"9007199254740993"}');
    assert.equal(value.big, 9007199254740993n);
    assert.equal(value.neg, -12345678901234567890n);
    assert.equal(value.small, 1500);
    assert.equal(value.s, "9007199254740993");
    assert.equal(canonicalJson(value), '{"big":9007199254740993,"neg":-12345678901234567890,"s":"9007199254740993","small":1500}');
    assert.throws(() => parseJson('{"a":12345678901234567 x}'), SyntaxError);
    assert.throws(() => parseJson('[1234567890123456789,]'), SyntaxError);
});

test("the client's protocol constants are the shared vectors' (Tests/Vectors/protocol.json)", () => {
    const protocol = vectors("protocol.json");
    assert.deepEqual([...CLIENT_MESSAGE_TYPES].sort(), [...protocol.messageTypes.client].sort());
    assert.deepEqual([...SERVER_MESSAGE_TYPES].sort(), [...protocol.messageTypes.server].sort());
    assert.deepEqual([...EVENT_NAMES].sort(), [...protocol.events].sort());
    assert.deepEqual([...SERVER_ERROR_CODES].sort(), protocol.errorCodes.map((row) => row.code).sort());
    const closeCodes = Object.entries(CLOSE_CODES).map(([name, code]) => [snakeCase(name), code]);
    assert.deepEqual(
        closeCodes.sort(),
        protocol.closeCodes.map((row) => [row.name, row.code]).sort(),
    );
    assert.deepEqual(
        [...FINAL_CLOSE_CODES].sort(),
        protocol.closeCodes.filter((row) => row.final).map((row) => row.code).sort(),
    );
    assert.deepEqual(
        Object.entries(PARTICIPANT_FLAGS).map(([name, flag]) => ({
            name,
            on: flag.on,
            off: flag.off,
            setByParticipant: flag.setByParticipant,
        })),
        protocol.participantFlags,
    );
    assert.deepEqual([...UNSUBSCRIBE_REASONS], protocol.unsubscribeReasons);
    assert.deepEqual([...LEAVE_REASONS], protocol.leaveReasons);
    assert.deepEqual([...VIEW_FILTERS], protocol.viewFilters);
    assert.deepEqual([...VIEW_COUNTS], protocol.viewCounts.map((count) => count.name));
    assert.deepEqual([...PARTICIPANT_ROLES], protocol.roles);
});

test("a view's counts and total are read from the vectors' rosters, zeros filled in, and follow their patches", () => {
    const { cases } = vectors("roster-checksum.json");
    const page = cases.find((vector) => vector.name.startsWith("a raised_hands view"));
    const store = new RosterStore("r");
    store.applySnapshot({ type: "snapshot", room: "r", seq: 1, roster: page.roster, checksum: page.checksum });
    assert.deepEqual(store.getSnapshot().counts, {
        inCall: 2, muted: 1, video: 2, presenting: 1, handsRaised: 1, roles: { moderator: 1, participant: 1 },
    });
    assert.equal(store.getSnapshot().total, 1);
    const empty = cases.find((vector) => vector.name.startsWith("an empty room: counts"));
    const emptyStore = new RosterStore("r");
    emptyStore.applySnapshot({ type: "snapshot", room: "r", seq: 1, roster: empty.roster, checksum: empty.checksum });
    assert.deepEqual(emptyStore.getSnapshot().counts, { inCall: 0, muted: 0, video: 0, presenting: 0, handsRaised: 0, roles: {} });
    assert.equal(emptyStore.getSnapshot().total, 0);
    // The last viewer leaves and the last hand goes down: those counts arrive as nulls and read 0.
    const leave = vectors("merge-patch.json").diff.find((vector) => vector.name.startsWith("the last viewer leaves"));
    const patched = new RosterStore("r");
    patched.applySnapshot({ type: "snapshot", room: "r", seq: 10, roster: leave.before, checksum: rosterChecksum(leave.before) });
    assert.equal(patched.getSnapshot().counts.roles.viewer, 1);
    const outcome = patched.applyPatch({
        type: "patch", room: "r", from: 10, seq: 11, patch: leave.patch, checksum: rosterChecksum(leave.after),
    });
    assert.deepEqual(outcome, { kind: "applied" });
    assert.equal(patched.getSnapshot().counts.roles.viewer, undefined);
    assert.equal(patched.getSnapshot().counts.handsRaised, 0);
    assert.equal(patched.getSnapshot().counts.inCall, 2);
    assert.equal(patched.getSnapshot().total, 2);
});

function snakeCase(name) {
    return name.replace(/[A-Z]/g, (letter) => "_" + letter.toLowerCase());
}
