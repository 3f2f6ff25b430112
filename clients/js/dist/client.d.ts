import type { JsonObject } from "./json.js";
import type { Acknowledgement, Identity, QueryName, ServerMessage } from "./protocol.js";
import { RoomSubscription } from "./room.js";
import type { JoinOptions } from "./room.js";
import type { ClientStatus, MeetingAnnouncement, RollcallEvents, RollcallOptions, RoomSummary } from "./client-types.js";
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
    private readonly WebSocketClass;
    private readonly watchPage;
    private readonly emitter;
    private readonly requests;
    private readonly subscriptions;
    private readonly channel;
    /** Where the connection stands: the one value the status, the socket and its timers are read from. */
    private state;
    private currentIdentity;
    private readonly refresher;
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
     * In a room whose waiting room is on, the join waits (without a timeout, and through reconnects) until a
     * moderator admits it; meanwhile the subscription (`rooms.get(room)`, or `onWaiting`) tells its `waiting`
     * listeners its position. Turned away, it rejects with `ERR_ADMISSION_DENIED`; a wait that ran out with
     * `ERR_WAIT_EXPIRED`; `leave()` on the subscription ends the wait.
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
    /** Starts an attempt: fetches its token, then opens the socket and waits for `welcome`. */
    private openConnection;
    /** An attempt failed before it had a socket: the first ends the client, a reconnect backs off again. */
    private attemptFailed;
    private connectionEnded;
    private tellConnectionLost;
    /** Backs off before reconnect attempt `attempt`, or ends the client when the policy allows no more. */
    private scheduleReconnect;
    /** Ends the backoff: its timer fired, the network came back, or the page became visible. */
    private reconnectNow;
    /** Pings at once when connected, to find a connection that died while the page slept or the network changed. */
    private checkConnectionNow;
    private networkCameBack;
    private pageVisible;
    private finish;
    /** Tells `status` listeners of a change the state already made. */
    private emitStatus;
    private received;
    private roomMessage;
    private welcome;
    private pingWithin;
    /** Joins a room again: after a reconnect (resuming) or after drift. */
    private rejoin;
}
