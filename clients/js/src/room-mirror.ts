// One subscription's bookkeeping, without I/O: its roster store, the two resume positions, and what to do next.
// The mirror applies snapshots, patches, events and `resumed` messages and returns what changed; it never sends,
// never emits and never touches a socket, so it is tested with plain messages (test/room-mirror.test.mjs). The
// Python client's `RoomMirror` (clients/python/src/rollcall/mirror.py) has the same shape.
import type { JsonObject } from "./json.js";
import { readEvent, viewJson } from "./protocol.js";
import type { EventMode, RoomEvent, RosterView, ServerMessage } from "./protocol.js";
import { RosterStore } from "./roster-store.js";

/** What a message asks the client to do next. */
export type FollowUp = "none" | "rejoin-resume" | "rejoin-fresh";

/** One thing a message changed besides the roster itself (whose store tells its own listeners). */
export type MirrorChange =
    /** A room event, each sequence number once. */
    | { readonly kind: "event"; readonly event: RoomEvent }
    /** A snapshot replaced the roster. */
    | { readonly kind: "snapshot"; readonly resync: boolean; readonly recovered: boolean | undefined }
    /** A resume finished; `recovered` tells whether everything missed was replayed. */
    | { readonly kind: "resumed"; readonly recovered: boolean }
    /** The roster could not be trusted; `resume` tells whether a rejoin can replay (a gap) or needs a snapshot. */
    | { readonly kind: "drift"; readonly detail: string; readonly resume: boolean };

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
export const MAX_DRIFT_STREAK = 3;

const NOTHING: MirrorOutcome = { changes: [], followUp: "none" };

/**
 * The state of one subscription: what it joined with, its roster, and its positions. It keeps the roster's `seq`
 * (its last snapshot or patch) and the highest `seq` received on any message of the room (messages arrive in log
 * order, so the subscription has every event it takes up to there), which a rejoin sends as `resume` and
 * `resumeEvents`; and it asks for a rejoin when the roster drifted (resuming after a gap, for a fresh snapshot after
 * a checksum mismatch), at most three times in a row, and not again while a rejoin waits for its roster.
 */
export class RoomMirror {
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
    private readonly callType: string | undefined;
    private lastEvent = 0;
    private lastResume: boolean | undefined;
    private driftStreak = 0;
    private awaitingRoster = false;

    /**
     * A mirror with an empty roster.
     * @param room the room id.
     * @param device the device id.
     * @param options how to join.
     */
    constructor(room: string, device: string, options: MirrorOptions = {}) {
        this.room = room;
        this.kind = options.as ?? "participant";
        this.device = device;
        this.events = options.events ?? "all";
        this.callType = options.callType;
        this.view = { ...(options.view ?? { filter: "all" }) };
        this.roster = new RosterStore(room);
    }

    /** The seq up to which the subscription has every event it takes; a rejoin sends it as `resumeEvents`. */
    get lastEventSeq(): number {
        return this.lastEvent;
    }

    /** Whether the last resume replayed everything missed; undefined before any resume. */
    get recovered(): boolean | undefined {
        return this.lastResume;
    }

    /**
     * The fields of a join message (without type and id); with `resume`, the positions to resume from.
     * @param resume whether to resume (only once a snapshot arrived).
     */
    joinFields(resume: boolean): JsonObject {
        const fields: JsonObject = { room: this.room };
        if (this.kind === "observer") fields.as = "observer";
        fields.device = this.device;
        if (this.callType !== undefined && this.kind === "participant") fields.callType = this.callType;
        fields.view = viewJson(this.view);
        fields.events = this.events;
        if (resume && this.roster.ready) {
            fields.resume = this.roster.seq;
            fields.resumeEvents = Math.max(this.lastEvent, 0);
        }
        return fields;
    }

    /**
     * Applies a `snapshot`, `patch`, `event` or `resumed` message for this room.
     * @param message the parsed message.
     */
    handle(message: ServerMessage): MirrorOutcome {
        switch (message.type) {
            case "snapshot":
                return this.applySnapshot(message);
            case "patch":
                return this.applyPatch(message);
            case "event": {
                const event = readEvent(message);
                if (event === undefined || event.seq <= this.lastEvent) return NOTHING;
                this.lastEvent = event.seq;
                return { changes: [{ kind: "event", event }], followUp: "none" };
            }
            case "resumed": {
                const recovered = message.recovered === true;
                this.lastResume = recovered;
                this.awaitingRoster = false;
                if (typeof message.seq === "number") this.lastEvent = Math.max(this.lastEvent, message.seq);
                return { changes: [{ kind: "resumed", recovered }], followUp: "none" };
            }
            default:
                return NOTHING;
        }
    }

    /** The rejoin asked for after drift failed to go out or was refused: the next drift may ask again. */
    rejoinFailed(): void {
        this.awaitingRoster = false;
    }

    /** The connection dropped: the rejoin after the reconnect replaces any asked for before. */
    connectionLost(): void {
        this.awaitingRoster = false;
    }

    private applySnapshot(message: ServerMessage): MirrorOutcome {
        const outcome = this.roster.applySnapshot(message);
        if (outcome.kind !== "applied") {
            return outcome.kind === "ignored" ? NOTHING : this.drifted(outcome.detail, false);
        }
        this.driftStreak = 0;
        this.awaitingRoster = false;
        this.lastEvent = Math.max(this.lastEvent, this.roster.seq);
        const recovered = typeof message.recovered === "boolean" ? message.recovered : undefined;
        const changes: MirrorChange[] = [{ kind: "snapshot", resync: message.resync === true, recovered }];
        if (recovered === false) {
            this.lastResume = false;
            changes.push({ kind: "resumed", recovered: false });
        }
        return { changes, followUp: "none" };
    }

    private applyPatch(message: ServerMessage): MirrorOutcome {
        const outcome = this.roster.applyPatch(message);
        switch (outcome.kind) {
            case "applied":
                this.driftStreak = 0;
                this.lastEvent = Math.max(this.lastEvent, this.roster.seq);
                return NOTHING;
            case "ignored":
                return NOTHING;
            case "gap":
                return this.drifted(outcome.detail, true);
            case "drift":
                return this.drifted(outcome.detail, false);
        }
    }

    /** Reports drift and asks for a rejoin, unless one already waits for its roster or the streak is too long. */
    private drifted(detail: string, resume: boolean): MirrorOutcome {
        if (this.awaitingRoster) return NOTHING;
        this.driftStreak += 1;
        const changes: MirrorChange[] = [{ kind: "drift", detail, resume }];
        if (this.driftStreak > MAX_DRIFT_STREAK) return { changes, followUp: "none" };
        this.awaitingRoster = true;
        return { changes, followUp: resume ? "rejoin-resume" : "rejoin-fresh" };
    }
}
