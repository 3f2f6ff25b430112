import { readEvent, viewJson } from "./protocol.js";
import { RosterStore } from "./roster-store.js";
/** Rejoins asked for in a row after drift before the mirror stops asking (the roster stays as it is). */
export const MAX_DRIFT_STREAK = 3;
const NOTHING = { changes: [], followUp: "none" };
/**
 * The state of one subscription: what it joined with, its roster, and its positions. It keeps the roster's `seq`
 * (its last snapshot or patch) and the highest `seq` received on any message of the room (messages arrive in log
 * order, so the subscription has every event it takes up to there), which a rejoin sends as `resume` and
 * `resumeEvents`; and it asks for a rejoin when the roster drifted (resuming after a gap, for a fresh snapshot after
 * a checksum mismatch), at most three times in a row, and not again while a rejoin waits for its roster.
 */
export class RoomMirror {
    /**
     * A mirror with an empty roster.
     * @param room the room id.
     * @param device the device id.
     * @param options how to join.
     */
    constructor(room, device, options = {}) {
        this.lastEvent = 0;
        this.driftStreak = 0;
        this.awaitingRoster = false;
        this.room = room;
        this.kind = options.as ?? "participant";
        this.device = device;
        this.events = options.events ?? "all";
        this.callType = options.callType;
        this.view = { ...(options.view ?? { filter: "all" }) };
        this.roster = new RosterStore(room);
    }
    /** The seq up to which the subscription has every event it takes; a rejoin sends it as `resumeEvents`. */
    get lastEventSeq() {
        return this.lastEvent;
    }
    /** Whether the last resume replayed everything missed; undefined before any resume. */
    get recovered() {
        return this.lastResume;
    }
    /**
     * The fields of a join message (without type and id); with `resume`, the positions to resume from.
     * @param resume whether to resume (only once a snapshot arrived).
     */
    joinFields(resume) {
        const fields = { room: this.room };
        if (this.kind === "observer")
            fields.as = "observer";
        fields.device = this.device;
        if (this.callType !== undefined && this.kind === "participant")
            fields.callType = this.callType;
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
    handle(message) {
        switch (message.type) {
            case "snapshot":
                return this.applySnapshot(message);
            case "patch":
                return this.applyPatch(message);
            case "event": {
                const event = readEvent(message);
                if (event === undefined || event.seq <= this.lastEvent)
                    return NOTHING;
                this.lastEvent = event.seq;
                return { changes: [{ kind: "event", event }], followUp: "none" };
            }
            case "resumed": {
                const recovered = message.recovered === true;
                this.lastResume = recovered;
                this.awaitingRoster = false;
                if (typeof message.seq === "number")
                    this.lastEvent = Math.max(this.lastEvent, message.seq);
                return { changes: [{ kind: "resumed", recovered }], followUp: "none" };
            }
            default:
                return NOTHING;
        }
    }
    /** The rejoin asked for after drift failed to go out or was refused: the next drift may ask again. */
    rejoinFailed() {
        this.awaitingRoster = false;
    }
    /** The connection dropped: the rejoin after the reconnect replaces any asked for before. */
    connectionLost() {
        this.awaitingRoster = false;
    }
    applySnapshot(message) {
        const outcome = this.roster.applySnapshot(message);
        if (outcome.kind !== "applied") {
            return outcome.kind === "ignored" ? NOTHING : this.drifted(outcome.detail, false);
        }
        this.driftStreak = 0;
        this.awaitingRoster = false;
        this.lastEvent = Math.max(this.lastEvent, this.roster.seq);
        const recovered = typeof message.recovered === "boolean" ? message.recovered : undefined;
        const changes = [{ kind: "snapshot", resync: message.resync === true, recovered }];
        if (recovered === false) {
            this.lastResume = false;
            changes.push({ kind: "resumed", recovered: false });
        }
        return { changes, followUp: "none" };
    }
    applyPatch(message) {
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
    drifted(detail, resume) {
        if (this.awaitingRoster)
            return NOTHING;
        this.driftStreak += 1;
        const changes = [{ kind: "drift", detail, resume }];
        if (this.driftStreak > MAX_DRIFT_STREAK)
            return { changes, followUp: "none" };
        this.awaitingRoster = true;
        return { changes, followUp: resume ? "rejoin-resume" : "rejoin-fresh" };
    }
}
