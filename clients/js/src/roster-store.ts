import { rosterChecksum } from "./checksum.js";
import { reportListenerError } from "./emitter.js";
import { isJsonObject, jsonEqual } from "./json.js";
import type { JsonObject, JsonValue } from "./json.js";
import { applyMergePatch } from "./merge-patch.js";
import { VIEW_COUNTS } from "./constants.js";
import type { Participant, RoomState, RosterView, ViewCounts } from "./protocol.js";

/** An immutable picture of a roster view at one sequence number; the same object until the roster changes. */
export interface RosterSnapshot {
    /** The room id. */
    readonly room: string;
    /** Whether a snapshot has arrived yet; before it the roster is empty and `seq` is 0. */
    readonly ready: boolean;
    /** The sequence number the roster is at (its last snapshot or patch). */
    readonly seq: number;
    /** The room entry (`callType`, `recording`, `activeSpeaker`, `participantCount`, ...). */
    readonly state: RoomState;
    /** What every view counts (the room entry's `counts`, zeros filled in): "23 hands raised". */
    readonly counts: ViewCounts;
    /**
     * How many entries match the view's filter before its `offset` and `limit` (the room entry's `total`): "page 3
     * of `Math.ceil(total / limit)`". Undefined before the first snapshot.
     */
    readonly total: number | undefined;
    /** The participants of the view in join order (each keeps its place; the `waiting` view's in arrival order). */
    readonly participants: readonly Participant[];
    /** The participants by uid. */
    readonly byUid: { readonly [uid: string]: Participant | undefined };
    /** The roster's checksum, verified against the gateway's. */
    readonly checksum: string;
    /** The view the roster mirrors, as the gateway last described it. */
    readonly view: RosterView;
}

/** One participant entering, changing in, or leaving the view. */
export interface ParticipantChange {
    /** `added`, `updated` or `removed`. */
    readonly kind: "added" | "updated" | "removed";
    /** The participant's uid. */
    readonly uid: string;
    /** The entry now; undefined when removed. */
    readonly participant: Participant | undefined;
    /** The entry before; undefined when added. */
    readonly previous: Participant | undefined;
}

/** What applying a snapshot or patch came to. */
export type ApplyOutcome =
    /** The roster moved forward. */
    | { readonly kind: "applied" }
    /** Nothing to do: a replayed patch already applied, or a patch before any snapshot. */
    | { readonly kind: "ignored" }
    /** A patch starts after the roster's seq: something was missed; resume from the roster's seq. */
    | { readonly kind: "gap"; readonly detail: string }
    /** The roster cannot be trusted (checksum mismatch, a patch from the past): get a fresh snapshot. */
    | { readonly kind: "drift"; readonly detail: string };

/** A listener of the whole roster: called with each new snapshot. */
export type RosterListener = (snapshot: RosterSnapshot) => void;
/** A listener of participant changes. */
export type ParticipantListener = (change: ParticipantChange) => void;

/**
 * A live mirror of one room's roster view: it applies the snapshot, then every patch, as docs/PROTOCOL.md says
 * (RFC 7386 merge patches, `from`/`seq` continuity, the checksum after each one), and tells listeners.
 *
 * `getSnapshot()` and `subscribe(listener)` follow the external-store contract of React's `useSyncExternalStore`
 * (the snapshot is the same object until something changes) and Svelte's store contract (`subscribe` calls the
 * listener at once with the current snapshot, then on every change, and returns the unsubscribe function).
 */
export class RosterStore {
    /** The room id. */
    readonly room: string;
    private roster: JsonObject = { room: {}, participants: {} };
    private current: RosterSnapshot;
    private readonly listeners = new Set<RosterListener>();
    private readonly participantListeners = new Set<{ uid: string | undefined; listener: ParticipantListener }>();

    /**
     * Creates an empty store (`ready: false`) for a room.
     * @param room the room id.
     */
    constructor(room: string) {
        this.room = room;
        this.current = makeSnapshot(room, false, 0, this.roster, "", {});
    }

    /** The current snapshot; the same object until the roster changes. */
    readonly getSnapshot = (): RosterSnapshot => this.current;

    /**
     * Calls `listener` now with the current snapshot and again after every change; returns the unsubscribe
     * function. Pass it straight to React's `useSyncExternalStore(store.subscribe, store.getSnapshot)`.
     */
    readonly subscribe = (listener: RosterListener): (() => void) => {
        this.listeners.add(listener);
        try {
            listener(this.current);
        } catch (error) {
            reportListenerError(error);
        }
        return () => {
            this.listeners.delete(listener);
        };
    };

