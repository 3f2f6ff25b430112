import type { JsonObject } from "./json.js";
import type { EventMode, RoomEvent, RosterView, ServerMessage } from "./protocol.js";
import { RosterStore } from "./roster-store.js";
/** What a message asks the client to do next. */
export declare type FollowUp = "none" | "rejoin-resume" | "rejoin-fresh";
/** One thing a message changed besides the roster itself (whose store tells its own listeners). */
export declare type MirrorChange = 
/** A room event, each sequence number once. */
{
    readonly kind: "event";
    readonly event: RoomEvent;
}
/** A snapshot replaced the roster. */
 | {
    readonly kind: "snapshot";
    readonly resync: boolean;
    readonly recovered: boolean | undefined;
}
/** A resume finished; `recovered` tells whether everything missed was replayed. */
 | {
    readonly kind: "resumed";
    readonly recovered: boolean;
}
/** The roster could not be trusted; `resume` tells whether a rejoin can replay (a gap) or needs a snapshot. */
 | {
    readonly kind: "drift";
    readonly detail: string;
    readonly resume: boolean;
};
/** What applying one message did: the changes, in order, and what to do next. */
export interface MirrorOutcome {
    /** What changed, in order. */
    readonly changes: readonly MirrorChange[];
    /** A rejoin to send when the roster drifted, or `none`. */
    readonly followUp: FollowUp;
}
/** What a subscription joins with. */
export interface MirrorOptions {
    /** Join the call (`participant`, default) or watch it (`observer`). */
    readonly as?: "participant" | "observer";
    /** The roster view; default the whole roster. */
    readonly view?: RosterView;
    /** The events received besides patches; default `all`. */
    readonly events?: EventMode;
    /** `audio` or `video`, sent with a participant's join. */
    readonly callType?: "audio" | "video";
}
/** Rejoins asked for in a row after drift before the mirror stops asking (the roster stays as it is). */
export declare const MAX_DRIFT_STREAK = 3;
/**
 * The state of one subscription: what it joined with, its roster, and its positions. It keeps the roster's `seq`
 * (its last snapshot or patch) and the highest `seq` received on any message of the room (messages arrive in log
 * order, so the subscription has every event it takes up to there), which a rejoin sends as `resume` and
 * `resumeEvents`; and it asks for a rejoin when the roster drifted (resuming after a gap, for a fresh snapshot after
 * a checksum mismatch), at most three times in a row, and not again while a rejoin waits for its roster.
 */
export declare class RoomMirror {
    /** The room id. */
    readonly room: string;
    /** Whether this is a participant's join or an observer's. */
    readonly kind: "participant" | "observer";
    /** The device the join is made from. */
    readonly device: string;
    /** The events received besides patches. */
    readonly events: EventMode;
    /** The live roster of the view. */
    readonly roster: RosterStore;
    /** The roster view mirrored. */
    view: RosterView;
    private readonly callType;
    private lastEvent;
    private lastResume;
    private driftStreak;
    private awaitingRoster;
    /**
     * A mirror with an empty roster.
     * @param room the room id.
     * @param device the device id.
     * @param options how to join.
     */
    constructor(room: string, device: string, options?: MirrorOptions);
    /** The seq up to which the subscription has every event it takes; a rejoin sends it as `resumeEvents`. */
    get lastEventSeq(): number;
    /** Whether the last resume replayed everything missed; undefined before any resume. */
    get recovered(): boolean | undefined;
    /**
     * The fields of a join message (without type and id); with `resume`, the positions to resume from.
     * @param resume whether to resume (only once a snapshot arrived).
     */
    joinFields(resume: boolean): JsonObject;
    /**
     * Applies a `snapshot`, `patch`, `event` or `resumed` message for this room.
     * @param message the parsed message.
     */
    handle(message: ServerMessage): MirrorOutcome;
    /** The rejoin asked for after drift failed to go out or was refused: the next drift may ask again. */
    rejoinFailed(): void;
    /** The connection dropped: the rejoin after the reconnect replaces any asked for before. */
    connectionLost(): void;
    private applySnapshot;
    private applyPatch;
    /** Reports drift and asks for a rejoin, unless one already waits for its roster or the streak is too long. */
    private drifted;
}
