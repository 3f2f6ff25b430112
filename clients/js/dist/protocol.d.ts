import type { ParticipantFlag, RoomEventName, ViewFilter } from "./constants.js";
import type { JsonObject, JsonValue } from "./json.js";
export type { ViewFilter } from "./constants.js";
/** The wire forms of docs/PROTOCOL.md that the client reads and writes. */
/** Which part of a room's roster a subscription mirrors. */
export interface RosterView {
    /** The filter; default `all`. */
    filter?: ViewFilter;
    /** A name to look for: with the `search` filter, or narrowing any other. */
    query?: string;
    /** `prefix` (default) or `substring`, for `query`. */
    match?: "prefix" | "substring";
    /** The order: `join` (default; `raised_hand` for `raised_hands`), `name`, `raised_hand`, `recent_speaking`. */
    sort?: "join" | "name" | "raised_hand" | "recent_speaking";
    /** Skips the first N in that order (a page further down). */
    offset?: number;
    /** Keeps N after the offset (a "visible tiles" window, or a page). */
    limit?: number;
}
/** Which room events arrive besides roster patches: every event, notable ones, or meeting messages only. */
export declare type EventMode = "all" | "notable" | "none";
/** A participant's role in a room. */
export declare type Role = "admin" | "moderator" | "participant" | "viewer" | "bot";
/** The moderator actions (docs/PROTOCOL.md, "action"). */
export declare type ModeratorAction = "mute" | "mute_all" | "lower_hand" | "lower_all_hands" | "ask_unmute" | "spotlight" | "unspotlight" | "promote" | "demote" | "remove" | "ban" | "unban" | "end_session" | "lock" | "unlock" | "floor" | "open_floor" | "stop_share" | "hand_floor" | "require_admission" | "open_admission" | "admit" | "admit_all" | "deny" | "deny_all";
/** The queries the gateway answers (docs/PROTOCOL.md, "query"). */
export declare type QueryName = "rooms" | "active_meeting" | "members" | "operators" | "muted" | "banned" | "history" | "attendance" | "waiting";
/**
 * One participant's entry in a roster view, as the gateway sends it; fields without a value are absent. Its boolean
 * flags are always present, one per `PARTICIPANT_FLAGS` entry: `audioMuted` (the microphone), `videoPaused` (the
 * camera), `presenting` (a screen share), `handRaised`, `pinned` (a moderator's spotlight).
 */
