import type { ClientMessageType } from "./constants.js";
import { Emitter } from "./emitter.js";
import { RollcallError } from "./errors.js";
import type { JsonObject, JsonValue } from "./json.js";
import { readAcknowledgement, readWaitingPage, readWaitingStatus, viewJson } from "./protocol.js";
import type {
    Acknowledgement,
    EventMode,
    ModeratorAction,
    QueryName,
    RoomRights,
    RoomSignal,
    RosterView,
    ServerMessage,
    ViewCounts,
    WaitingPage,
    WaitingStatus,
} from "./protocol.js";
import { RoomMirror } from "./room-mirror.js";
import type { FollowUp, MirrorChange } from "./room-mirror.js";
import type { RosterStore } from "./roster-store.js";
import type {
    JoinOptions,
    ParticipantStateUpdate,
    RoomChannel,
    RoomSubscriptionEvents,
    UnsubscribeReason,
} from "./room-types.js";

export type { FollowUp } from "./room-mirror.js";

export type {
    JoinOptions,
    ParticipantStateUpdate,
    RoomChannel,
    RoomSubscriptionEvents,
    UnsubscribeReason,
} from "./room-types.js";

/**
 * A room the client joined or watches: a live roster (`roster`, a `RosterStore`), its events, and the requests
 * about it. After a reconnect the client rejoins it with `resume` (the roster's `seq`) and `resumeEvents` (the highest
 * `seq` it received on any message of the room: messages arrive in log order, so it has every event it takes up to
 * there), so it either replays exactly what was missed or receives a fresh snapshot. The bookkeeping is a
 * `RoomMirror` (no I/O); the subscription adds the requests, over the client's `RoomChannel`, and the listeners.
 */
export class RoomSubscription {
    /** The room id. */
    readonly room: string;
    /** Whether this is a participant's join or an observer's. */
    readonly kind: "participant" | "observer";
    /** The device the join was made from. */
    readonly device: string;
    /** The events received besides patches. */
    readonly events: EventMode;
    /** The live roster of the view. */
    readonly roster: RosterStore;
    private readonly mirror: RoomMirror;
    private ended = false;
    private readonly emitter = new Emitter<RoomSubscriptionEvents>();
    private currentRights: RoomRights | undefined;
    private currentWait: WaitingStatus | null = null;
    private readonly admission: Promise<void>;
    private settleAdmission: { resolve(): void; reject(error: RollcallError): void } | undefined;

    /**
     * Creates a subscription; the client does so in `join`.
     * @param channel how requests reach the gateway.
     * @param room the room id.
     * @param device the device id.
     * @param options how to join.
     */
    constructor(
        private readonly channel: RoomChannel,
        room: string,
        device: string,
        options: JoinOptions = {},
    ) {
        this.mirror = new RoomMirror(room, device, options);
        this.room = room;
        this.kind = this.mirror.kind;
        this.device = device;
        this.events = this.mirror.events;
        this.roster = this.mirror.roster;
        this.admission = new Promise<void>((resolve, reject) => {
            this.settleAdmission = { resolve, reject };
        });
        // Nobody need wait for it: a join that never waited completes without it.
        this.admission.catch(() => undefined);
        const onWaiting = options.onWaiting;
        if (onWaiting !== undefined) this.emitter.on("waiting", (status) => onWaiting(status, this));
    }

    /** What the user may do in the room, from the answer to the last join (undefined before it). */
    get rights(): RoomRights | undefined {
        return this.currentRights;
    }

    /**
     * Keeps the rights a join's answer carries; the client calls this.
     * @param answer the join's `ack`.
     */
    joined(answer: ServerMessage): void {
        const rights = answer.rights;
        if (typeof rights === "object" && rights !== null && !Array.isArray(rights)) {
            this.currentRights = rights as unknown as RoomRights;
        }
        this.settleAdmission?.resolve();
        this.settleAdmission = undefined;
        if (this.currentWait !== null && !this.ended) {
            this.currentWait = null;
            this.emitter.emit("admitted", undefined);
        }
    }