    /**
     * Calls `listener` for every participant added to, changed in, or removed from the view (only those of `uid`
     * when given); returns the function that stops it.
     * @param listener the callback.
     * @param uid only this participant's changes.
     */
    onParticipantChange(listener: ParticipantListener, uid?: string): () => void {
        const entry = { uid, listener };
        this.participantListeners.add(entry);
        return () => {
            this.participantListeners.delete(entry);
        };
    }

    /** The sequence number the roster is at; 0 before the first snapshot. */
    get seq(): number {
        return this.current.seq;
    }

    /** Whether a snapshot has arrived. */
    get ready(): boolean {
        return this.current.ready;
    }

    /** One participant by uid (the same object while it does not change), if in the view. */
    participant(uid: string): Participant | undefined {
        return this.current.byUid[uid];
    }

    /** The roster object as the gateway describes it: `{"room": {...}, "participants": {uid: {...}}}`. */
    toJSON(): JsonObject {
        return this.roster;
    }

    /**
     * Replaces the roster with a `snapshot` message's, if its checksum matches.
     * @param message the parsed message.
     */
    applySnapshot(message: JsonObject): ApplyOutcome {
        const { seq, roster, checksum } = message;
        if (typeof seq !== "number" || !isJsonObject(roster)) {
            return { kind: "drift", detail: "a snapshot without seq or roster" };
        }
        const computed = rosterChecksum(roster);
        if (typeof checksum === "string" && checksum !== computed) {
            return { kind: "drift", detail: `snapshot checksum ${computed} differs from the gateway's ${checksum}` };
        }
        const before = this.participantsObject();
        deepFreeze(roster);
        this.roster = roster;
        const view = isJsonObject(message.view) ? (message.view as RosterView) : this.current.view;
        this.publish(seq, computed, view, snapshotChanges(before, this.participantsObject()));
        return { kind: "applied" };
    }

    /**
     * Applies a `patch` message: it must start where the roster is (`from <= seq < patch.seq`) and give the
     * gateway's checksum. The roster does not change when it is refused.
     * @param message the parsed message.
     */
    applyPatch(message: JsonObject): ApplyOutcome {
        const { from, seq: to, patch, checksum } = message;
        if (!this.current.ready) return { kind: "ignored" };
        if (typeof from !== "number" || typeof to !== "number" || patch === undefined) {
            return { kind: "drift", detail: "a patch without from, seq or patch" };
        }
        const seq = this.current.seq;
        if (message.recovered === true && to <= seq) return { kind: "ignored" };
        if (from > seq) return { kind: "gap", detail: `patch from ${from} while the roster is at ${seq}` };
        if (to <= seq) return { kind: "drift", detail: `patch from ${from} to ${to} does not follow seq ${seq}` };
        const result = applyMergePatch(this.roster, patch);
        if (!isJsonObject(result)) return { kind: "drift", detail: "a patch replaced the roster with a non-object" };
        const computed = rosterChecksum(result);
        if (typeof checksum === "string" && checksum !== computed) {
            return { kind: "drift", detail: `checksum ${computed} differs from the gateway's ${checksum} at seq ${to}` };
        }
        const before = this.participantsObject();
        deepFreeze(result);
        this.roster = result;
        const changes = patchChanges(before, this.participantsObject(), patch);
        this.publish(to, computed, this.current.view, changes);
        return { kind: "applied" };
    }

    private participantsObject(): JsonObject {
        const participants = this.roster.participants;
        return isJsonObject(participants) ? participants : {};
    }

    private publish(seq: number, checksum: string, view: RosterView, changes: ParticipantChange[]): void {
        this.current = makeSnapshot(this.room, true, seq, this.roster, checksum, view);
        for (const change of changes) {
            for (const { uid, listener } of Array.from(this.participantListeners)) {
                if (uid !== undefined && uid !== change.uid) continue;
                try {
                    listener(change);
                } catch (error) {
                    reportListenerError(error);
                }
            }
        }
        const snapshot = this.current;
        for (const listener of Array.from(this.listeners)) {
            try {
                listener(snapshot);
            } catch (error) {
                reportListenerError(error);
            }
        }
    }
}

