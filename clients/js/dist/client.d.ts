import type { WebSocketConstructor } from "./connection.js";
import { RollcallError } from "./errors.js";
import type { JsonObject } from "./json.js";
import type { Acknowledgement, Identity, QueryName, RoomEvent, ServerMessage } from "./protocol.js";
import { ReconnectPolicy } from "./reconnect-policy.js";
import type { ReconnectOptions } from "./reconnect-policy.js";
import { RoomSubscription } from "./room.js";
import type { JoinOptions } from "./room.js";
/** How a client connects. Give `token` or `getToken`. */
export interface RollcallOptions {
    /** The gateway's rooms URL: `wss://host/v1/ws`; a path such as `/v1/ws` is taken relative to the page. */
    url: string;
    /** A token (JWT) from the app's backend. */
    token?: string;
    /**
     * Fetches a token from the app's backend: called before every connection attempt and, while connected,
     * before the token expires (the new token is sent with an `auth` message, without dropping the connection).
     */
    getToken?: () => string | Promise<string>;
    /**
     * The device id sent with joins, so one user can be in a call from several devices, and a page that reloads
     * comes back as the same device. Default: an id kept in the tab's `sessionStorage` (a new one per client
     * where there is none).
     */
    device?: string;
    /** How the token reaches the gateway: an `auth` message (default; it stays out of URLs and logs) or the
     * `token` query parameter. */
    authentication?: "message" | "query";
    /** How long a request waits for its answer, in milliseconds; default 10,000. */
    requestTimeoutMs?: number;
    /** The reconnect policy; default: exponential backoff from 200 ms to 10 s with 20 % jitter, without end. */
    reconnect?: ReconnectOptions | ReconnectPolicy;
    /** Quiet time before an app-level ping, in milliseconds; default 25,000; 0 disables it. */
    pingIntervalMs?: number;
    /** How long a ping waits for its pong before the connection is taken for dead, in milliseconds; default 10,000. */
    pongTimeoutMs?: number;
    /** How long before the token expires `getToken` is asked for a new one, in milliseconds; default 60,000. */
    tokenRefreshMarginMs?: number;
    /** The WebSocket implementation; default the global `WebSocket` (browsers, Node 22). */
    WebSocket?: WebSocketConstructor;
    /** Whether to follow `online`, `offline` and page visibility to reconnect or check the connection at once;
     * default true. */
    watchPage?: boolean;
}
/** Where the client's connection stands. */
export declare type ClientStatus = "idle" | "connecting" | "connected" | "reconnecting" | "closed";
/** A change of status, with what the client knows about it. */
export interface StatusChange {
    /** The new status. */
    readonly status: ClientStatus;
    /** While reconnecting: the attempt coming next (from 1). */
    readonly attempt?: number;
    /** While reconnecting: milliseconds until that attempt. */
    readonly delayMs?: number;
    /** While reconnecting: whether the browser is offline (the attempt comes as soon as it is online). */
    readonly waitingForNetwork?: boolean;
    /** Why the connection ended, when it did. */
    readonly error?: RollcallError;
}
/** One room of the `rooms` query. */
export interface RoomSummary {
    /** The room id. */
    readonly room: string;
    /** Whether anyone is in the call. */
    readonly active: boolean;
    /** How many are in the call. */
    readonly participants: number;
    /** The room's sequence number. */
    readonly seq: number;
    /** The group's active meeting, if any. */
    readonly activeMeeting: JsonObject | null;
}
/** A group meeting message to send (docs/PROTOCOL.md, "meeting"). */
export interface MeetingAnnouncement {
    /** The group id. */
    group: string;
    /** The calls SDK's session id. */
    sessionId: string;
    /** `audio` or `video`; default `video`. */
    callType?: "audio" | "video";
    /** A short text, such as the meeting's title. */
    text?: string;
    /** True when the meeting starts (default), false when it ends. */
    active?: boolean;
}
/** What the client tells its listeners. */
export interface RollcallEvents {
    /** The status changed. */
    status: StatusChange;
    /** The gateway authenticated the client: after each connection and each token refresh. */
    welcome: Identity;
    /** A group meeting message for a group without a subscription (a subscribed room's come as its events). */
    meeting: RoomEvent;
    /** An error no request waited for: `ERR_TOKEN_EXPIRED`, a failed token refresh, a failed `getToken`. */
    error: RollcallError;
    /** The client closed for good: with why, unless `close()` was called. */
    closed: RollcallError | undefined;
}
/**
 * A Rollcall client: one authenticated connection to the gateway, the rooms joined over it, and requests.
 *
 * ```ts
 * const client = new Rollcall({ url: "wss://rollcall.example.com/v1/ws", getToken: fetchTokenFromBackend });
 * await client.connect();
 * const room = await client.join("team-standup", { events: "notable" });
 * room.roster.subscribe((roster) => render(roster.participants));
 * ```
 *
 * When the connection drops, the client reconnects with exponential backoff and jitter and rejoins every room with
 * `resume`, so each replays exactly what it missed (`resumed` with `recovered: true`) or gets a fresh snapshot
 * (`recovered: false`). Close codes 4001-4005 (authentication, expiry, removal, ban, session ended) end it for good.
 */
