import type { JsonObject } from "./json.js";
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
    readonly byUid: {
        readonly [uid: string]: Participant | undefined;
    };
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
export declare type ApplyOutcome = 
/** The roster moved forward. */
{
    readonly kind: "applied";
}
/** Nothing to do: a replayed patch already applied, or a patch before any snapshot. */
 | {
    readonly kind: "ignored";
}
/** A patch starts after the roster's seq: something was missed; resume from the roster's seq. */
 | {
    readonly kind: "gap";
    readonly detail: string;
}
/** The roster cannot be trusted (checksum mismatch, a patch from the past): get a fresh snapshot. */
 | {
    readonly kind: "drift";
    readonly detail: string;
};
/** A listener of the whole roster: called with each new snapshot. */
export declare type RosterListener = (snapshot: RosterSnapshot) => void;
/** A listener of participant changes. */
export declare type ParticipantListener = (change: ParticipantChange) => void;
/**
 * A live mirror of one room's roster view: it applies the snapshot, then every patch, as docs/PROTOCOL.md says
 * (RFC 7386 merge patches, `from`/`seq` continuity, the checksum after each one), and tells listeners.
 *
 * `getSnapshot()` and `subscribe(listener)` follow the external-store contract of React's `useSyncExternalStore`
 * (the snapshot is the same object until something changes) and Svelte's store contract (`subscribe` calls the
 * listener at once with the current snapshot, then on every change, and returns the unsubscribe function).
 */
export declare class RosterStore {
    /** The room id. */
    readonly room: string;
    private roster;
    private current;
    private readonly listeners;
    private readonly participantListeners;
    /**
     * Creates an empty store (`ready: false`) for a room.
     * @param room the room id.
     */
    constructor(room: string);
    /** The current snapshot; the same object until the roster changes. */
    readonly getSnapshot: () => RosterSnapshot;
    /**
     * Calls `listener` now with the current snapshot and again after every change; returns the unsubscribe
     * function. Pass it straight to React's `useSyncExternalStore(store.subscribe, store.getSnapshot)`.
     */
    readonly subscribe: (listener: RosterListener) => (() => void);
    /**
     * Calls `listener` for every participant added to, changed in, or removed from the view (only those of `uid`
     * when given); returns the function that stops it.
     * @param listener the callback.
     * @param uid only this participant's changes.
     */
    onParticipantChange(listener: ParticipantListener, uid?: string): () => void;
    /** The sequence number the roster is at; 0 before the first snapshot. */
    get seq(): number;
    /** Whether a snapshot has arrived. */
    get ready(): boolean;
    /** One participant by uid (the same object while it does not change), if in the view. */
    participant(uid: string): Participant | undefined;
    /** The roster object as the gateway describes it: `{"room": {...}, "participants": {uid: {...}}}`. */
    toJSON(): JsonObject;
    /**
     * Replaces the roster with a `snapshot` message's, if its checksum matches.
     * @param message the parsed message.
     */
    applySnapshot(message: JsonObject): ApplyOutcome;
    /**
     * Applies a `patch` message: it must start where the roster is (`from <= seq < patch.seq`) and give the
     * gateway's checksum. The roster does not change when it is refused.
     * @param message the parsed message.
     */
    applyPatch(message: JsonObject): ApplyOutcome;
    private participantsObject;
    private publish;
}