export interface Participant extends Readonly<Record<ParticipantFlag, boolean>> {
    /** The uid. */
    readonly uid: string;
    /** The display name (the uid when the token gave none). */
    readonly name: string;
    /** The avatar URL. */
    readonly avatar?: string;
    /** The media id the calls SDK gave the participant. */
    readonly mid?: string;
    /** The role in the room. */
    readonly role: Role | (string & {});
    /** Whether the participant operates the room (admin, moderator, or promoted). */
    readonly operator: boolean;
    /** `joined` or `reconnecting`. */
    readonly state: "joined" | "reconnecting" | "left" | (string & {});
    /** Position in the call's join order. */
    readonly order: number;
    /** When the participant joined, in milliseconds since the epoch. */
    readonly joinedAt?: number;
    /** The devices in the call. */
    readonly devices?: readonly string[];
    /** When the hand went up (milliseconds since the epoch), while it is up: the hand queue's order. */
    readonly raisedAt?: number;
    /** When the participant was last reported speaking (milliseconds since the epoch). */
    readonly lastSpokeAt?: number;
    /** Whether the last mute came from a moderator. */
    readonly mutedByModerator: boolean;
    /** `front` or `back`. */
    readonly cameraFacing?: string;
    /** The device's audio output: `speaker`, `earpiece`, `bluetooth` or `headphones`. */
    readonly audioMode?: string;
    /** What the app attached to the participant (from the token, the participant, bots or the backend). */
    readonly attributes?: {
        readonly [key: string]: string;
    };
    /** The permissions a moderator changed (absent while all are at their default: everything allowed). */
    readonly permissions?: {
        /** False after a hard mute: the participant cannot unmute itself. */
        readonly unmute?: boolean;
        /** When a timed hard mute lifts (milliseconds since the epoch). */
        readonly restrictedUntil?: number;
        /** Whether it may share its screen. */
        readonly share?: boolean;
        /** Whether it may send group meeting messages. */
        readonly meetings?: boolean;
    };
    /** In the `banned` view: always true. */
    readonly banned?: boolean;
    /** Any field a newer gateway adds. */
    readonly [field: string]: JsonValue | readonly JsonValue[] | undefined;
}
/** The room entry's `counts` as the gateway sends it: a count at zero, and `roles` with none, are left out. */
export declare type ViewCountsEntry = {
    readonly inCall?: number;
    readonly muted?: number;
    readonly video?: number;
    readonly presenting?: number;
    readonly handsRaised?: number;
    readonly roles?: {
        readonly [role: string]: number;
    };
};
/** What every roster view counts (`RosterSnapshot.counts`), read from the room entry with zeros filled in. */
export interface ViewCounts {
    /** Participants in the call (observers and hidden participants are not counted). */
    readonly inCall: number;
    /** With audio muted, by themselves or by a moderator. */
    readonly muted: number;
    /** With the camera on (`videoPaused` false). */
    readonly video: number;
    /** Sharing their screen. */
    readonly presenting: number;
    /** With a hand raised. */
    readonly handsRaised: number;
    /** By role; a role nobody in the call has is absent. */
    readonly roles: {
        readonly [role: string]: number;
    };
}
/** The room entry of a roster (`roster.room`). */
export interface RoomState {
    /** `audio` or `video`. */
    readonly callType?: string;
    /** When the call started, in milliseconds since the epoch. */
    readonly startedAt?: number;
    /** Who started the call. */
    readonly initiator?: string;
    /** Whether the call is recorded. */
    readonly recording?: boolean;
    /** Present (true) while the room is locked: new joins into the call are refused with `ERR_ROOM_LOCKED`. */
    readonly locked?: boolean;
    /** Present while the room has a presenter floor: how many may present at once (`ERR_FLOOR_TAKEN` beyond). */
    readonly floor?: number;
    /** Present while the floor queues: who waits to present, in order (the first starts once a share stops). */
    readonly floorQueue?: readonly string[];
    /** Present (true) while the waiting room is on: joins into the call wait until a moderator admits them. */
    readonly admission?: boolean;
    /** Present while anyone waits in the waiting room: how many. */
    readonly waiting?: number;
    /** The active speaker as shown, by the room's speaker rule (so it does not flicker). */
    readonly activeSpeaker?: string;
    /** The room's seats. */
    readonly capacity?: number;
    /** How many are in the call. */
    readonly participantCount?: number;
    /** How many entries match the view's filter (and query) before its `offset` and `limit`: a page knows its total. */
    readonly total?: number;
    /** What every view counts, whatever its filter, over the participants in the call (zeros left out). */
    readonly counts?: ViewCountsEntry;
    /** What moderators, bots and the backend attached to the room. */
    readonly metadata?: {
        readonly [key: string]: string;
    };
    /** Any field a newer gateway adds. */
    readonly [field: string]: JsonValue | readonly JsonValue[] | undefined;
}
/** One entry of a room's log (docs/PROTOCOL.md, "event"). */
export interface RoomEvent {
    /** The room (for a meeting message, the group). */
    readonly room: string;
    /** Its sequence number in the room's log. */
    readonly seq: number;
    /** The event name, such as `participant.audio_muted` or `meeting.message`; a name this client does not know is
     * passed through. */
    readonly event: RoomEventName | (string & {});
    /** Milliseconds since the epoch. */
    readonly time: number;
    /** Who caused it; null for the gateway itself. */
    readonly actor: string | null;
    /** The reason a moderator gave. */
    readonly reason?: string;
    /** The event's data: `uid`, `participant`, `deviceID`, `reason`, ... */
    readonly data: JsonObject;
    /** Whether it was replayed by a resume after a reconnect. */
    readonly recovered: boolean;
}
/** A group meeting message's data (`meeting.message`; docs/PROTOCOL.md, "meeting"). */
export interface MeetingMessage {
    /** The calls SDK's session id. */
    readonly sessionId: string;
    /** `audio` or `video`. */
    readonly callType?: string;
    /** Who sent it. */
    readonly sender?: string;
    /** Whether the meeting is on. */
    readonly active: boolean;
    /** A short text, such as the meeting's title. */
    readonly text?: string;
}
/** An ephemeral signal (docs/PROTOCOL.md, "signal"): a reaction or an app's signal, never in the room's log, so
 * never replayed after a reconnect. */