export declare class Rollcall {
    private readonly url;
    private tokenSource;
    private readonly device;
    private readonly authentication;
    private readonly requestTimeoutMs;
    private readonly policy;
    private readonly pingIntervalMs;
    private readonly pongTimeoutMs;
    private readonly refreshMarginMs;
    private readonly WebSocketClass;
    private readonly watchPage;
    private readonly emitter;
    private readonly requests;
    private readonly subscriptions;
    private readonly channel;
    private currentStatus;
    private connection;
    private welcomed;
    private hasConnected;
    private attempt;
    private closing;
    private currentIdentity;
    private authFailure;
    private connectWaiter;
    private closeWaiter;
    private heartbeat;
    private welcomeTimer;
    private reconnectTimer;
    private refreshTimer;
    private refreshDueAt;
    private stopWatchingPage;
    /**
     * Creates a client; nothing happens on the network until `connect()`.
     * @param options where to connect, the token, and the policies.
     */
    constructor(options: RollcallOptions);
    /** Where the connection stands. */
    get status(): ClientStatus;
    /** Who the gateway authenticated, from the last `welcome`. */
    get identity(): Identity | undefined;
    /** The rooms joined, by id. */
    get rooms(): ReadonlyMap<string, RoomSubscription>;
    /**
     * Adds a listener; returns the function that removes it.
     * @param name `status`, `welcome`, `meeting`, `error` or `closed`.
     * @param listener the callback.
     */
    on<Name extends keyof RollcallEvents>(name: Name, listener: (value: RollcallEvents[Name]) => void): () => void;
    /**
     * Connects and authenticates; resolves with the identity from the gateway's `welcome`. A first connection that
     * fails is not retried: the promise rejects (`ERR_UNAUTHORIZED` for a refused token) and the client is closed.
     */
    connect(): Promise<Identity>;
    /**
     * Joins a room (or watches it as an observer); resolves once its first snapshot is applied.
     * Refusals reject with `ERR_NOT_GROUP_MEMBER`, `ERR_BANNED`, `ERR_CALL_FULL`, `ERR_TOO_MANY_ROOMS`, ...
     * @param room the room id (a group's room is the group id).
     * @param options participant or observer, view, events, call type.
     */
    join(room: string, options?: JoinOptions): Promise<RoomSubscription>;
    /**
     * Tells every member of a group that a meeting is on or over.
     * @param meeting the group, session id, call type, text, and whether it is active.
     */
    sendMeeting(meeting: MeetingAnnouncement): Promise<Acknowledgement>;
    /**
     * Asks the gateway a question; resolves with the whole `result` message.
     * @param query `rooms`, `active_meeting`, `members`, `operators`, `muted`, `banned` or `history`.
     * @param parameters its parameters: `room`, `group`, `after`, `limit`.
     */
    query(query: QueryName, parameters?: JsonObject): Promise<ServerMessage>;
    /** The rooms the token gives access to, with who is in them. */
    listRooms(): Promise<RoomSummary[]>;
    /** Sends an app-level `ping`; resolves with the round trip in milliseconds. */
    ping(): Promise<number>;
    /**
     * Replaces the token without dropping the connection; later reconnects use the new one. Without an argument the
     * token comes from `getToken`. Rejects with `ERR_FORBIDDEN` for another user's token and `ERR_UNAUTHORIZED` for
     * one that fails verification; the connection stays on the old token either way.
     * @param token a token for the same user.
     */
    refreshToken(token?: string): Promise<Identity>;
    /**
     * Drops the connection as a network failure would; the client then reconnects and resumes every room. For an
     * app that learns the network changed.
     * @param reason why, for the status report.
     */
    dropConnection(reason?: string): void;
    /** Closes the connection (code 1000) and ends every room; resolves once closed. Calling it again does nothing. */
    close(): Promise<void>;
    private request;
    private send;
    private openConnection;
    /** A connection attempt failed before a socket existed. */
    private connectionFailed;
    private connectionEnded;
    private scheduleReconnect;
    /** Skips the rest of the backoff: the network came back, or the page became visible. */
    private reconnectNow;
    private networkCameBack;
    private pageVisible;
    private finish;
    private clearTimers;
    private setStatus;
    private received;
    private roomMessage;
    private welcome;
    private pingWithin;
    /** Joins a room again: after a reconnect (resuming) or after drift. */
    private rejoin;
    private scheduleRefresh;
    private refreshFromSource;
}