function makeSnapshot(
    room: string,
    ready: boolean,
    seq: number,
    roster: JsonObject,
    checksum: string,
    view: RosterView,
): RosterSnapshot {
    const state = isJsonObject(roster.room) ? (roster.room as RoomState) : {};
    const byUid = isJsonObject(roster.participants)
        ? (roster.participants as { readonly [uid: string]: Participant })
        : {};
    const participants = Object.keys(byUid)
        .map((uid) => byUid[uid])
        .filter((entry): entry is Participant => isJsonObject(entry))
        .sort(joinOrder);
    const counts = viewCounts(state);
    const total = typeof state.total === "number" ? state.total : undefined;
    return Object.freeze({
        room,
        ready,
        seq,
        state,
        counts,
        total,
        participants: Object.freeze(participants),
        byUid,
        checksum,
        view,
    });
}

/** The room entry's `counts` with the zeros it leaves out filled in. */
function viewCounts(state: RoomState): ViewCounts {
    const entry = isJsonObject(state.counts) ? (state.counts as JsonObject) : {};
    const counts: { [count: string]: number } = {};
    for (const name of VIEW_COUNTS) counts[name] = typeof entry[name] === "number" ? (entry[name] as number) : 0;
    const roles: { [role: string]: number } = {};
    const entryRoles = entry.roles;
    if (isJsonObject(entryRoles)) {
        for (const [role, count] of Object.entries(entryRoles)) {
            if (typeof count === "number" && count > 0) roles[role] = count;
        }
    }
    return Object.freeze({ ...counts, roles: Object.freeze(roles) }) as unknown as ViewCounts;
}

function joinOrder(a: Participant, b: Participant): number {
    const orderA = typeof a.order === "number" ? a.order : Number.MAX_SAFE_INTEGER;
    const orderB = typeof b.order === "number" ? b.order : Number.MAX_SAFE_INTEGER;
    if (orderA !== orderB) return orderA - orderB;
    // The `waiting` view's entries have no join order: they keep their arrival order.
    const sinceA = typeof a.waitingSince === "number" ? a.waitingSince : 0;
    const sinceB = typeof b.waitingSince === "number" ? b.waitingSince : 0;
    if (sinceA !== sinceB) return sinceA - sinceB;
    return a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0;
}

/** The changes a patch made, from its `participants` member. */
function patchChanges(before: JsonObject, after: JsonObject, patch: JsonValue): ParticipantChange[] {
    if (!isJsonObject(patch)) return snapshotChanges(before, after);
    const members = patch.participants;
    if (members === undefined) return [];
    if (!isJsonObject(members)) return snapshotChanges(before, after);
    const changes: ParticipantChange[] = [];
    for (const uid of Object.keys(members)) {
        const change = changeOf(uid, before, after);
        if (change !== undefined) changes.push(change);
    }
    return changes;
}

/** The changes between two participants objects, compared entry by entry. */
function snapshotChanges(before: JsonObject, after: JsonObject): ParticipantChange[] {
    const changes: ParticipantChange[] = [];
    for (const uid of Object.keys(before)) {
        if (!Object.prototype.hasOwnProperty.call(after, uid)) {
            changes.push({ kind: "removed", uid, participant: undefined, previous: before[uid] as Participant });
        }
    }
    for (const uid of Object.keys(after)) {
        const change = changeOf(uid, before, after);
        if (change !== undefined) changes.push(change);
    }
    return changes;
}

function changeOf(uid: string, before: JsonObject, after: JsonObject): ParticipantChange | undefined {
    const had = Object.prototype.hasOwnProperty.call(before, uid);
    const has = Object.prototype.hasOwnProperty.call(after, uid);
    const previous = had ? (before[uid] as Participant) : undefined;
    const participant = has ? (after[uid] as Participant) : undefined;
    if (had && has) {
        if (previous === participant || jsonEqual(before[uid], after[uid])) return undefined;
        return { kind: "updated", uid, participant, previous };
    }
    if (has) return { kind: "added", uid, participant, previous: undefined };
    if (had) return { kind: "removed", uid, participant: undefined, previous };
    return undefined;
}

/** Freezes a JSON value and everything in it that is not frozen yet (unchanged parts already are). */
function deepFreeze(value: JsonValue | undefined): void {
    if (typeof value !== "object" || value === null || Object.isFrozen(value)) return;
    Object.freeze(value);
    if (Array.isArray(value)) {
        for (const element of value) deepFreeze(element);
    } else {
        for (const key of Object.keys(value)) deepFreeze(value[key]);
    }
}