    /**
     * Where the join stands in the room's waiting room, from the gateway's last `waiting` answer; null when it does
     * not wait (never did, or was admitted).
     */
    get waiting(): WaitingStatus | null {
        return this.currentWait;
    }

    /** The join's place in the waiting room's queue (from 1); null when it does not wait. */
    get waitingPosition(): number | null {
        return this.currentWait?.position ?? null;
    }

    /**
     * A `waiting` answer to this subscription's join: keeps it and tells `waiting` listeners; the client calls this.
     * @param message the message.
     */
    waited(message: ServerMessage): void {
        const status = readWaitingStatus(message);
        if (this.ended || status === undefined) return;
        this.currentWait = status;
        this.emitter.emit("waiting", status);
    }

    /**
     * Settles once the join is let in (resolves) or the subscription ends first (rejects with why): for a join whose
     * connection dropped while it waited, which the client makes again after the reconnect.
     */
    whenAdmitted(): Promise<void> {
        return this.admission;
    }

    /** The roster view mirrored. */
    get view(): RosterView {
        return this.mirror.view;
    }

    /** What every view counts, whatever its filter (the room entry's `counts`): "23 hands raised". */
    get counts(): ViewCounts {
        return this.roster.getSnapshot().counts;
    }

    /**
     * How many entries match the view's filter before its `offset` and `limit` (the room entry's `total`), for
     * "page 3 of 20"; undefined before the first snapshot.
     */
    get viewTotal(): number | undefined {
        return this.roster.getSnapshot().total;
    }

    /**
     * The sequence number up to which the subscription has every event it takes: its last event's, or a later
     * snapshot's, patch's or resume's (messages arrive in log order). A rejoin sends it as `resumeEvents`.
     */
    get lastEventSeq(): number {
        return this.mirror.lastEventSeq;
    }

    /** Whether the last resume replayed everything missed; undefined before any resume. */
    get recovered(): boolean | undefined {
        return this.mirror.recovered;
    }

    /** Whether the subscription still receives changes. */
    get active(): boolean {
        return !this.ended;
    }

    /**
     * Adds a listener; returns the function that removes it.
     * @param name `event`, `snapshot`, `resumed`, `drift`, `connectionLost`, `unsubscribed` or `ended`.
     * @param listener the callback.
     */
    on<Name extends keyof RoomSubscriptionEvents>(
        name: Name,
        listener: (value: RoomSubscriptionEvents[Name]) => void,
    ): () => void {
        return this.emitter.on(name, listener);
    }

    // Requests

    /**
     * Sets the participant's own state; only the fields given are sent. Observers get `ERR_NOT_IN_ROOM`.
     * @param fields the fields to set.
     */
    async setState(fields: ParticipantStateUpdate): Promise<Acknowledgement> {
        return this.acknowledged("state", { ...fields } as JsonObject);
    }

    /** Mutes or unmutes the microphone. */
    setAudioMuted(muted: boolean): Promise<Acknowledgement> {
        return this.setState({ audioMuted: muted });
    }

    /** Pauses or resumes the camera. */
    setVideoPaused(paused: boolean): Promise<Acknowledgement> {
        return this.setState({ videoPaused: paused });
    }

    /** Starts or stops sharing the screen. */
    setPresenting(presenting: boolean): Promise<Acknowledgement> {
        return this.setState({ presenting });
    }

    /** Raises or lowers the hand. */
    setHandRaised(raised: boolean): Promise<Acknowledgement> {
        return this.setState({ handRaised: raised });
    }

    /**
     * Reports whether this participant speaks, as its media stack detects it (no answer comes). The roster shows
     * the active speaker by the room's speaker rule.
     * @param speaking true when it starts speaking, false when it stops.
     */
    reportSpeaking(speaking: boolean): void {
        this.channel.send("speaker", { room: this.room, uid: speaking ? (this.channel.uid ?? null) : null });
    }

    /**
     * Reports who speaks, for a bot with the `speaker` capability: anyone in the call, or null for nobody.
     * Participants report themselves with `reportSpeaking`. No answer comes.
     * @param uid the speaker, or null for nobody.
     */
    reportActiveSpeaker(uid: string | null): void {
        this.channel.send("speaker", { room: this.room, uid });
    }

