import { RollcallError } from "./errors.js";
import type { JsonObject, JsonValue } from "./json.js";
import type { Acknowledgement, EventMode, ModeratorAction, QueryName, RoomRights, RosterView, ServerMessage, ViewCounts, WaitingPage, WaitingStatus } from "./protocol.js";
import type { FollowUp } from "./room-mirror.js";
import type { RosterStore } from "./roster-store.js";
import type { JoinOptions, ParticipantStateUpdate, RoomChannel, RoomSubscriptionEvents, UnsubscribeReason } from "./room-types.js";
export type { FollowUp } from "./room-mirror.js";
export type { JoinOptions, ParticipantStateUpdate, RoomChannel, RoomSubscriptionEvents, UnsubscribeReason, } from "./room-types.js";
/**
 * A room the client joined or watches: a live roster (`roster`, a `RosterStore`), its events, and the requests
 * about it. After a reconnect the client rejoins it with `resume` (the roster's `seq`) and `resumeEvents` (the highest
 * `seq` it received on any message of the room: messages arrive in log order, so it has every event it takes up to
 * there), so it either replays exactly what was missed or receives a fresh snapshot. The bookkeeping is a
 * `RoomMirror` (no I/O); the subscription adds the requests, over the client's `RoomChannel`, and the listeners.
 */