export interface RoomSignal {
    /** The room. */
    readonly room: string;
    /** The sender's uid, from its token. */
    readonly from: string;
    /** The app's name for it (`reaction` for emoji reactions). */
    readonly kind: string;
    /** What came with it; null when nothing did. */
    readonly data: JsonValue;
    /** The uid it was for when sent to one participant (this user). */
    readonly to?: string;
}
/** Where a join waiting in the waiting room stands: the gateway's `waiting` answer, sent again when it changes. */
export interface WaitingStatus {
    /** The room. */
    readonly room: string;
    /** The place in the queue, from 1, in arrival order. */
    readonly position: number;
    /** When the wait began, in milliseconds since the epoch (a rejoin after a reconnect keeps it). */
    readonly waitingSince: number;
    /** When the wait ends at the latest (`ERR_WAIT_EXPIRED`), in milliseconds since the epoch. */
    readonly expiresAt: number;
}
/** One user in a room's waiting room: the `waiting` query's entries (and the `waiting` view's, keyed by uid). */
export interface WaitingEntry {
    /** The uid. */
    readonly uid: string;
    /** The display name (the uid when the token gave none). */
    readonly name: string;
    /** The avatar URL. */
    readonly avatar?: string;
    /** The role the token gives in the room. */
    readonly role: Role | (string & {});
    /** The token's `attrs`. */
    readonly attributes?: {
        readonly [key: string]: string;
    };
    /** When the user began to wait, in milliseconds since the epoch. */
    readonly waitingSince: number;
}
/** A page of the `waiting` query. */
export interface WaitingPage {
    /** Whether the room's waiting room is on. */
    readonly admissionRequired: boolean;
    /** How many wait in all. */
    readonly total: number;
    /** Who waits, in arrival order, from the page's start. */
    readonly waiting: readonly WaitingEntry[];
    /** The `after` of the next page; null on the last. */
    readonly next: number | null;
    /** The room's sequence number the page was read at. */
    readonly seq: number;
}
/** Reads a `waiting` message, or undefined when it lacks what every one has. */
export declare function readWaitingStatus(message: JsonObject): WaitingStatus | undefined;
/** Reads the answer to a `waiting` query; entries without a uid are left out. */
export declare function readWaitingPage(message: JsonObject): WaitingPage;
/** The answer to a request that changes something (`ack`). */
export interface Acknowledgement {
    /** The room, when the request was about one. */
    readonly room?: string;
    /** The room's sequence number after the request. */
    readonly seq?: number;
    /** Whether anything changed (repeating an action changes nothing). */
    readonly changed: boolean;
}
/** Who the gateway authenticated (`welcome`). */
export interface Identity {
    /** The uid (the token's `sub`). */
    readonly uid: string;
    /** The display name. */
    readonly name: string;
    /** When the token expires, in seconds since the epoch. */
    readonly expiresAt: number;
}
/** A message from the gateway, parsed; every message has a `type`. */
export interface ServerMessage extends JsonObject {
    type: string;
}
/** Reads an `event` message, or undefined when it lacks what every event has. */
export declare function readEvent(message: JsonObject): RoomEvent | undefined;
/** Reads an `ack` message. */
export declare function readAcknowledgement(message: JsonObject): Acknowledgement;
/** The `view` object of a join or view message. */
export declare function viewJson(view: RosterView): JsonObject;
/** What the user may do in a room, as the join's answer says (docs/PROTOCOL.md, "join"). */
export interface RoomRights {
    /** The role the token gives in the room. */
    readonly role: Role | null;
    /** Whether the user moderates the room (by token or promoted). */
    readonly operator: boolean;
    /** The moderator actions the user may take. */
    readonly actions: readonly ModeratorAction[];
    /** Whether the user may start or stop recording. */
    readonly record: boolean;
    /** Whether the user may report anyone as speaking (bots with `speaker`). */
    readonly speakerForOthers: boolean;
    /** Whether the user may set anyone's attributes (bots with `attributes`). */
    readonly attributesForOthers: boolean;
    /** Whether the user may set the room's metadata. */
    readonly metadata: boolean;
    /** Whether the user may change participants' permissions. */
    readonly permissions: boolean;
    /** Whether the user may unmute itself. */
    readonly unmute: boolean;
    /** Whether the user may share its screen. */
    readonly share: boolean;
    /** Whether the user may send group meeting messages. */
    readonly meetings: boolean;
    /** Whether the user joins the call while the room is locked (moderators, admins, bots with `lock`). */
    readonly bypassLock?: boolean;
    /** Whether the user may read the room's attendance (the `attendance` query: moderators, bots with `attendance`). */
    readonly attendance?: boolean;
}
/** One participant's attendance in the room's current (or last) call: the `attendance` query's records. */
export interface AttendanceRecord {
    readonly uid: string;
    readonly name: string;
    readonly role: string;
    /** The participant's place in the call's join order, the cursor of the next page. */
    readonly order: number;
    /** When the user first joined the call, and when its last device left (null while in the call), in ms. */
    readonly firstJoinedAt: number;
    readonly lastLeftAt: number | null;
    /** Time with at least one device in the call, speaking (as the roster's shown speaker), unmuted, on video and presenting, in ms. */
    readonly inCallMs: number;
    readonly speakingMs: number;
    readonly audioMs: number;
    readonly videoMs: number;
    readonly presentingMs: number;
    /** How many times the hand went up. */
    readonly handsRaised: number;
}