    /**
     * Starts or stops recording (moderators, or bots with the `record` capability).
     * @param recording the new state.
     */
    setRecording(recording: boolean): Promise<Acknowledgement> {
        return this.acknowledged("media", { recording });
    }

    /**
     * Sets this participant's audio output (its own device's; nobody else's changes).
     * @param mode `speaker`, `earpiece`, `bluetooth` or `headphones`.
     */
    setAudioMode(mode: string): Promise<Acknowledgement> {
        return this.acknowledged("media", { audioMode: mode });
    }

    /**
     * Sets or removes this participant's attributes (null removes a key); keys its token set are the backend's.
     * @param changes the keys to set, and null for those to remove.
     * @param ifSeq a version check: rejects with `ERR_CONFLICT`, changing nothing, if they changed after this
     *     sequence number (the roster's `seq` they were read at, or an earlier acknowledgement's).
     */
    setAttributes(changes: { readonly [key: string]: string | null }, ifSeq?: number): Promise<Acknowledgement> {
        return this.acknowledged("attributes", { attributes: { ...changes }, ...version(ifSeq) });
    }

    /**
     * Sets or removes the room's metadata (moderators, bots with the `metadata` capability).
     * @param changes the keys to set, and null for those to remove.
     * @param ifSeq a version check, as for `setAttributes`.
     */
    setMetadata(changes: { readonly [key: string]: string | null }, ifSeq?: number): Promise<Acknowledgement> {
        return this.acknowledged("metadata", { metadata: { ...changes }, ...version(ifSeq) });
    }

    /**
     * Locks the room (moderators, bots with `lock`): new joins into the call are refused with `ERR_ROOM_LOCKED`
     * but for those whose rights say `bypassLock`; who is in stays.
     */
    lock(reason?: string): Promise<Acknowledgement> {
        return this.moderate("lock", undefined, reason);
    }

    /** Unlocks the room (moderators, bots with `lock`). */
    unlock(reason?: string): Promise<Acknowledgement> {
        return this.moderate("unlock", undefined, reason);
    }

    /**
     * Turns the waiting room on (moderators, bots with `admit`): a join into the call by a user who may not bypass it
     * waits until admitted; who is in stays. The roster's `room.admission` (`admissionRequired`) says it is on.
     */
    requireAdmission(reason?: string): Promise<Acknowledgement> {
        return this.moderate("require_admission", undefined, reason);
    }

    /** Turns the waiting room off, letting everyone waiting in (moderators, bots with `admit`). */
    openAdmission(reason?: string): Promise<Acknowledgement> {
        return this.moderate("open_admission", undefined, reason);
    }

    /**
     * Lets a waiting user into the call: its join goes on (moderators, bots with `admit`). Rejects with
     * `ERR_NOT_FOUND` when the user does not wait.
     * @param uid the waiting user.
     */
    admit(uid: string): Promise<Acknowledgement> {
        return this.moderate("admit", uid);
    }

    /** Lets everyone waiting into the call, in arrival order (moderators, bots with `admit`). */
    admitAll(): Promise<Acknowledgement> {
        return this.moderate("admit_all");
    }

    /**
     * Turns a waiting user away: its join rejects with `ERR_ADMISSION_DENIED`, the reason in the message
     * (moderators, bots with `admit`). Rejects with `ERR_NOT_FOUND` when the user does not wait.
     * @param uid the waiting user.
     * @param options the reason the user is told.
     */
    deny(uid: string, options: { reason?: string } = {}): Promise<Acknowledgement> {
        return this.moderate("deny", uid, options.reason);
    }

    /**
     * Turns everyone waiting away (moderators, bots with `admit`).
     * @param options the reason they are told.
     */
    denyAll(options: { reason?: string } = {}): Promise<Acknowledgement> {
        return this.moderate("deny_all", undefined, options.reason);
    }