export declare class RoomSubscription {
    private readonly channel;
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
    private readonly mirror;
    private ended;
    private readonly emitter;
    private currentRights;
    private currentWait;
    private readonly admission;
    private settleAdmission;
    /**
     * Creates a subscription; the client does so in `join`.
     * @param channel how requests reach the gateway.
     * @param room the room id.
     * @param device the device id.
     * @param options how to join.
     */
    constructor(channel: RoomChannel, room: string, device: string, options?: JoinOptions);
    /** What the user may do in the room, from the answer to the last join (undefined before it). */
    get rights(): RoomRights | undefined;
    /**
     * Keeps the rights a join's answer carries; the client calls this.
     * @param answer the join's `ack`.
     */
    joined(answer: ServerMessage): void;
    /**
     * Where the join stands in the room's waiting room, from the gateway's last `waiting` answer; null when it does
     * not wait (never did, or was admitted).
     */
    get waiting(): WaitingStatus | null;
    /** The join's place in the waiting room's queue (from 1); null when it does not wait. */
    get waitingPosition(): number | null;
    /**
     * A `waiting` answer to this subscription's join: keeps it and tells `waiting` listeners; the client calls this.
     * @param message the message.
     */
    waited(message: ServerMessage): void;
    /**
     * Settles once the join is let in (resolves) or the subscription ends first (rejects with why): for a join whose
     * connection dropped while it waited, which the client makes again after the reconnect.
     */
    whenAdmitted(): Promise<void>;
    /** The roster view mirrored. */
    get view(): RosterView;
    /** What every view counts, whatever its filter (the room entry's `counts`): "23 hands raised". */
    get counts(): ViewCounts;
    /**
     * How many entries match the view's filter before its `offset` and `limit` (the room entry's `total`), for
     * "page 3 of 20"; undefined before the first snapshot.
     */
    get viewTotal(): number | undefined;
    /**
     * The sequence number up to which the subscription has every event it takes: its last event's, or a later
     * snapshot's, patch's or resume's (messages arrive in log order). A rejoin sends it as `resumeEvents`.
     */
    get lastEventSeq(): number;
    /** Whether the last resume replayed everything missed; undefined before any resume. */
    get recovered(): boolean | undefined;
    /** Whether the subscription still receives changes. */
    get active(): boolean;
    /**
     * Adds a listener; returns the function that removes it.
     * @param name `event`, `snapshot`, `resumed`, `drift`, `connectionLost`, `unsubscribed` or `ended`.
     * @param listener the callback.
     */
    on<Name extends keyof RoomSubscriptionEvents>(name: Name, listener: (value: RoomSubscriptionEvents[Name]) => void): () => void;
    /**
     * Sets the participant's own state; only the fields given are sent. Observers get `ERR_NOT_IN_ROOM`.
     * @param fields the fields to set.
     */
    setState(fields: ParticipantStateUpdate): Promise<Acknowledgement>;
    /** Mutes or unmutes the microphone. */
    setAudioMuted(muted: boolean): Promise<Acknowledgement>;
    /** Pauses or resumes the camera. */
    setVideoPaused(paused: boolean): Promise<Acknowledgement>;
    /** Starts or stops sharing the screen. */
    setPresenting(presenting: boolean): Promise<Acknowledgement>;
    /** Raises or lowers the hand. */
    setHandRaised(raised: boolean): Promise<Acknowledgement>;
    /**
     * Reports whether this participant speaks, as its media stack detects it (no answer comes). The roster shows
     * the active speaker by the room's speaker rule.
     * @param speaking true when it starts speaking, false when it stops.
     */
    reportSpeaking(speaking: boolean): void;
    /**
     * Reports who speaks, for a bot with the `speaker` capability: anyone in the call, or null for nobody.
     * Participants report themselves with `reportSpeaking`. No answer comes.
     * @param uid the speaker, or null for nobody.
     */
    reportActiveSpeaker(uid: string | null): void;
    /**
     * Starts or stops recording (moderators, or bots with the `record` capability).
     * @param recording the new state.
     */
    setRecording(recording: boolean): Promise<Acknowledgement>;
    /**
     * Sets this participant's audio output (its own device's; nobody else's changes).
     * @param mode `speaker`, `earpiece`, `bluetooth` or `headphones`.
     */
    setAudioMode(mode: string): Promise<Acknowledgement>;
    /**
     * Sets or removes this participant's attributes (null removes a key); keys its token set are the backend's.
     * @param changes the keys to set, and null for those to remove.
     * @param ifSeq a version check: rejects with `ERR_CONFLICT`, changing nothing, if they changed after this
     *     sequence number (the roster's `seq` they were read at, or an earlier acknowledgement's).
     */
    setAttributes(changes: {
        readonly [key: string]: string | null;
    }, ifSeq?: number): Promise<Acknowledgement>;
    /**
     * Sets or removes the room's metadata (moderators, bots with the `metadata` capability).
     * @param changes the keys to set, and null for those to remove.
     * @param ifSeq a version check, as for `setAttributes`.
     */
    setMetadata(changes: {
        readonly [key: string]: string | null;
    }, ifSeq?: number): Promise<Acknowledgement>;
    /**
     * Locks the room (moderators, bots with `lock`): new joins into the call are refused with `ERR_ROOM_LOCKED`
     * but for those whose rights say `bypassLock`; who is in stays.
     */
    lock(reason?: string): Promise<Acknowledgement>;
    /** Unlocks the room (moderators, bots with `lock`). */
    unlock(reason?: string): Promise<Acknowledgement>;
    /**
     * Turns the waiting room on (moderators, bots with `admit`): a join into the call by a user who may not bypass it
     * waits until admitted; who is in stays. The roster's `room.admission` (`admissionRequired`) says it is on.
     */
    requireAdmission(reason?: string): Promise<Acknowledgement>;
    /** Turns the waiting room off, letting everyone waiting in (moderators, bots with `admit`). */
    openAdmission(reason?: string): Promise<Acknowledgement>;
    /**
     * Lets a waiting user into the call: its join goes on (moderators, bots with `admit`). Rejects with
     * `ERR_NOT_FOUND` when the user does not wait.
     * @param uid the waiting user.
     */
    admit(uid: string): Promise<Acknowledgement>;
    /** Lets everyone waiting into the call, in arrival order (moderators, bots with `admit`). */
    admitAll(): Promise<Acknowledgement>;
    /**
     * Turns a waiting user away: its join rejects with `ERR_ADMISSION_DENIED`, the reason in the message
     * (moderators, bots with `admit`). Rejects with `ERR_NOT_FOUND` when the user does not wait.
     * @param uid the waiting user.
     * @param options the reason the user is told.
     */
    deny(uid: string, options?: {
        reason?: string;
    }): Promise<Acknowledgement>;
    /**
     * Turns everyone waiting away (moderators, bots with `admit`).
     * @param options the reason they are told.
     */
    denyAll(options?: {
        reason?: string;
    }): Promise<Acknowledgement>;
    /**
     * Who waits in the waiting room, a page at a time in arrival order (the `waiting` query: moderators, bots with
     * `admit`; `ERR_FORBIDDEN` for anyone else).
     * @param page `limit` (1-1000, 100 by default) and `after` (the `next` of the page before).
     */
    listWaiting(page?: {
        limit?: number;
        after?: number;
    }): Promise<WaitingPage>;
    /** Whether the room's waiting room is on (the roster's room entry carries `admission` while it is). */
    get admissionRequired(): boolean;
    /** How many wait in the waiting room (the roster's room entry carries `waiting` while anyone does). */
    get waitingCount(): number;
    /**
     * Hard-mutes a participant (moderators, bots with `mute`): muted, and unable to unmute itself for `durationMs`,
     * or until `ask_unmute` or a permission change gives the right back.
     * @param uid the participant.
     * @param durationMs how long (1 s to a day), or none until lifted.
     */
    hardMute(uid: string, durationMs?: number): Promise<Acknowledgement>;
    /**
     * Changes a participant's permissions (moderators, bots with `permissions`): those given, the others as they are.
     * @param uid the participant.
     * @param permissions `unmute`, `share`, `meetings`, `hidden`.
     * @param ifSeq a version check, as for `setAttributes`.
     */
    setPermissions(uid: string, permissions: {
        unmute?: boolean;
        share?: boolean;
        meetings?: boolean;
        hidden?: boolean;
    }, ifSeq?: number): Promise<Acknowledgement>;
    /**
     * Performs a moderator action. Refusals reject with `ERR_FORBIDDEN` (not allowed) or `ERR_NOT_FOUND` (the
     * target is not in the call); repeating an action resolves with `changed: false`.
     * @param action the action.
     * @param target the uid it applies to; none for `mute_all` and `end_session`.
     * @param reason a reason shown with the event.
     */
    moderate(action: ModeratorAction, target?: string, reason?: string): Promise<Acknowledgement>;
    /**
     * Asks a question about this room (`members`, `operators`, `muted`, `banned`, `history`, `attendance`,
     * `waiting`); resolves with the whole `result` message.
     * @param query the query.
     * @param parameters more parameters, such as `after` and `limit` for `history`.
     */
    query(query: Exclude<QueryName, "rooms" | "active_meeting">, parameters?: JsonObject): Promise<ServerMessage>;
    /**
     * Switches the roster view without leaving the room; resolves once the new view's snapshot is applied.
     * @param view the new view.
     */
    changeView(view: RosterView): Promise<void>;
    /** Leaves the room (a participant leaves the call at once); the subscription ends. */
    leave(): Promise<void>;
    /**
     * Sends an ephemeral signal (docs/PROTOCOL.md, "signal") to every other subscriber of the room, or to one
     * participant's devices (`to`); it never enters the room's log (no `seq`, not stored, not resumed). Participants
     * in the call and moderators may send; refused with `ERR_FORBIDDEN`, `ERR_NOT_FOUND` (`to` not in the call),
     * `ERR_TOO_LARGE` (`data` past `rooms.max_signal_bytes`) or `ERR_RATE_LIMITED`.
     * @param kind the app's name for it (`reaction` for an emoji burst).
     * @param data any JSON.
     * @param to the uid of one participant in the call; none for the whole room.
     */
    signal(kind: string, data?: JsonValue, to?: string): Promise<void>;
    /**
     * A `signal` message for this room: tells `signal` listeners.
     * @param message the message.
     */
    signalled(message: ServerMessage): void;
    private acknowledged;
    private requireActive;
    /**
     * The fields of a join message for this subscription; with `resume`, the positions to resume from.
     * @param resume whether to resume (only once a snapshot arrived).
     */
    joinFields(resume: boolean): JsonObject;
    /**
     * Applies a `snapshot`, `patch`, `event` or `resumed` message for this room, tells the listeners what changed,
     * and returns what to do next.
     * @param message the parsed message.
     */
    handle(message: ServerMessage): FollowUp;
    /** The rejoin asked for after drift failed to go out or was refused: the next drift may ask again. */
    rejoinFailed(): void;
    /** The connection dropped. */
    connectionLost(): void;
    private tell;
    /**
     * The gateway took the subscription out of the room: tells `unsubscribed` listeners, then ends it (the client
     * forgets it, so a reconnect does not join the room again).
     * @param reason why, as the gateway said it.
     */
    unsubscribed(reason: UnsubscribeReason): void;
    /**
     * Ends the subscription: tells `ended` listeners once, and the client forgets it.
     * @param error why, when it failed.
     */
    end(error: RollcallError | undefined): void;
}