    /**
     * Who waits in the waiting room, a page at a time in arrival order (the `waiting` query: moderators, bots with
     * `admit`; `ERR_FORBIDDEN` for anyone else).
     * @param page `limit` (1-1000, 100 by default) and `after` (the `next` of the page before).
     */
    async listWaiting(page: { limit?: number; after?: number } = {}): Promise<WaitingPage> {
        const parameters: JsonObject = {};
        if (page.limit !== undefined) parameters.limit = page.limit;
        if (page.after !== undefined) parameters.after = page.after;
        return readWaitingPage(await this.query("waiting", parameters));
    }

    /** Whether the room's waiting room is on (the roster's room entry carries `admission` while it is). */
    get admissionRequired(): boolean {
        return this.roster.getSnapshot().state.admission === true;
    }

    /** How many wait in the waiting room (the roster's room entry carries `waiting` while anyone does). */
    get waitingCount(): number {
        const waiting = this.roster.getSnapshot().state.waiting;
        return typeof waiting === "number" ? waiting : 0;
    }

    /**
     * Hard-mutes a participant (moderators, bots with `mute`): muted, and unable to unmute itself for `durationMs`,
     * or until `ask_unmute` or a permission change gives the right back.
     * @param uid the participant.
     * @param durationMs how long (1 s to a day), or none until lifted.
     */
    hardMute(uid: string, durationMs?: number): Promise<Acknowledgement> {
        const fields: JsonObject = { action: "mute", target: uid, hard: true };
        if (durationMs !== undefined) fields.durationMs = durationMs;
        return this.acknowledged("action", fields);
    }

    /**
     * Changes a participant's permissions (moderators, bots with `permissions`): those given, the others as they are.
     * @param uid the participant.
     * @param permissions `unmute`, `share`, `meetings`, `hidden`.
     * @param ifSeq a version check, as for `setAttributes`.
     */
    setPermissions(
        uid: string,
        permissions: { unmute?: boolean; share?: boolean; meetings?: boolean; hidden?: boolean },
        ifSeq?: number,
    ): Promise<Acknowledgement> {
        return this.acknowledged("permissions", { uid, permissions: { ...permissions }, ...version(ifSeq) });
    }

    /**
     * Performs a moderator action. Refusals reject with `ERR_FORBIDDEN` (not allowed) or `ERR_NOT_FOUND` (the
     * target is not in the call); repeating an action resolves with `changed: false`.
     * @param action the action.
     * @param target the uid it applies to; none for `mute_all` and `end_session`.
     * @param reason a reason shown with the event.
     */
    moderate(action: ModeratorAction, target?: string, reason?: string): Promise<Acknowledgement> {
        const fields: JsonObject = { action };
        if (target !== undefined) fields.target = target;
        if (reason !== undefined) fields.reason = reason;
        return this.acknowledged("action", fields);
    }

    /**
     * Asks a question about this room (`members`, `operators`, `muted`, `banned`, `history`, `attendance`,
     * `waiting`); resolves with the whole `result` message.
     * @param query the query.
     * @param parameters more parameters, such as `after` and `limit` for `history`.
     */
    query(query: Exclude<QueryName, "rooms" | "active_meeting">, parameters: JsonObject = {}): Promise<ServerMessage> {
        return this.channel.request("query", { ...parameters, query, room: this.room });
    }

    /**
     * Switches the roster view without leaving the room; resolves once the new view's snapshot is applied.
     * @param view the new view.
     */
    async changeView(view: RosterView): Promise<void> {
        this.requireActive();
        await this.channel.request(
            "view",
            { room: this.room, view: viewJson(view) },
            { room: this.room, completesOnRoster: true },
        );
        this.mirror.view = { ...view };
    }

    /** Leaves the room (a participant leaves the call at once); the subscription ends. */
    async leave(): Promise<void> {
        this.requireActive();
        await this.channel.request("leave", { room: this.room });
        this.end(undefined);
    }

    /**
     * Sends an ephemeral signal (docs/PROTOCOL.md, "signal") to every other subscriber of the room, or to one
     * participant's devices (`to`); it never enters the room's log (no `seq`, not stored, not resumed). Participants
     * in the call and moderators may send; refused with `ERR_FORBIDDEN`, `ERR_NOT_FOUND` (`to` not in the call),
     * `ERR_TOO_LARGE` (`data` past `rooms.max_signal_bytes`) or `ERR_RATE_LIMITED`.
     * @param kind the app's name for it (`reaction` for an emoji burst).
     * @param data any JSON.
     * @param to the uid of one participant in the call; none for the whole room.
     */
    async signal(kind: string, data?: JsonValue, to?: string): Promise<void> {
        this.requireActive();
        const fields: JsonObject = { room: this.room, kind };
        if (data !== undefined) fields.data = data;
        if (to !== undefined) fields.to = to;
        await this.channel.request("signal", fields);
    }

    /**
     * A `signal` message for this room: tells `signal` listeners.
     * @param message the message.
     */
    signalled(message: ServerMessage): void {
        if (this.ended || typeof message.from !== "string" || typeof message.kind !== "string") return;
        const signal: RoomSignal = {
            room: this.room,
            from: message.from,
            kind: message.kind,
            data: message.data ?? null,
            ...(typeof message.to === "string" ? { to: message.to } : {}),
        };
        this.emitter.emit("signal", signal);
    }

    private async acknowledged(type: ClientMessageType, fields: JsonObject): Promise<Acknowledgement> {
        this.requireActive();
        return readAcknowledgement(await this.channel.request(type, { room: this.room, ...fields }));
    }

    private requireActive(): void {
        if (this.ended) throw new RollcallError("protocol", `the subscription to ${this.room} has ended`);
    }

    // Applying messages (called by the client)

    /**
     * The fields of a join message for this subscription; with `resume`, the positions to resume from.
     * @param resume whether to resume (only once a snapshot arrived).
     */
    joinFields(resume: boolean): JsonObject {
        return this.mirror.joinFields(resume);
    }

    /**
     * Applies a `snapshot`, `patch`, `event` or `resumed` message for this room, tells the listeners what changed,
     * and returns what to do next.
     * @param message the parsed message.
     */
    handle(message: ServerMessage): FollowUp {
        if (this.ended) return "none";
        const { changes, followUp } = this.mirror.handle(message);
        for (const change of changes) this.tell(change);
        return followUp;
    }

    /** The rejoin asked for after drift failed to go out or was refused: the next drift may ask again. */
    rejoinFailed(): void {
        this.mirror.rejoinFailed();
    }

    /** The connection dropped. */
    connectionLost(): void {
        this.mirror.connectionLost();
        if (!this.ended) this.emitter.emit("connectionLost", undefined);
    }

    private tell(change: MirrorChange): void {
        switch (change.kind) {
            case "event":
                this.emitter.emit("event", change.event);
                break;
            case "snapshot":
                this.emitter.emit("snapshot", { resync: change.resync, recovered: change.recovered });
                break;
            case "resumed":
                this.emitter.emit("resumed", { recovered: change.recovered });
                break;
            case "drift":
                this.emitter.emit("drift", { detail: change.detail, resume: change.resume });
                break;
        }
    }

    /**
     * The gateway took the subscription out of the room: tells `unsubscribed` listeners, then ends it (the client
     * forgets it, so a reconnect does not join the room again).
     * @param reason why, as the gateway said it.
     */
    unsubscribed(reason: UnsubscribeReason): void {
        if (this.ended) return;
        this.emitter.emit("unsubscribed", { reason });
        this.end(RollcallError.unsubscribed(this.room, reason));
    }

    /**
     * Ends the subscription: tells `ended` listeners once, and the client forgets it.
     * @param error why, when it failed.
     */
    end(error: RollcallError | undefined): void {
        if (this.ended) return;
        this.ended = true;
        this.settleAdmission?.reject(
            error ?? new RollcallError("closed", `the subscription to ${this.room} ended before its join was let in`),
        );
        this.settleAdmission = undefined;
        this.channel.forget(this);
        this.emitter.emit("ended", error);
        this.emitter.clear();
    }
}

/** The `ifSeq` member of a version-checked write, none without one. */
function version(ifSeq: number | undefined): JsonObject {
    return ifSeq === undefined ? {} : { ifSeq };
}
